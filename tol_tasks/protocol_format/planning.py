"""Planning-only blocks (One Touch Stockings style): plan without moving, answer how many moves.

A block with ``planning`` shows each problem's start and goal and a row of numbered boxes;
the participant works the solution out in their head and answers how many moves it needs,
with a key per box (a button box) or a click on a box. As in CANTAB's One Touch Stockings
of Cambridge, a wrong answer is followed by another choice until the right one
(``until_correct``), so that the number of choices to the correct one is a measure.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Planning(BaseModel):
    """A planning-only block's answer: numbered boxes, chosen by key or by click."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    choices: list[int] = Field(
        default_factory=lambda: [1, 2, 3, 4, 5, 6], min_length=2,
        description="the numbers on the boxes, left to right (moves a solution may need)",
    )  # fmt: skip
    keys: list[str] | None = Field(
        None, description="a key per box, left to right (e.g. a button box's '1'...'4'); "
        "null: the participant clicks or touches a box",
    )  # fmt: skip
    until_correct: bool = Field(
        True, description="after a wrong choice, choose again until the right one (One Touch "
        "Stockings); false: the first choice ends the problem",
    )  # fmt: skip

    @model_validator(mode="after")
    def _keys_per_box(self) -> Planning:
        if len(set(self.choices)) != len(self.choices) or min(self.choices) < 1:
            raise ValueError("choices must be different whole numbers of 1 or more")
        if self.keys is not None and len(self.keys) != len(self.choices):
            raise ValueError(f"keys gives {len(self.keys)} keys for {len(self.choices)} "
                             "choices: give one key per box, or null to click them")  # fmt: skip
        return self
