"""The protocol format's schema: a lab's battery as a validated YAML document (pydantic).

A protocol says which puzzle, which problems in which order with which
limits, what the participant sees and how they answer. Each field is declared
here once, with its type, choices, default and description: the reference page,
the Builder component's parameters and the jsPsych plugin's ``info`` are made
from these declarations. :func:`~tol_tasks.protocol_format.load.load_protocol`
reads and checks a file against them (faults:
:mod:`~tol_tasks.protocol_format.issues`) and returns the checked protocol
(:mod:`~tol_tasks.protocol_format.loaded`). ``docs/protocols.md`` documents every field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from tol_tasks.config import (
    DEFAULT_BALLS,
    DEFAULT_CAPACITIES,
    ID_PATTERN,
    MAX_DISKS,
    MAX_MOVE_LIMIT,
    MAX_PEGS,
    MAX_SECONDS,
    MAX_WINDOW_PIXELS,
    PROTOCOL_FORMAT,
)
from tol_tasks.puzzles.base import Puzzle
from tol_tasks.puzzles.hanoi import Hanoi
from tol_tasks.puzzles.london import London
from tol_tasks.puzzles.shared import shared_hanoi, shared_london

from .colors import FALLBACK_PIECE_COLOR, checked_color, default_piece_color, label_color
from .neuro import EyeTracking, Markers, Scanner
from .planning import Planning

Color = Annotated[
    str, Field(description="a colour: a hex code such as '#ff8800' or a name such as 'red'")
]


class _Model(BaseModel):
    # No infinite or not-a-number values: no session, browser or table can carry them out.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class HanoiTask(_Model):
    """The Tower of Hanoi apparatus."""

    type: Literal["hanoi"] = Field(description="'hanoi' or 'london'")
    disks: int = Field(3, ge=1, le=MAX_DISKS, description=f"the number of disks, 1 to {MAX_DISKS}")
    pegs: int = Field(3, ge=3, le=MAX_PEGS, description=f"the number of pegs, 3 to {MAX_PEGS}")
    adjacent_only: bool = Field(
        False, description="true to forbid moves between pegs that are not neighbours"
    )

    def puzzle(self, disks: int | None = None) -> Hanoi:
        return shared_hanoi(disks or self.disks, self.pegs, self.adjacent_only)


class LondonTask(_Model):
    """The Tower of London apparatus."""

    type: Literal["london"] = Field(description="'hanoi' or 'london'")
    balls: str = Field(
        DEFAULT_BALLS,
        pattern=r"^[A-Z]+$",
        description="one capital letter per ball, e.g. 'RGB'",
    )
    capacities: list[Annotated[int, Field(ge=1)]] = Field(
        list(DEFAULT_CAPACITIES),
        min_length=2,
        max_length=MAX_PEGS,
        description="each peg's capacity left to right, e.g. [3, 2, 1]",
    )

    def puzzle(self, disks: int | None = None) -> London:
        return shared_london(self.balls, tuple(self.capacities))


Task = Annotated[Union[HanoiTask, LondonTask], Field(discriminator="type")]  # noqa: UP007


class Display(_Model):
    """What the participant sees."""

    fullscreen: bool = Field(True, description="true for full screen, false for a window")
    screen: int = Field(0, ge=0, description="which screen to use, 0 for the first")
    window_size: tuple[
        Annotated[int, Field(ge=1, le=MAX_WINDOW_PIXELS)],
        Annotated[int, Field(ge=1, le=MAX_WINDOW_PIXELS)],
    ] = Field((1024, 768), description="window width and height in pixels when not full screen")
    background: Color = "#1e1e1e"
    text_color: Color = "#ffffff"
    peg_color: Color = "#a0784a"
    highlight_color: Color = "#ffffff"
    piece_colors: dict[str, Color] = Field(
        default_factory=dict,
        description="colour per ball letter (London) or per disk number (Hanoi, '1' = smallest)",
    )
    piece_scale: float = Field(
        1.0, gt=0, le=3, description="a size factor for the pieces, e.g. 1.2"
    )
    show_goal: bool = Field(True, description="true to show the goal configuration")
    goal_position: Literal["top", "left", "right"] = Field(
        "top", description="where the goal is shown: 'top', 'left' or 'right'"
    )
    show_move_counter: bool = Field(True, description="true to show the number of moves made")
    show_time_left: bool = Field(False, description="true to show the time left when limited")
    show_illegal_message: bool = Field(
        True, description="true to say briefly why an illegal move was refused"
    )
    show_legal_targets: bool = Field(
        False,
        description="true to mark, while a piece is held, the pegs it may be put on (off by "
        "default: it helps the participant and changes what is measured)",
    )
    refresh_rate: float | None = Field(
        None,
        gt=0,
        description="the refresh rate the screen should have, in Hz (e.g. 60): the examiner "
        "is told at the end of a run when the measured one differs by more than 5 %",
    )
    piece_labels: bool = Field(
        False,
        description="true to write each ball's letter (each disk's number) on it, so that "
        "pieces differ by more than their colour",
    )

    @field_validator("background", "text_color", "peg_color", "highlight_color")
    @classmethod
    def _check_color(cls, v: str) -> str:
        return checked_color(v)

    def piece_color(self, puzzle: Puzzle, piece) -> str:
        """The colour a piece is drawn in: the protocol's, else its default, else grey."""
        return (
            self.piece_colors.get(str(piece))
            or default_piece_color(puzzle, piece)
            or FALLBACK_PIECE_COLOR
        )

    def piece_label(self, puzzle: Puzzle, piece) -> tuple[str, str] | None:
        """The text written on a piece and its colour (None: ``piece_labels`` is off)."""
        if not self.piece_labels:
            return None
        return str(piece), label_color(self.piece_color(puzzle, piece))

    @field_validator("piece_colors")
    @classmethod
    def _check_colors(cls, v: dict[str, str]) -> dict[str, str]:
        return {str(k): checked_color(c) for k, c in v.items()}


