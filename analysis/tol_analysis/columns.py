"""The column registry: every column of every table tol-score writes, declared once.

Each :class:`Column` says what the column holds (name, type, unit, definition),
where its definition comes from (``source``, naming a key of
:data:`REFERENCES`), how SPSS should treat it (measurement level, value
labels) and which scoring conventions change its values. Everything else is
derived from here: the column order of the DataFrames and CSV files, the
codebook (``codebook.json``, ``codebook.md``), the per-level columns of
``sessions.csv`` and the column names of ``wide.csv``, the labels of the
``.sav`` files and the column descriptions of the BIDS ``task-*_beh.json``.

Adding a measure is one entry here plus its computation in the module that
computes its table (:mod:`tol_analysis.score.trials` for ``trials.csv``, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

#: The column types (as the codebook names them).
STRING, INTEGER, FLOAT, BOOLEAN, DATETIME = "string", "integer", "float", "boolean", "datetime"

#: SPSS measurement levels.
NOMINAL, ORDINAL, SCALE = "nominal", "ordinal", "scale"

#: Value labels of every boolean column in SPSS files (written there as 0/1).
YES_NO = {0: "no", 1: "yes"}

# The scoring conventions (fields of tol_analysis.conventions.Conventions) a column can depend on.
SAME_PEG, VIOLATIONS, PLANNING, PRACTICE = (
    "same_peg_drop_counts",
    "violations_count",
    "planning_ends",
    "include_practice",
)
#: What counts as a move.
MOVE_COUNT = (SAME_PEG, VIOLATIONS)


@dataclass(frozen=True)
class Column:
    """One output column.

    Attributes
    ----------
    name : str
    type : {"string", "integer", "float", "boolean", "datetime"}
    definition : str
        What the column holds, as the codebook, SPSS and BIDS describe it.
    unit : str
        ``s``, ``ms``, ``moves`` or empty.
    source : str
        The published definition it follows: a key of :data:`REFERENCES` with a
        note, or empty for identifiers and bookkeeping.
    level : str
        SPSS measurement level; by default nominal for text and booleans, scale
        for numbers.
    conventions : tuple of str
        The :class:`~tol_analysis.conventions.Conventions` fields its values depend on.
    label : str
        Its short name on a report page (English; other languages translate it in
        ``tol_tasks/texts/<language>.yaml``, report.columns); empty: the column is not shown there.
    plain : str
        What a value means, in plain words for a reader who is not an analyst (a
        clinician reading a report): the report prints it beside every number of the
        column, and the codebook keeps it beside the definition.
    headline : bool
        A headline measure: the session report's results and the study overview's
        columns show it, in the registry's order (:func:`headline`). Never a score on
        which failing looks better than solving: a headline score charges a problem
        failed (not solved, or solved over its limits) at least as much as one solved,
        as its source does.
    better : {"higher", "lower", ""}
        Which values are better, for a measure that has a direction.
    """

    name: str
    type: str
    definition: str
    unit: str = ""
    source: str = ""
    level: str = ""
    conventions: tuple[str, ...] = ()
    label: str = ""
    plain: str = ""
    headline: bool = False
    better: str = ""

    @property
    def spss_level(self) -> str:
        if self.level:
            return self.level
        return NOMINAL if self.type in (STRING, BOOLEAN) else SCALE

    @property
    def value_labels(self) -> dict[int, str] | None:
        """SPSS value labels (booleans are written as 0/1 there)."""
        return dict(YES_NO) if self.type == BOOLEAN else None

    def entry(self, name: str | None = None, definition: str | None = None) -> dict:
        """The column's codebook entry (``name`` and ``definition`` override, for derived columns)."""
        out = {
            "name": name or self.name,
            "type": self.type,
            "unit": self.unit,
            "description": definition or self.definition,
            "source": self.source,
            "level": self.spss_level,
        }
        if self.value_labels:
            out["value_labels"] = {str(k): v for k, v in self.value_labels.items()}
        if self.conventions:
            out["conventions"] = list(self.conventions)
        if self.plain:
            out["plain"] = self.plain
        if self.headline:
            out["headline"] = True
        if self.better:
            out["better"] = self.better
        return out


@dataclass(frozen=True)
class Table:
    """The columns of one table, in order."""

    name: str
    columns: tuple[Column, ...]

    @property
    def file(self) -> str:
        return f"{self.name}.csv"

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __getitem__(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"{self.file} has no column {name!r}")

    def __iter__(self) -> Iterator[Column]:
        return iter(self.columns)

    def __len__(self) -> int:
        return len(self.columns)


def _practice(cols: list[Column]) -> tuple[Column, ...]:
    """Session summaries: their values depend on whether practice counts, too."""
    return tuple(replace(c, conventions=(*c.conventions, PRACTICE)) for c in cols)


#: The TOL-DX limits: moves charged for an unsolved problem, and the time within which a
#: problem must be solved to be scored by its moves (Culbertson & Zillmer 2005).
TOLDX_MOVES, TOLDX_SECONDS = 20, 120.0

#: The TOL-DX time violation: a problem not completed within this many seconds.
TOLDX_VIOLATION_SECONDS = 60.0


