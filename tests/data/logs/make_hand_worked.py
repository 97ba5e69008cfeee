"""Write hand-worked.csv: a tiny session log whose every score is worked out by hand
in tests/test_analysis.py. Run from the repository root:

    uv run python tests/data/logs/make_hand_worked.py
"""

from __future__ import annotations

from pathlib import Path

from tol_tasks.session_data.livelog import EventLog

OUT = Path(__file__).with_name("hand-worked.csv")

H = {"block": "test", "trial": 1, "attempt": 1, "problem_id": "h1"}
L = {"block": "test", "trial": 2, "attempt": 1, "problem_id": "l1"}
ROWS = [
    ("session_start", 0.0, {}, {}),
    ("block_start", 0.1, {"block": "test"}, {}),
    # Tower of Hanoi, AAA -> ACC (3 moves), onset at 10 s.
    ("trial_onset", 10.0, H, dict(trial_time=0.0, state="AAA", goal="ACC", puzzle="hanoi:3:3:0")),
    ("pick_up", 12.0, H, dict(trial_time=2.0, piece=1, from_peg="A", state="AAA")),
    (
        "place",
        12.5,
        H,
        dict(trial_time=2.5, piece=1, from_peg="A", to_peg="C", state="AAC", moves=1),
    ),
    ("pick_up", 13.0, H, dict(trial_time=3.0, piece=2, from_peg="A", state="AAC")),
    (
        "illegal",
        13.5,
        H,
        dict(
            trial_time=3.5,
            piece=2,
            from_peg="A",
            to_peg="C",
            state="AAC",
            reason="larger_on_smaller",
        ),
    ),
    ("pick_up", 14.0, H, dict(trial_time=4.0, piece=1, from_peg="C", state="AAC")),
    (
        "same_peg_drop",
        14.2,
        H,
        dict(trial_time=4.2, piece=1, from_peg="C", to_peg="C", state="AAC"),
    ),
    ("pick_up", 14.5, H, dict(trial_time=4.5, piece=1, from_peg="C", state="AAC")),
    (
        "place",
        15.0,
        H,
        dict(trial_time=5.0, piece=1, from_peg="C", to_peg="A", state="AAA", moves=2),
    ),
    ("pick_up", 16.0, H, dict(trial_time=6.0, piece=1, from_peg="A", state="AAA")),
    (
        "place",
        16.5,
        H,
        dict(trial_time=6.5, piece=1, from_peg="A", to_peg="B", state="AAB", moves=3),
    ),
    ("pick_up", 17.0, H, dict(trial_time=7.0, piece=2, from_peg="A", state="AAB")),
    (
        "place",
        17.5,
        H,
        dict(trial_time=7.5, piece=2, from_peg="A", to_peg="C", state="ACB", moves=4),
    ),
    ("pick_up", 18.0, H, dict(trial_time=8.0, piece=1, from_peg="B", state="ACB")),
    (
        "place",
        19.0,
        H,
        dict(trial_time=9.0, piece=1, from_peg="B", to_peg="C", state="ACC", moves=5),
    ),
    ("solved", 19.0, H, dict(trial_time=9.0, state="ACC", moves=5)),
    (
        "trial_end",
        19.1,
        H,
        dict(
            trial_time=9.1,
            reason="solved",
            state="ACC",
            moves=5,
            detail="frames=100;dropped_frames=2",
        ),
    ),
    # Tower of London, GR|B| -> G|R|B (2 moves), onset at 20 s, ends by time-out.
    (
        "trial_onset",
        20.0,
        L,
        dict(trial_time=0.0, state="GR|B|", goal="G|R|B", puzzle="london:RGB:3-2-1"),
    ),
    ("pick_up", 21.0, L, dict(trial_time=1.0, piece="R", from_peg="A", state="GR|B|")),
    (
        "place",
        21.5,
        L,
        dict(trial_time=1.5, piece="R", from_peg="A", to_peg="C", state="G|B|R", moves=1),
    ),
    ("pick_up", 22.0, L, dict(trial_time=2.0, piece="B", from_peg="B", state="G|B|R")),
    (
        "illegal",
        22.4,
        L,
        dict(trial_time=2.4, piece="B", from_peg="B", to_peg="C", state="G|B|R", reason="peg_full"),
    ),
    ("time_out", 25.0, L, dict(trial_time=5.0, state="G|B|R", moves=1, detail="limit=5")),
    (
        "trial_end",
        25.0,
        L,
        dict(
            trial_time=5.0,
            reason="time_out",
            state="G|B|R",
            moves=1,
            detail="frames=50;dropped_frames=0",
        ),
    ),
    ("session_end", 26.0, {}, dict(reason="completed")),
]


def main() -> None:
    OUT.unlink(missing_ok=True)
    with EventLog(OUT, fsync=False) as log:
        for event, t, ids, extra in ROWS:
            log.write(participant="H01", session=1, event=event, time=t, **ids, **extra)


if __name__ == "__main__":
    main()