class Input(_Model):
    """How the participant answers."""

    mode: Literal["click", "drag", "keys"] = Field(
        "click",
        description="'click' (click a peg, then another), 'drag' (drag and drop) or 'keys'",
    )
    keys: list[str] | None = Field(
        None, description="with mode 'keys', one key name per peg, e.g. ['1', '2', '3']"
    )
    quit_key: str = Field("escape", description="the key that ends the session, e.g. 'escape'")
    examiner_key: str = Field(
        "f9",
        description="the key the examiner presses to end a pause (see pauses), one a "
        "participant does not press by accident, e.g. 'f9'",
    )


class Rules(_Model):
    """Scoring conventions where published tools disagree."""

    illegal_moves: Literal["block"] = Field(
        "block", description="'block': an illegal move is refused and recorded"
    )
    same_peg_drop_counts_as_move: bool = Field(
        False, description="true if putting a piece back on its own peg counts as a move"
    )
    violation_counts_as_move: bool = Field(
        False, description="true if each rule violation also counts as a move (D-KEFS style)"
    )


class Page(_Model):
    """One instruction page."""

    text: str = Field(description="the page's text")
    image: str | None = Field(None, description="an image file, relative to the protocol file")
    show: Literal["board", "demo"] | None = Field(
        None,
        description="'board' to show the board and the goal of the first problem above the "
        "text, 'demo' to show a legal move and a refused one on the board (an animation made "
        "from the apparatus and rules); with an image, the image is shown instead",
    )


class Instructions(_Model):
    """Instruction pages and participant-facing texts, per language.

    Without ``pages``, a session shows the task's default pages (made from the
    protocol, in the session's language: :mod:`tol_tasks.protocol_format.pages`);
    ``pages: none`` (or ``instructions: none``) shows none.
    """

    default_language: str = Field("en", description="the language used unless another is chosen")
    pages: dict[str, list[Page]] | Literal["none"] = Field(
        default_factory=dict,
        description="per language code, the list of pages; leave out for the task's default "
        "pages, or 'none' for no pages",
    )
    messages: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="per language code, texts that replace tol-tasks' own in that language",
    )

    @property
    def own_pages(self) -> dict[str, list[Page]]:
        """The protocol's own pages per language (empty: default pages, or none)."""
        return self.pages if isinstance(self.pages, dict) else {}

    @property
    def page_source(self) -> str:
        """Where a session's pages come from: ``protocol``, ``default`` or ``none``."""
        if self.pages == "none":
            return "none"
        return "protocol" if self.pages else "default"


StateSpec = Annotated[
    Any,
    Field(description="a state text such as 'AAA' or 'GR|B|', or one list per peg, bottom to top"),
]


class Problem(_Model):
    """One problem: a start, a goal and its limits."""

    id: str = Field(pattern=ID_PATTERN, description="a unique name such as 'p01'")
    start: StateSpec
    goal: StateSpec
    min_moves: int | None = Field(
        None, ge=0, description="the fewest moves, if you want it checked (computed anyway)"
    )
    time_limit: float | None = Field(None, gt=0, le=MAX_SECONDS,
                                     description="seconds allowed, or null for none")  # fmt: skip
    move_limit: int | None = Field(None, ge=1, le=MAX_MOVE_LIMIT,
                                   description="moves allowed, or null for none")  # fmt: skip
    disks: int | None = Field(
        None,
        ge=1,
        le=MAX_DISKS,
        description="Tower of Hanoi only: disks for this problem, if not the task's",
    )

    @field_validator("start", "goal")
    @classmethod
    def _state_form(cls, v: Any) -> Any:
        if isinstance(v, str):
            return v
        if isinstance(v, list) and all(isinstance(col, (list, str)) for col in v):
            return v
        raise ValueError("expected a state text or one list per peg")