# ------------------------------------------------------------------ identifiers, shared
PARTICIPANT = Column("participant", STRING, "Participant id.")
SESSION = Column("session", INTEGER, "Session number (a participant's visit).", level=ORDINAL)
PROTOCOL = Column(
    "protocol",
    STRING,
    "The task: the protocol the session's log names (its "
    "session_start row; the source format for data imported with tol-import). "
    "One visit (participant and session) may hold several tasks, each scored on "
    "its own. Empty when the log names none.",
    source="tol-tasks (one session identity: tol_tasks.session_data.session_key)",
)
#: The rules that keep void, missing and failed apart, each said once (in the codebook's
#: ``rules``, with its source); column definitions name them.
RULES = {
    "void": (
        "An attempt cut off before its end (the session was interrupted, aborted or crashed "
        "during it; after a resume the problem is given again) is void: it is kept in "
        "moves.csv and trials.csv, marked (void = true, outcome = void), and left out of "
        "every session total and mean, of the levels, of wide.csv and of the reports.",
        "tol-tasks: the event log's contract (an attempt ends with its trial_end row)",
    ),
    "missing": (
        "A problem of the protocol never given (the session was aborted or cut off before "
        "it, or the discontinue rule ended its block) is missing, not failed: it counts in "
        "problems_missing with its reason (missing_reason), never in problems, attempts or "
        "any score; its wide.csv cells are empty.",
        "tol-tasks; the discontinue rule as the protocol states it",
    ),
    "failed": (
        "An attempt that ended unsolved (its time or move limit, or another end) is failed "
        "(outcome = failed): it counts in attempts and is charged by the scores that charge "
        "failures: not solved (Shallice 1982), not solved in the minimum (Owen et al. 1990; "
        f"Cambridge Cognition SOC), an item scoring 0 (Pearson D-KEFS FAQ), {TOLDX_MOVES} "
        "moves charged (Culbertson & Zillmer 2005).",
        "Shallice 1982; Owen et al. 1990; Culbertson & Zillmer 2005; Pearson D-KEFS FAQ",
    ),
    "levels": (
        "A minimum-move level the session never gave has empty min<k>_ columns, never 0.",
        "tol-tasks",
    ),
}

VOID_DEFINITION = "cut off before its end (the codebook's rule 'void')"
BLOCK = Column("block", STRING, "Block name ('practice' for practice problems).")
TRIAL = Column("trial", INTEGER, "Problem attempt number in the session, from 1.", level=ORDINAL)
ATTEMPT = Column(
    "attempt",
    INTEGER,
    "Attempt at this problem, from 1.",
    level=ORDINAL,
    label="Attempt",
    plain="Which try at this problem: 1 for the first; a problem is tried again when "
    "the protocol allows it or after an interruption.",
)
PROBLEM_ID = Column(
    "problem_id",
    STRING,
    "Problem id in the protocol.",
    label="Problem",
    plain="The problem's name in the protocol; a number in brackets after it is a "
    "second or later try.",
)
SIMULATED = Column("simulated", BOOLEAN, "The session was played by tol-run's simulated "
                   "participant (its sidecar's simulate), not by a person: never real data. "
                   "Empty: the session has no readable sidecar.")  # fmt: skip
PIECE = Column("piece", STRING, "Disk number (1 = smallest) or ball letter.")
TO_PEG = Column("to_peg", STRING, "Peg the piece went to.")
TOL_TASKS = "tol-tasks"

# ------------------------------------------------------------------ moves.csv
MOVES = Table("moves", (
    PARTICIPANT, SESSION, PROTOCOL, BLOCK, TRIAL, ATTEMPT, PROBLEM_ID,
    Column("move_index", INTEGER, "Completed move number in the trial, from 1.", level=ORDINAL),
    PIECE,
    Column("from_peg", STRING, "Peg the piece came from (A, B, C, ...)."),
    TO_PEG,
    Column("state_before", STRING, "Configuration before the move (puzzle notation)."),
    Column("state_after", STRING, "Configuration after the move."),
    Column("time", FLOAT, "Time of the move since trial onset.", unit="s"),
    Column("latency", FLOAT, "Time since the previous completed move, or since onset for the "
           "first.", unit="s"),
    Column("distance_before", INTEGER, "Fewest moves from state_before to the goal (exact "
           "solver).", unit="moves", source=TOL_TASKS),
    Column("distance_after", INTEGER, "Fewest moves from state_after to the goal.", unit="moves",
           source=TOL_TASKS),
    Column("optimal", BOOLEAN, "The move lowered the distance to the goal by one.",
           source=TOL_TASKS),
    Column("counterproductive", BOOLEAN, "The move raised the distance to the goal.",
           source=TOL_TASKS),
    Column("backtrack", BOOLEAN, "The move undid the previous move (same piece straight back).",
           source=TOL_TASKS),
    Column("revisit", BOOLEAN, "state_after was already seen earlier in the trial (start "
           "included).", source=TOL_TASKS),
    Column("void", BOOLEAN, f"The move's attempt is void: {VOID_DEFINITION}.",
           source=TOL_TASKS),
))  # fmt: skip

# ------------------------------------------------------------------ trials.csv
#: Rule violations counted separately (the reasons the runner logs), each a trials.csv column.
VIOLATION_KINDS = ("larger_on_smaller", "peg_full", "forbidden_pair")

#: Per-frame work figures the runner writes in each trial_end row's detail, each a column.
FRAME_WORK = ("frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms")

