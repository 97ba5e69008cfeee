"""Draw the Tower component's Builder icon (tol_tasks/builder/tower.png, 48 x 48 pixels).

Run once with ``uv run python scripts/make_builder_icon.py``; the PNG is committed.
"""

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "tol_tasks" / "builder" / "tower.png"


def main() -> None:
    img = Image.new("RGBA", (48, 48), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rectangle([3, 40, 44, 43], fill="#a0784a")  # the base
    for x in (10, 24, 38):  # three pegs
        d.rectangle([x - 1, 14, x + 1, 40], fill="#a0784a")
    for (x, y, w), colour in zip(((10, 34, 8), (10, 28, 6), (24, 34, 5)),
                                 ("#d9534f", "#5cb85c", "#428bca"), strict=True):  # fmt: skip
        d.rounded_rectangle([x - w, y, x + w, y + 5], radius=2, fill=colour)
    img.save(OUT)


if __name__ == "__main__":
    main()