class _ProblemDefaults(_Model):
    """Defaults that a block (or the practice) gives its problems."""

    time_limit: float | None = Field(None, gt=0, le=MAX_SECONDS,
                                     description="default seconds per problem")  # fmt: skip
    move_limit: int | None = Field(None, ge=1, le=MAX_MOVE_LIMIT,
                                   description="default moves per problem")  # fmt: skip
    disks: int | None = Field(
        None,
        ge=1,
        le=MAX_DISKS,
        description="Tower of Hanoi only: disks for these problems, if not the task's",
    )


class Practice(_ProblemDefaults):
    """Practice problems, with feedback, before the test."""

    problems: list[Problem] = Field(default_factory=list, description="the practice problems")
    repeat_until_solved: bool = Field(
        False, description="true to repeat a practice problem until it is solved"
    )
    max_attempts: int = Field(3, ge=1, description="attempts per practice problem at most")
    controls: bool = Field(
        False,
        description="true for a controls practice after the instruction pages: one move of "
        "the outlined piece to the marked peg, not scored",
    )


class Copy(_Model):
    """Yoked copy trials: after each problem the participant copies moves shown one at a time.

    The copy measures movement time without planning, so that thinking time can
    be separated from moving time (Owen et al., 1990, Neuropsychologia 28,
    1021-1034; CANTAB Stockings of Cambridge).
    """

    moves: Literal["own", "optimal"] = Field(
        "own",
        description="'own': the participant's own moves in the problem; 'optimal': a shortest solution",
    )
    unsolved: Literal["skip", "copy"] = Field(
        "skip",
        description="'skip': no copy after an unsolved problem; 'copy': copy it too",
    )


class Block(_ProblemDefaults):
    """A block of test problems."""

    name: str = Field("test", pattern=ID_PATTERN, description="the block's name, e.g. 'test'")
    problems: list[Problem] = Field(min_length=1, description="the block's problems")
    order: Literal["fixed", "shuffled"] = Field("fixed", description="'fixed' or 'shuffled'")
    seed: int | None = Field(
        None, description="seed of the shuffle; without it one is drawn and recorded"
    )
    attempts: int = Field(1, ge=1, description="attempts allowed per problem")
    discontinue_after: int | None = Field(
        None, ge=1, description="end the block after this many consecutive failures"
    )
    planning: Planning | None = Field(
        None, description="a planning-only block: the participant answers how many moves "
        "each problem needs, without moving (see Planning and docs/neuroimaging.md)",
    )  # fmt: skip
    copies: Copy | None = Field(
        None,
        description="yoked copy trials after each problem: true, or a mapping with moves "
        "and unsolved (null or false: none)",
    )
    pages: dict[str, list[Page]] = Field(
        default_factory=dict,
        description="per language code, instruction pages shown when the block begins "
        "(after its pause, if any); the participant goes on as on the first pages",
    )

    @field_validator("copies", mode="before")
    @classmethod
    def _copy_switch(cls, v: Any) -> Any:
        if v is True:
            return {}
        if v is False:
            return None
        return v

    @model_validator(mode="after")
    def _planning_alone(self) -> Block:
        if self.planning is not None and self.copies is not None:
            raise ValueError("copies cannot follow planning-only problems (nothing is moved, "
                             "so there is nothing to copy): leave copies out of this block")  # fmt: skip
        return self


class Pauses(_Model):
    """Pauses that only the examiner ends (with ``input.examiner_key``): the participant
    reads that the examiner will go on; clicks and the space key do nothing."""

    before_test: bool = Field(
        False, description="true for a pause between the practice and the first test block"
    )
    between_blocks: bool = Field(
        False, description="true for a pause before each test block after the first"
    )


class Timing(_Model):
    """Pauses between screens."""

    inter_trial_interval: float = Field(1.0, ge=0, le=MAX_SECONDS,
                                        description="seconds between problems")  # fmt: skip
    feedback_duration: float = Field(1.5, ge=0, le=MAX_SECONDS,
                                     description="seconds feedback stays on screen")  # fmt: skip


class Counterbalance(_Model):
    """Parallel forms or block orders, assigned by session or participant."""

    by: Literal["session", "participant"] = Field(
        "session", description="assign by 'session' number or by 'participant' id"
    )
    forms: dict[str, list[str]] = Field(
        default_factory=dict,
        description="form name -> the block names it runs, in order; without forms, block "
        "orders come from a balanced Latin square over all blocks",
    )