TRIALS = Table("trials", (
    PARTICIPANT, SESSION, PROTOCOL, SIMULATED, BLOCK,
    Column("practice", BOOLEAN, "A practice problem."),
    TRIAL, ATTEMPT, PROBLEM_ID,
    Column("task", STRING, "hanoi or london."),
    Column("size", INTEGER, "Number of disks or balls."),
    Column("pegs", INTEGER, "Number of pegs."),
    Column("puzzle", STRING, "Apparatus code, e.g. hanoi:3:3:0 (disks, pegs, adjacent-only) or "
           "london:RGB:3-2-1."),
    Column("start", STRING, "Start configuration.",
           label="Start",
           plain="The arrangement the pieces were in when the problem appeared."),
    Column("goal", STRING, "Goal configuration.",
           label="Goal",
           plain="The arrangement the participant had to build."),
    Column("min_moves", INTEGER, "Fewest moves from start to goal (exact solver).", unit="moves",
           source="tol-tasks: exact shortest path, from the solver (never typed by hand)",
           label="Fewest moves",
           plain="The smallest number of moves that solves the problem, computed exactly; problems "
                 "that need more moves are harder."),
    Column("moves", INTEGER, "Moves made, under the conventions (completed moves, plus same-peg "
           "drops and violations if they count).", unit="moves",
           source="Shallice 1982 (moves made); Delis et al. 2001 count rule violations too "
           "(--violations-count)", conventions=MOVE_COUNT,
           label="Moves",
           plain="The moves the participant made on this problem."),
    Column("placements", INTEGER, "Completed moves (a piece placed on another peg).",
           unit="moves"),
    Column("excess_moves", INTEGER, "moves - min_moves, for solved attempts (empty otherwise: "
           "an unsolved attempt is charged in toldx_move_score).",
           unit="moves", source="Culbertson & Zillmer 1998 (TOL-DX total move score: moves "
           "above the minimum)", conventions=MOVE_COUNT),
    Column("toldx_move_score", INTEGER, "TOL-DX move score of the attempt: moves - min_moves, "
           f"with {TOLDX_MOVES} moves charged for an attempt not solved, solved in more than "
           f"{TOLDX_MOVES} moves or after {TOLDX_SECONDS:g} s. Empty for a void attempt and for "
           f"a problem needing more than {TOLDX_MOVES} moves (the rule charges no such "
           "problem).", unit="moves",
           source="Culbertson & Zillmer 2005 (TOL-DX move score, 20 moves charged for a "
           "problem not solved in 20 moves or 2 minutes)", conventions=MOVE_COUNT),
    Column("solved", BOOLEAN, "The goal was reached.", source="Shallice 1982 (problem solved)",
           label="Solved",
           plain="Whether the participant built the goal arrangement before a time or move limit "
                 "ended the problem."),
    Column("solved_in_min", BOOLEAN, "Solved with moves == min_moves.",
           source="Shallice 1982; Owen et al. 1990 (problems solved in the minimum moves)",
           conventions=MOVE_COUNT),
    Column("time_out", BOOLEAN, "The protocol's time limit for the problem was reached.",
           source="Culbertson & Zillmer 1998 (TOL-DX time limit)"),
    Column("toldx_time_violation", BOOLEAN, "TOL-DX time violation: the problem was not "
           f"solved within {TOLDX_VIOLATION_SECONDS:g} s (unsolved, or solved later). Empty "
           "for a void attempt.",
           source="Culbertson & Zillmer 2005 (TOL-DX time violation: a problem not completed "
           "within 1 minute)"),
    Column("move_limit_reached", BOOLEAN, "The move limit was reached unsolved.",
           source="Shallice 1982 (a problem is failed when its move limit is reached)"),
    Column("rule_violations", INTEGER, "Illegal attempts, all kinds.",
           source="Culbertson & Zillmer 1998 (TOL-DX rule violations); Delis et al. 2001",
           label="Rule violations",
           plain="Moves the rules forbid that the participant tried (a larger disk on a smaller "
                 "one, a ball on a full peg); each was refused and the piece stayed where it was."),
    Column("violations_larger_on_smaller", INTEGER, "Attempts to put a larger disk on a smaller "
           "one.", source="Delis et al. 2001 (rule violation: a larger disk on a smaller)"),
    Column("violations_peg_full", INTEGER, "Attempts to put a ball on a full peg.",
           source="Culbertson & Zillmer 1998 (rule violation: too many balls on a peg)"),
    Column("violations_forbidden_pair", INTEGER, "Attempts to move between non-neighbouring "
           "pegs (adjacent-only rule).", source=TOL_TASKS),
    Column("same_peg_drops", INTEGER, "Pieces put back on their own peg.", source=TOL_TASKS),
    Column("planning_time", FLOAT, "Onset to the first pick-up (or first completed move, by "
           "convention).", unit="s", source="Culbertson & Zillmer 1998 (TOL-DX initiation "
           "time); Delis et al. 2001 (first-move time). Owen et al. 1990's initial thinking "
           "time also subtracts a yoked copy's latency: initial_thinking_time",
           conventions=(PLANNING,),
           label="Planning time (s)",
           plain="Seconds from the moment the problem appeared to the participant's first action "
                 "(picking up a piece): the time spent thinking before starting."),
    Column("planning_ends", STRING, "What ended this row's planning_time: pick_up (the first "
           "pick-up) or move (the first completed move: by convention, or because the "
           "recorder logs no pick-ups, as in data imported from jsPsych-contrib or PEBL). "
           "Empty when planning_time is.", source=TOL_TASKS, conventions=(PLANNING,)),
    Column("first_move_time", FLOAT, "Onset to the first completed move.", unit="s",
           source="Delis et al. 2001 (first-move time, to the first completed move)"),
    Column("execution_time", FLOAT, "total_time - planning_time.", unit="s",
           source="Culbertson & Zillmer 1998 (TOL-DX execution time)", conventions=(PLANNING,)),
    Column("total_time", FLOAT, "Onset to the end of the attempt (solved, time-out, move limit, "
           "or its end).", unit="s",
           source="Culbertson & Zillmer 1998 (TOL-DX total problem-solving time)",
           label="Total time (s)",
           plain="Seconds from the moment the problem appeared to its end (solved, or stopped by a "
                 "time or move limit)."),
    Column("mean_inter_move_time", FLOAT, "Mean time between consecutive completed moves.",
           unit="s", source=TOL_TASKS),
    Column("median_inter_move_time", FLOAT, "Median time between consecutive completed moves.",
           unit="s", source=TOL_TASKS),
    Column("time_per_move", FLOAT, "total_time / moves (D-KEFS time-per-move ratio).", unit="s",
           source="Delis et al. 2001 (D-KEFS time-per-move ratio)", conventions=MOVE_COUNT),
    Column("move_accuracy_ratio", FLOAT, "moves / min_moves, for solved attempts.",
           source="Delis et al. 2001 (D-KEFS move accuracy ratio)", conventions=MOVE_COUNT),
    Column("path_efficiency", FLOAT, "min_moves / moves, for solved attempts.",
           source="tol-tasks: the inverse of Delis et al. 2001's move accuracy ratio",
           conventions=MOVE_COUNT),
    Column("optimal_move_proportion", FLOAT, "Share of completed moves that were optimal.",
           source=TOL_TASKS),
    Column("optimal_moves", INTEGER, "Completed moves that lowered the distance by one.",
           source=TOL_TASKS),
    Column("neutral_moves", INTEGER, "Completed moves that left the distance unchanged.",
           source=TOL_TASKS),
    Column("counterproductive_moves", INTEGER, "Completed moves that raised the distance.",
           source=TOL_TASKS),
    Column("first_move_optimal", BOOLEAN, "The first completed move was optimal (empty if "
           "none).", source=TOL_TASKS),
    Column("backtracks", INTEGER, "Moves that undid the previous move.", source=TOL_TASKS),
    Column("revisits", INTEGER, "Moves that returned to a configuration already seen in the "
           "trial.", source=TOL_TASKS),
    Column("frames", INTEGER, "Screen frames drawn during the attempt."),
    Column("dropped_frames", INTEGER, "Frame intervals longer than 1.5 refresh periods."),
    Column("frame_work_median_ms", FLOAT, "Median per-frame work: from the return of one flip "
           "to the call of the next (empty in logs from before tol-tasks 0.2).", unit="ms"),
    Column("frame_work_p99_ms", FLOAT, "99th percentile of per-frame work.", unit="ms"),
    Column("frame_work_max_ms", FLOAT, "Largest per-frame work.", unit="ms"),
    Column("complete", BOOLEAN, "The attempt ended normally (false: the session was cut off or "
           "aborted during it).",
           label="Complete",
           plain="No: the session was stopped or interrupted during this try (shown in italics); "
                 "it is not a failure of the participant."),
    Column("outcome", STRING, "solved; failed (ended unsolved: its time or move limit, or "
           f"another end); or void ({VOID_DEFINITION}).", source=TOL_TASKS),
    Column("void", BOOLEAN, f"The attempt is void: {VOID_DEFINITION}.", source=TOL_TASKS),
    # Yoked copy trials (event log format 2); empty for attempts without a copy.
    Column("copy_trial", INTEGER, "Trial number of the yoked copy trial that copied this "
           "attempt.", source="Owen et al. 1990 (the yoked copy trial of this problem)"),
    Column("copy_source", STRING, "What the copy showed: own (this attempt's moves) or optimal "
           "(a shortest solution).", source="Owen et al. 1990 (the yoked copy replays the "
           "participant's own moves); tol-tasks also offers a shortest solution"),
    Column("copy_moves_shown", INTEGER, "Moves the copy showed.", unit="moves",
           source="Owen et al. 1990 (moves in the yoked copy)"),
    Column("copy_moves", INTEGER, "Moves carried out in the copy.", unit="moves",
           source="Owen et al. 1990 (moves in the yoked copy)"),
    Column("copy_refused", INTEGER, "Actions refused in the copy (the wrong piece taken, or put "
           "on the wrong peg); they stay in the copy's times.",
           source="tol-tasks (refused actions in the yoked copy)"),
    Column("copy_complete", BOOLEAN, "Every move shown was carried out (false: the session "
           "ended during the copy).", source="tol-tasks (whether the yoked copy was finished)"),
    Column("copy_first_move_latency", FLOAT, "The copy's initial movement time: its onset to "
           "its first pick-up.", unit="s",
           source="Owen et al. 1990 (initial movement time in the yoked copy)"),
    Column("copy_time_per_move", FLOAT, "The copy's movement time per move: its onset to its "
           "last placement, divided by copy_moves.", unit="s",
           source="Owen et al. 1990 (movement time in the yoked copy, per move)"),
    Column("copy_median_move_time", FLOAT, "Median time of one copy move: from the previous "
           "placement (or the onset) to the placement.", unit="s",
           source="tol-tasks (median of the yoked copy's move times)"),
    Column("initial_thinking_time", FLOAT, "Onset to the first pick-up of this attempt minus "
           "the same in its copy (copy_first_move_latency). Empty unless the copy is complete "
           "and the attempt has a completed move; negative values are kept.", unit="s",
           source="Owen et al. 1990 (initial thinking time: latency to the first move minus "
           "the latency in the yoked copy of the same moves)"),
    Column("subsequent_thinking_time", FLOAT, "This attempt's time from its first pick-up to "
           "its last placement, minus the copy's movement time for as many moves: placements x "
           "copy_time_per_move - copy_first_move_latency (with equal move counts, exactly the "
           "copy's time from its first pick-up to its last placement). Negative values are "
           "kept.", unit="s", source="Owen et al. 1990 (subsequent thinking time: the rest of "
           "the solution's time minus the yoked copy's movement time); tol-tasks scales the "
           "copy's time per move when the copy has another number of moves"),
    Column("subsequent_thinking_time_per_move", FLOAT, "subsequent_thinking_time / (placements "
           "- 1): thinking per move after the first (empty for one-move attempts).", unit="s",
           source="Owen et al. 1990 (subsequent thinking time per move); tol-tasks divides by "
           "the moves after the first"),
))  # fmt: skip

