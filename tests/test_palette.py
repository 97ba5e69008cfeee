"""Pieces that colour-blind participants tell apart (issue 22, item 8).

The default ball and disk colours are simulated as seen with protanopia, deuteranopia
and tritanopia (Machado, Oliveira & Fernandes, 2009, severity 100, as colorspacious
implements it) and compared in CAM02-UCS (Luo, Cui & Li, 2006), where a distance of
about 1 is a just-noticeable difference. Stated thresholds: every pair of default ball
colours, and every pair of default disk colours, at least ``PAIR`` apart in normal vision
and in each simulation; every piece colour at least ``BACKGROUND`` from the default
background. Pieces can also be labelled (``display.piece_labels``), in black or white,
whichever contrasts more (WCAG 2 relative luminance, computed here on its own).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

with warnings.catch_warnings():  # colorspacious 1.1.2's docstrings have invalid escapes
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.simplefilter("ignore", SyntaxWarning)
    from colorspacious import cspace_convert, deltaE

from tol_tasks.config import DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS
from tol_tasks.protocol_format.model import Display
from tol_tasks.puzzles.london import London

PAIR = 15.0
BACKGROUND = 25.0
_KINDS = {"protanopia": "protanomaly", "deuteranopia": "deuteranomaly", "tritanopia": "tritanomaly"}
VISION = {"normal": None}
VISION.update(
    {
        name: {"name": "sRGB1+CVD", "cvd_type": kind, "severity": 100}
        for name, kind in _KINDS.items()
    }
)


def _srgb(hex_color: str) -> np.ndarray:
    h = hex_color.lstrip("#")
    return np.array([int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)])


def _seen(hex_color: str, vision) -> np.ndarray:
    rgb = _srgb(hex_color)
    if vision is None:
        return rgb
    return np.clip(cspace_convert(rgb, vision, "sRGB1"), 0, 1)


def _distance(a: str, b: str, vision) -> float:
    return float(deltaE(_seen(a, vision), _seen(b, vision), input_space="sRGB1",
                        uniform_space="CAM02-UCS"))  # fmt: skip


PALETTES = {"balls": list(DEFAULT_BALL_COLORS.values()), "disks": list(DEFAULT_DISK_COLORS)}


@pytest.mark.parametrize("vision", list(VISION))
@pytest.mark.parametrize("palette", list(PALETTES))
def test_every_pair_of_default_piece_colours_stays_apart(palette, vision):
    colours = PALETTES[palette]
    close = [(a, b, round(d, 1)) for a, b in itertools.combinations(colours, 2)
             if (d := _distance(a, b, VISION[vision])) < PAIR]  # fmt: skip
    assert close == [], f"{palette} too close in {vision} vision"


@pytest.mark.parametrize("vision", list(VISION))
def test_every_default_piece_colour_stands_out_from_the_background(vision):
    background = Display().background
    close = [(c, round(d, 1)) for c in PALETTES["balls"] + PALETTES["disks"]
             if (d := _distance(c, background, VISION[vision])) < BACKGROUND]  # fmt: skip
    assert close == []


def test_the_old_palette_failed_the_same_test():
    # The colours before issue 22: red and green balls 5.2 apart with deuteranopia.
    assert _distance("#d62728", "#2ca02c", VISION["deuteranopia"]) < PAIR


def _contrast(a: np.ndarray, b: np.ndarray) -> float:
    def lum(c):
        lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(lin @ [0.2126, 0.7152, 0.0722])

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_labels_are_off_by_default_and_readable_when_on():
    puzzle = London(balls="RGBYPOKW", capacities=(8, 8, 8))
    d = Display(piece_labels=True, piece_colors={"Y": "navy"})
    assert Display().piece_label(puzzle, "R") is None
    for ball in "RGBYPOKW":
        label, colour = d.piece_label(puzzle, ball)
        assert label == ball
        fill = d.piece_color(puzzle, ball)
        fill_rgb = _srgb("#000080") if fill == "navy" else _srgb(fill)
        other = "#ffffff" if colour == "#000000" else "#000000"
        assert _contrast(fill_rgb, _srgb(colour)) >= _contrast(fill_rgb, _srgb(other)), ball
        assert _contrast(fill_rgb, _srgb(colour)) >= 4.5, ball  # WCAG AA for text
    assert d.piece_label(puzzle, "Y") == ("Y", "#ffffff")  # on navy