class ParticipantField(_Model):
    """A participant field (asked with the participant's id, kept in the sidecar's
    ``extra_fields``): its type, checked where the value is given (``tol-run --field``) and
    where it is scored, and its default. A field written as plain text (``age: ""``) is a
    text field with that default."""

    type: Literal["text", "integer", "number", "choice"] = Field(
        "text", description="text, integer (a whole number), number, or choice (one of choices)"
    )
    default: str = Field("", description="the value the dialog shows first")
    choices: list[str] = Field(default_factory=list, description="for a choice: the values "
                               "allowed")  # fmt: skip
    min: float | None = Field(None, description="for a number or integer: the smallest allowed")
    max: float | None = Field(None, description="for a number or integer: the largest allowed")

    @model_validator(mode="before")
    @classmethod
    def _plain_text(cls, v: Any) -> Any:
        if v is None or (isinstance(v, (str, int, float)) and not isinstance(v, bool)):
            return {"default": "" if v is None else str(v)}
        return v

    @field_validator("default", mode="before")
    @classmethod
    def _default_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    @model_validator(mode="after")
    def _choices_given(self) -> ParticipantField:
        if self.type == "choice" and not self.choices:
            raise ValueError("a choice field needs choices: [...]")
        return self

    def check(self, value: str) -> str | None:
        """What is wrong with ``value`` for this field (None: nothing; an empty value is
        always allowed: the field was not filled in)."""
        if value == "":
            return None
        if self.type == "choice":
            return None if value in self.choices else f"not one of {', '.join(self.choices)}"
        if self.type in ("integer", "number"):
            try:
                number = int(value) if self.type == "integer" else float(value)
            except ValueError:
                return f"not {'a whole number' if self.type == 'integer' else 'a number'}"
            if number != number or number in (float("inf"), float("-inf")):
                return "not a finite number"
            if self.min is not None and number < self.min:
                return f"below {self.min:g}"
            if self.max is not None and number > self.max:
                return f"above {self.max:g}"
        elif any(ord(c) < 32 for c in value):
            return "holds a control character (a line break or tab)"
        return None


class Protocol(_Model):
    """A whole protocol file. See ``docs/protocols.md``."""

    format: Literal[1] = Field(description=f"the format version, {PROTOCOL_FORMAT}")
    name: str = Field(pattern=ID_PATTERN, description="a short name such as 'shallice-1982'")
    version: str = Field("1", description="your version of this protocol, e.g. '1.0'")
    description: str = Field("", description="what the protocol is for")
    citation: str = Field("", description="where the problem set comes from")
    task: Task
    display: Display = Field(default_factory=Display)
    input: Input = Field(default_factory=Input)
    rules: Rules = Field(default_factory=Rules)
    instructions: Instructions = Field(
        default_factory=Instructions,
        description="instruction pages and texts per language, or 'none' for no pages",
    )
    practice: Practice = Field(default_factory=Practice)
    blocks: list[Block] = Field(min_length=1, description="one or more blocks of test problems")
    timing: Timing = Field(default_factory=Timing)
    pauses: Pauses = Field(
        default_factory=Pauses, description="pauses only the examiner ends (see Pauses)"
    )
    feedback: Literal["none", "solved", "moves"] = Field(
        "solved", description="after each problem: 'none', 'solved' or 'moves'"
    )
    counterbalance: Counterbalance | None = Field(
        None, description="parallel forms or counterbalanced block orders (see Counterbalance)"
    )
    participant_fields: dict[str, ParticipantField] = Field(
        default_factory=dict,
        description="extra fields for the participant dialog: name -> its default value "
        "(a text field), or name -> {type, default, choices, min, max} (see ParticipantField)",
    )
    scanner: Scanner | None = Field(
        None, description="wait for the scanner's trigger before the first test problem, "
        "count dummy volumes, lock durations to a design (see docs/neuroimaging.md)",
    )  # fmt: skip
    eyetracking: EyeTracking | None = Field(
        None, description="record an eye tracker through ioHub, with regions of interest "
        "for the goal, the workspace and each peg (see docs/neuroimaging.md)",
    )  # fmt: skip
    markers: Markers | None = Field(
        None, description="send every logged event as a marker to Lab Streaming Layer and a "
        "serial trigger port (see docs/neuroimaging.md)",
    )  # fmt: skip

    def field_defaults(self) -> dict[str, str]:
        """Each participant field's default value (what a dialog shows first)."""
        return {name: f.default for name, f in self.participant_fields.items()}

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    @field_validator("instructions", mode="before")
    @classmethod
    def _no_pages(cls, v: Any) -> Any:
        return {"pages": "none"} if v == "none" else v