# ------------------------------------------------------------------ sessions.csv
#: What every sessions.csv summary is computed over (said once, in each definition's place).
OVER = "attempts given (void attempts left out; practice too unless it is included)"

SESSIONS = Table("sessions", (
    PARTICIPANT, SESSION, replace(
        PROTOCOL, label="Protocol",
        plain="The set of problems given, by its name in tol-tasks (one visit may give several: "
              "each is a task of the session, with its own scores)."),
    Column("protocol_version", STRING, "The protocol's version (from the sidecar)."),
    Column("status", STRING, "completed, aborted, or incomplete (cut off).",
           label="Status",
           plain="completed: the session ran to its end; aborted: it was stopped with the quit "
                 "key; incomplete: the recording stopped unexpectedly (a crash or the computer "
                 "turned off) and was not resumed."),
    SIMULATED,
    Column("start_date", STRING, "Date the session started, YYYY-MM-DD, where it was recorded "
           "(from the sidecar)."),
    Column("start_time", STRING, "Clock time the session started, HH:MM:SS, where it was "
           "recorded (from the sidecar)."),
    Column("recorder", STRING, "What recorded the session: tol-run with its PsychoPy, tol-web "
           "in a browser, or tol-import and the source format (from the sidecar)."),
    *_practice([
        Column("problems", INTEGER, f"Distinct problems given: with an attempt among the {OVER}.",
               label="Problems given", headline=True,
               plain="How many different problems the participant was given and finished (a try "
                     "cut off by an interruption is not counted; practice problems are left out "
                     "unless the scoring conventions include them)."),
        Column("attempts", INTEGER, f"Problem attempts given: the {OVER}."),
        Column("void_attempts", INTEGER, f"Void attempts: {VOID_DEFINITION}.", source=TOL_TASKS,
               label="Tries cut off",
               plain="Tries that an interruption (a stop, a crash) cut off: kept in the problem "
                     "table, in no score. Not a failure of the participant."),
        Column("problems_planned", INTEGER, "Distinct problems the protocol holds (from the "
               "protocol text kept in the sidecar); empty when it is not known (no sidecar, "
               "imported data)."),
        Column("problems_missing", INTEGER, "Problems of the protocol never given (planned - "
               "problems): missing, not failed. Empty when the protocol is not known.",
               label="Problems not given",
               plain="Problems of the protocol the participant never reached (the session was "
                     "stopped, or a rule ended the block early): missing, not failed."),
        Column("missing_reason", STRING, "Why problems are missing: the discontinue rule (with "
               "its block), the session aborted, the session cut off, or not given (e.g. a "
               "protocol changed on resuming). Empty when none is missing.",
               label="Why not given",
               plain="Why some problems were never given."),
        Column("problems_solved", INTEGER, "Distinct problems solved in some attempt (each "
               "achieved item of the D-KEFS Tower; an item not achieved scores 0).",
               source="Shallice 1982 (problems solved); Pearson D-KEFS FAQ (an item not "
               "built in the moves used is failed and scores 0)",
               label="Problems solved", headline=True, better="higher",
               plain="Of the problems given, how many the participant solved. Higher is better."),
        Column("problems_solved_in_min", INTEGER, "Distinct problems solved in the minimum "
               "number of moves (an unsolved problem is not).", source="Owen et al. 1990; "
               "Cambridge Cognition SOC (problems solved in minimum moves); Culbertson & "
               "Zillmer 2005 (TOL-DX total correct score)", conventions=MOVE_COUNT,
               label="Solved in the fewest moves", headline=True, better="higher",
               plain="Of the problems given, how many the participant solved with no extra move, "
                     "in the smallest number of moves the problem allows. Higher is better; the "
                     "main planning score of the Stockings of Cambridge (CANTAB) and the total "
                     "correct score of the TOL-DX."),
        Column("total_moves", INTEGER, f"Sum of moves over the {OVER}.", unit="moves",
               source="Culbertson & Zillmer 1998 (TOL-DX total move score counts moves)",
               conventions=MOVE_COUNT,
               label="Total moves",
               plain="All the moves made, over every problem; read it with the problems solved, "
                     "since a problem given up early needs fewer moves."),
        Column("total_excess_moves", INTEGER, "Sum of excess moves over solved attempts only "
               "(an unsolved problem adds nothing here: compare toldx_total_move_score, "
               "which charges it).", unit="moves",
               source="Culbertson & Zillmer 1998 (TOL-DX total move score)",
               conventions=MOVE_COUNT,
               label="Excess moves on solved problems",
               plain="Moves beyond the fewest possible, added up over the solved problems only: "
                     "unsolved problems add nothing, so it is not a score by itself."),
        Column("toldx_total_move_score", INTEGER, f"Sum of toldx_move_score over the {OVER}: "
               f"moves above the minimum, with {TOLDX_MOVES} moves charged for each attempt "
               f"not solved in {TOLDX_MOVES} moves or {TOLDX_SECONDS:g} s. Empty when an "
               "attempt has no such score (a problem needing more moves).", unit="moves",
               source="Culbertson & Zillmer 2005 (TOL-DX total move score)",
               conventions=MOVE_COUNT, label="Move score (TOL-DX)", headline=True,
               better="lower",
               plain=f"Moves beyond the fewest possible, over every problem, with a problem not "
                     f"solved (or solved only after {TOLDX_MOVES} moves or "
                     f"{TOLDX_SECONDS / 60:g} minutes) counted as {TOLDX_MOVES} moves, as the "
                     "Tower of London-Drexel scores it. Lower is better: failing never scores "
                     "better than solving."),
        Column("total_rule_violations", INTEGER, "Sum of rule violations.",
               source="Culbertson & Zillmer 1998 (TOL-DX total rule violations)",
               label="Rule violations", headline=True, better="lower",
               plain="How many times the participant tried a move the rules forbid (a larger disk "
                     "on a smaller one, a ball on a full peg); each was refused. Lower is better: "
                     "many can mean impulsive responding or a rule not understood."),
        Column("total_time_violations", INTEGER, "Attempts that hit the protocol's time limit.",
               source="Culbertson & Zillmer 1998 (TOL-DX total time violations)",
               label="Time limits reached", headline=True, better="lower",
               plain="Problems on which the time allowed ran out. Lower is better."),
        Column("toldx_time_violations", INTEGER, "Attempts not solved within "
               f"{TOLDX_VIOLATION_SECONDS:g} s (TOL-DX time violations, whatever the "
               "protocol's limit).",
               source="Culbertson & Zillmer 2005 (TOL-DX time violations)",
               label="Over a minute (TOL-DX)", better="lower",
               plain=f"Problems not solved within {TOLDX_VIOLATION_SECONDS:g} seconds, as the "
                     "Tower of London-Drexel counts time violations. Lower is better."),
        Column("total_planning_time", FLOAT, "Sum of planning times.", unit="s",
               source="Culbertson & Zillmer 1998 (TOL-DX total initiation time)",
               conventions=(PLANNING,)),
        Column("total_execution_time", FLOAT, "Sum of execution times.", unit="s",
               source="Culbertson & Zillmer 1998 (TOL-DX total execution time)",
               conventions=(PLANNING,)),
        Column("total_solving_time", FLOAT, "Sum of total times.", unit="s",
               source="Culbertson & Zillmer 1998 (TOL-DX total problem-solving time)"),
        Column("mean_planning_time", FLOAT, "Mean planning time per attempt.", unit="s",
               source="Delis et al. 2001 (mean first-move time)", conventions=(PLANNING,),
               label="Mean planning time (s)", headline=True,
               plain="The average, over the problems, of the seconds from the problem's appearance "
                     "to the first action: the time spent thinking before starting. Longer is not "
                     "worse in itself: read it with the problems solved."),
        Column("mean_time_per_move", FLOAT, "Mean of time_per_move over attempts with moves.",
               unit="s", source="Delis et al. 2001 (D-KEFS time-per-move ratio, averaged over "
               "problems)", conventions=MOVE_COUNT,
               label="Mean time per move (s)", headline=True,
               plain="Each problem's total time divided by its moves, averaged over the problems "
                     "(the D-KEFS time-per-move ratio): how fast the participant worked once "
                     "started. Lower is faster."),
        Column("dkefs_move_accuracy_ratio", FLOAT, "Total moves / total min_moves over the "
               "problems solved (a ratio of sums; empty when none is solved: read it beside "
               "problems_solved).", source="Delis et al. 2001 (D-KEFS move accuracy ratio)",
               conventions=MOVE_COUNT),
        Column("dkefs_time_per_move_ratio", FLOAT, "Total time / total moves over the "
               "problems solved (a ratio of sums; empty when none is solved).", unit="s",
               source="Delis et al. 2001 (D-KEFS time-per-move ratio)",
               conventions=MOVE_COUNT),
        Column("dkefs_rule_violations_per_item", FLOAT, f"Rule violations / attempts, over "
               f"the {OVER}.", source="Delis et al. 2001 (D-KEFS rule-violations-per-item "
               "ratio)"),
        Column("mean_initial_thinking_time", FLOAT, "Mean initial_thinking_time over attempts "
               "with a complete copy.", unit="s",
               source="Owen et al. 1990 (mean initial thinking time)",
               label="Mean initial thinking time (s)", headline=True,
               plain="Planning time minus the time the participant took to start copying the same "
                     "moves when they were shown (the yoked copy of the Stockings of Cambridge): "
                     "thinking time with the time to reach and move taken out."),
        Column("mean_subsequent_thinking_time", FLOAT, "Mean subsequent_thinking_time over "
               "attempts with a complete copy.", unit="s",
               source="Owen et al. 1990 (mean subsequent thinking time)"),
        Column("mean_subsequent_thinking_time_per_move", FLOAT, "Mean "
               "subsequent_thinking_time_per_move over attempts with a complete copy.", unit="s",
               source="Owen et al. 1990 (mean subsequent thinking time per move)",
               label="Mean later thinking time per move (s)", headline=True,
               plain="Time per move after the first, minus the time the participant needed per "
                     "move just to copy the same moves: thinking done during the solution."),
    ]),
))  # fmt: skip

#: The identifying and describing columns of sessions.csv (before the participant fields);
#: every column after them is a summary.
SESSION_IDS = ("participant", "session", "protocol", "protocol_version", "status",
               "simulated", "start_date", "start_time", "recorder")  # fmt: skip


def headline(table: Table | None = None) -> list[Column]:
    """The headline measures (``headline=True``) of a table (sessions.csv by default), in
    registry order: what a session report shows first."""
    return [c for c in (table or SESSIONS) if c.headline]


#: Per minimum-move level k, sessions.csv repeats these summaries over the attempts needing
#: k moves, as ``min{k}_<name>`` (type, unit and source as the overall column). A level the
#: session never gave is empty, never 0.
SESSION_LEVELS = Table("sessions (per level)", tuple(replace(SESSIONS[name], definition=text) for name, text in (
    ("problems", "Distinct problems needing k moves given."),
    ("problems_solved", "Of those, solved."),
    ("problems_solved_in_min", "Of those, solved in k moves."),
    ("total_excess_moves", "Excess moves over solved attempts needing k moves."),
    ("toldx_total_move_score", "TOL-DX move score over attempts needing k moves."),
    ("mean_planning_time", "Mean planning time over attempts needing k moves."),
    ("mean_time_per_move", "Mean time_per_move over attempts needing k moves."),
    ("total_rule_violations", "Rule violations in attempts needing k moves."),
    ("mean_initial_thinking_time", "Mean initial thinking time over attempts needing k moves "
     "with a complete copy."),
    ("mean_subsequent_thinking_time", "Mean subsequent thinking time over attempts needing k "
     "moves."),
    ("mean_subsequent_thinking_time_per_move", "Mean subsequent thinking time per move over "
     "attempts needing k moves."),
)))  # fmt: skip


def level_name(k: int, name: str) -> str:
    """The sessions.csv column of summary ``name`` over the attempts needing ``k`` moves."""
    return f"min{k}_{name}"


def level_definition(column: Column, k: int) -> str:
    return f"{column.definition} (k = {k})"


# ------------------------------------------------------------------ copy_moves.csv
COPY_MOVES = Table("copy_moves", (
    PARTICIPANT, SESSION, PROTOCOL,
    Column("block", STRING, "Block name."),
    Column("trial", INTEGER, "Trial number of the copy trial.", level=ORDINAL),
    Column("copy_of", INTEGER, "Trial number of the attempt it copies (trials.csv trial).",
           level=ORDINAL),
    PROBLEM_ID,
    Column("move_index", INTEGER, "Copy move number, from 1.", level=ORDINAL),
    PIECE,
    Column("from_peg", STRING, "Peg the piece came from."),
    TO_PEG,
    Column("cue_time", FLOAT, "When the move was first shown (the flip), since the copy's "
           "onset.", unit="s"),
    Column("pick_time", FLOAT, "When the piece was picked up (the pick-up that was carried "
           "out), since onset.", unit="s"),
    Column("time", FLOAT, "When the piece was placed, since onset.", unit="s"),
    Column("move_time", FLOAT, "time minus the previous placement's time (or minus 0 for the "
           "first move).", unit="s"),
    Column("refused", INTEGER, "Actions refused while this move was shown."),
))  # fmt: skip

# ------------------------------------------------------------------ wide.csv (and wide.sav)
#: The trials.csv measures of each problem in the wide table, in their order there.
WIDE_MEASURES = tuple(
    replace(TRIALS[name], conventions=(*TRIALS[name].conventions, PRACTICE))
    for name in ("solved", "moves", "excess_moves", "planning_time", "total_time",
                 "rule_violations")
)  # fmt: skip

#: The trials.csv columns wide.csv is made from (all that
#: :func:`tol_analysis.export.wide.wide_data` reads): the keys of its cells and their measures.
WIDE_TRIALS = (
    "participant", "session", "protocol", "problem_id", "attempt", "void", "practice",
    "simulated", *(c.name for c in WIDE_MEASURES),
)  # fmt: skip

#: The column names of wide.csv's cells: the session, the task (the protocol; left out for a
#: log that names none), the problem (with ``_a<attempt>`` for a second or later attempt)
#: and the measure, made safe as SPSS variable names (see tol_analysis.export.wide.wide_table). A
#: name never depends on what else the data hold.
WIDE_NAME = "s<session>_<task>_<problem>[_a<attempt>]_<measure>"

#: What wide.csv says of each session task, as ``s<session>_<task>_<column>``: these
#: sessions.csv columns.
WIDE_SESSION = tuple(SESSIONS[name] for name in ("status", "protocol_version", "start_date",
                                                  "start_time", "recorder"))  # fmt: skip
WIDE_SESSION_NAME = "s<session>_<task>_<column>"


def participant_field(name: str, kind: str) -> Column:
    """The column of a participant field the protocol declares (``kind``: its column type)."""
    return Column(
        name,
        kind,
        f"Participant field {name!r}, as given for the session (the "
        "protocol's participant_fields; checked against the type it declares).",
    )


#: wide.csv's second column: any of the participant's sessions simulated.
WIDE_SIMULATED = replace(SIMULATED, definition="Any of the participant's sessions was played by "
                         "tol-run's simulated participant (empty: no session has a readable "
                         "sidecar).")  # fmt: skip


def wide_definition() -> str:
    return (
        "The trials.csv measure for that session, task and problem: "
        + ", ".join(m.name for m in WIDE_MEASURES)
        + " (solved as 0/1); _a<attempt> only for a second or later attempt at the problem. "
        "Void attempts are left out: a problem never given is an empty cell."
    )


def wide_session_definition() -> str:
    return (
        "What sessions.csv says of that session task: "
        + ", ".join(c.name for c in WIDE_SESSION)
        + "."
    )


#: In trials.sav only: when the session started (from its sidecar).
SESSION_START = Column("session_start", DATETIME,
                       "Date and time the session started (local time)", level=SCALE)  # fmt: skip

#: The columns of the BIDS ``_events.tsv`` files of scanner and EEG sessions
#: (:mod:`tol_analysis.export.bids_events`; BIDS 1.10, "Task events"): not a CSV table.
BIDS_EVENTS = Table("events", (
    Column("onset", FLOAT, "Seconds from the first counted volume of the scan (func), or from "
           "the first event marker, the session_start marker (eeg), to the event (the flip "
           "that showed it, or the press).", "s"),
    Column("duration", FLOAT, "Seconds the event lasted: a problem from its onset to its end, "
           "a fixation cross to its scheduled end, an instruction page until it was left, "
           "attention lost until it came back; 0 for a press or a move.", "s"),
    Column("trial_type", STRING, "What happened: problem (a problem on screen), copy (a yoked "
           "copy trial), fixation, page, feedback, attention_lost (another window or tab was "
           "in front, or full screen was left), or an event of the log during a problem "
           "(pick_up, place, illegal, solved, time_out, ...)."),
    Column("value", INTEGER, "The marker byte code sent for the event (the event log "
           "codebook's marker_codes, or the protocol's markers.codes); n/a when none was sent."),
    BLOCK, TRIAL, PROBLEM_ID,
    Column("response_time", FLOAT, "Seconds from the problem's onset (its trial time).", "s"),
    PIECE,
    Column("from_peg", STRING, "Peg the piece was taken from."),
    TO_PEG,
    Column("moves", INTEGER, "Moves made (a problem: by its end).", "moves"),
    Column("outcome", STRING, "How a problem ended (solved, time_out, move_limit, aborted), or "
           "why a move was refused."),
))  # fmt: skip

#: The source of the planning-only measures.
OTS = "CANTAB OTS"
_OTS_NOTE = f"{OTS} (outcome measures, for all problems or per number of moves)"
_PER_PROBLEM = (PARTICIPANT, SESSION, BLOCK, TRIAL, PROBLEM_ID)

#: One row per planning-only problem (``planning.csv``: blocks with ``planning``; written only
#: when the logs have such problems).
PLANNING = Table("planning", (
    *_PER_PROBLEM,
    Column("min_moves", INTEGER, "The fewest moves that solve the problem: the right answer.",
           "moves", level=ORDINAL),
    Column("choices", INTEGER, "Boxes chosen (answers given) in the problem."),
    Column("first_choice", INTEGER, "The number chosen first (empty: no choice).", "moves"),
    Column("solved_on_first_choice", BOOLEAN, "The first choice was the right number.",
           source=_OTS_NOTE),
    Column("choices_to_correct", INTEGER, "Choices up to and including the right one (empty: "
           "the right number was never chosen).", source=_OTS_NOTE),
    Column("latency_first_choice", FLOAT, "Seconds from the problem's onset (its first flip) "
           "to the first choice.", "s", source=_OTS_NOTE),
    Column("latency_correct", FLOAT, "Seconds from the problem's onset to the right choice "
           "(empty: never chosen).", "s", source=_OTS_NOTE),
    Column("outcome", STRING, "solved (the right number chosen), wrong (the only choice "
           "allowed was wrong), time_out, or void."),
    Column("void", BOOLEAN, f"The problem is void: {VOID_DEFINITION}; after a resume it is "
           "asked again. Left out of planning_sessions.csv."),
))  # fmt: skip

#: Each session's planning-only measures, for all problems and per number of moves
#: (``planning_sessions.csv``).
PLANNING_SESSIONS = Table("planning_sessions", (
    PARTICIPANT, SESSION,
    Column("level", STRING, "all (every planning-only problem of the session), or the fewest "
           "moves of the problems the row is about (1, 2, ...)."),
    Column("problems", INTEGER, "Planning-only problems presented (void ones left out)."),
    Column("problems_solved_on_first_choice", INTEGER, "Problems whose first choice was "
           "right.", source=_OTS_NOTE),
    Column("mean_choices_to_correct", FLOAT, "Mean choices to the right one, over the problems "
           "in which it was chosen.", source=_OTS_NOTE),
    Column("mean_latency_first_choice", FLOAT, "Mean seconds from onset to the first choice.",
           "s", source=_OTS_NOTE),
    Column("mean_latency_correct", FLOAT, "Mean seconds from onset to the right choice, over the "
           "problems in which it was chosen.", "s", source=_OTS_NOTE),
))  # fmt: skip

#: The source of the gaze measures.
HODGSON = "Hodgson et al. 2000"
_GAZE_NOTE = (
    f"{HODGSON} (gaze during planning: dwell on the goal and on the workspace, "
    "alternations between them)"
)

#: One row per problem attempt of a session recorded with an eye tracker (``gaze.csv``:
#: written only when there are such sessions). The planning period is from the problem's
#: onset to its first pick-up (or its end, when nothing was picked up).
GAZE = Table("gaze", (
    *_PER_PROBLEM,
    Column("planning_period", FLOAT, "Seconds from the problem's onset to its first pick-up "
           "(or to its end): the period the other columns are about.", "s"),
    Column("samples", INTEGER, "Valid gaze samples in the planning period."),
    Column("dwell_goal", FLOAT, "Seconds of gaze on the goal (its region in the sidecar) in "
           "the planning period: each valid sample counts until the next one.", "s",
           source=_GAZE_NOTE),
    Column("dwell_workspace", FLOAT, "Seconds of gaze on the workspace (the participant's "
           "board) in the planning period.", "s", source=_GAZE_NOTE),
    Column("alternations", INTEGER, "Changes of gaze between the goal and the workspace in "
           "the planning period (time spent elsewhere between them does not break a change).",
           source=_GAZE_NOTE),
    Column("first_workspace_fixation", FLOAT, "Seconds from the onset to the first time gaze "
           "stayed on the workspace for the sidecar's fixation_ms (empty: never in the "
           "planning period).", "s", source=_GAZE_NOTE),
))  # fmt: skip

#: The tables tol-score writes from the registry, by name.
TABLES = {t.name: t for t in (MOVES, TRIALS, SESSIONS, COPY_MOVES)}
#: The tables tol-score writes only when the scored sessions have what they are about
#: (planning-only problems, an eye tracker), by name: in the codebook when written.
WHEN_PRESENT = {t.name: t for t in (PLANNING, PLANNING_SESSIONS, GAZE)}

# ------------------------------------------------------------------ sources
#: Full references of the sources the columns name.
REFERENCES = {
    "Shallice 1982": "Shallice, T. (1982). Specific impairments of planning. Philosophical "
    "Transactions of the Royal Society of London B, 298, 199-209.",
    "Owen et al. 1990": "Owen, A. M., Downes, J. J., Sahakian, B. J., Polkey, C. E., & Robbins, "
    "T. W. (1990). Planning and spatial working memory following frontal lobe lesions in man. "
    "Neuropsychologia, 28, 1021-1034 (CANTAB Stockings of Cambridge).",
    "Culbertson & Zillmer 1998": "Culbertson, W. C., & Zillmer, E. A. (1998). The Tower of "
    "London-DX: A standardized approach to assessing executive functioning in children. "
    "Archives of Clinical Neuropsychology, 13, 285-301 (TOL-DX).",
    "Delis et al. 2001": "Delis, D. C., Kaplan, E., & Kramer, J. H. (2001). Delis-Kaplan "
    "Executive Function System (D-KEFS): Tower Test. The Psychological Corporation.",
    "Culbertson & Zillmer 2005": "Culbertson, W. C., & Zillmer, E. A. (2005). Tower of London "
    "- Drexel University, second edition (TOL-DX): Technical manual. Multi-Health Systems. "
    "Its scoring as studies apply it (Etnier and colleagues, 2011, "
    "libres.uncg.edu/ir/uncg/f/J_Etnier_Effects_2011.pdf, quoted in the Experiment "
    "Factory's tower_of_london task): the total move score is the moves above the minimum "
    "summed over the problems, 20 moves being charged when a participant exceeded 20 moves "
    "or did not solve a problem within 2 minutes; the total correct score counts the "
    "problems solved in the minimum; a time violation is a problem not completed within 1 "
    "minute.",
    "Pearson D-KEFS FAQ": "Pearson Assessments support, D-KEFS Tower Test item 9 "
    "(pearsonassessmentsupport.com, EntryID 2329): an item whose tower cannot have been "
    "built in the moves used (minimum 26; 23 moves and 2 rule violations) is failed and "
    "assigned an achievement score of 0.",
    "Cambridge Cognition SOC": "Cambridge Cognition, CANTAB Stockings of Cambridge outcome "
    "measures: problems solved in minimum moves, the number of occasions on which a test "
    "problem was completed in the minimum possible number of moves.",
    "Hodgson et al. 2000": "Hodgson, T. L., Bajwa, A., Owen, A. M., & Kennard, C. (2000). "
    "The strategic control of gaze direction in the Tower of London task. Journal of Cognitive "
    "Neuroscience, 12(5), 894-907.",
    "CANTAB OTS": "Cambridge Cognition. One Touch Stockings of Cambridge (OTS), CANTAB: "
    "outcome measures problems solved on first choice, mean choices to correct, mean latency to "
    "first choice and mean latency to correct, each for all problems or per number of moves "
    "(https://cambridgecognition.com/one-touch-stockings-of-cambridge-ots/).",
    "tol-tasks": "Defined by tol-tasks from the exact distance to the goal after each move "
    "(the solver's shortest-path distances); no published norm.",
}

#: Measures a recorder may be unable to record, as a sidecar's ``unavailable`` names them
#: (tol-import's importers), and the trials.csv columns that are then missing, not zero.
UNRECORDED = {
    "illegal attempts": ("rule_violations", *(f"violations_{k}" for k in VIOLATION_KINDS)),
    "same-peg drops": ("same_peg_drops",),
}

#: What missing values mean, in every table.
MISSING_VALUES = (
    "empty cells: not defined for that row (e.g. excess_moves of an unsolved attempt), or not "
    "recorded: rule_violations and violations_* (and sessions.csv's total_rule_violations) "
    "when the session's recorder cannot record illegal attempts, same_peg_drops when it "
    "cannot record same-peg drops (the sidecar's unavailable says so; data imported from "
    "other tools)"
)
