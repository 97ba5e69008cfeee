"""Scoring conventions and the columns of every table, in one place.

:data:`COLUMNS` is the single source for the column order of the DataFrames,
the codebook written beside the tables and the BIDS JSON sidecars.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

#: Rule violations counted separately (the reasons the runner logs).
VIOLATION_KINDS = ("larger_on_smaller", "peg_full", "forbidden_pair")


@dataclass(frozen=True)
class Conventions:
    """Choices where published tools disagree; recorded with every output.

    Attributes
    ----------
    same_peg_drop_counts : bool
        Count putting a piece back on its own peg as a move (default False,
        as PEBL; Experiment Factory counts every pick-up).
    violations_count : bool
        Count each rule violation as a move too (default False; Inquisit's
        D-KEFS-style scoring adds one per violation).
    planning_ends : {"pick_up", "move"}
        Planning time ends at the first pick-up (default; Experiment Factory's
        first-click latency) or at the first completed move (PEBL's first-move
        time, D-KEFS first-move time).
    include_practice : bool
        Include practice problems in sessions.csv and the wide table (default
        False; they are always in trials.csv and moves.csv, marked).
    """

    same_peg_drop_counts: bool = False
    violations_count: bool = False
    planning_ends: Literal["pick_up", "move"] = "pick_up"
    include_practice: bool = False

    def __post_init__(self) -> None:
        if self.planning_ends not in ("pick_up", "move"):
            raise ValueError(f"planning_ends={self.planning_ends!r}: choose 'pick_up' or 'move'.")

    def as_dict(self) -> dict:
        return asdict(self)


# (name, type, unit, description)
MOVES_COLUMNS = [
    ("participant", "string", "", "Participant id."),
    ("session", "integer", "", "Session number."),
    ("block", "string", "", "Block name ('practice' for practice problems)."),
    ("trial", "integer", "", "Problem attempt number in the session, from 1."),
    ("attempt", "integer", "", "Attempt at this problem, from 1."),
    ("problem_id", "string", "", "Problem id in the protocol."),
    ("move_index", "integer", "", "Completed move number in the trial, from 1."),
    ("piece", "string", "", "Disk number (1 = smallest) or ball letter."),
    ("from_peg", "string", "", "Peg the piece came from (A, B, C, ...)."),
    ("to_peg", "string", "", "Peg the piece went to."),
    ("state_before", "string", "", "Configuration before the move (puzzle notation)."),
    ("state_after", "string", "", "Configuration after the move."),
    ("time", "float", "s", "Time of the move since trial onset."),
    (
        "latency",
        "float",
        "s",
        "Time since the previous completed move, or since onset for the first.",
    ),
    (
        "distance_before",
        "integer",
        "moves",
        "Fewest moves from state_before to the goal (exact solver).",
    ),
    ("distance_after", "integer", "moves", "Fewest moves from state_after to the goal."),
    ("optimal", "boolean", "", "The move lowered the distance to the goal by one."),
    ("counterproductive", "boolean", "", "The move raised the distance to the goal."),
    ("backtrack", "boolean", "", "The move undid the previous move (same piece straight back)."),
    (
        "revisit",
        "boolean",
        "",
        "state_after was already seen earlier in the trial (start included).",
    ),
]

TRIALS_COLUMNS = [
    ("participant", "string", "", "Participant id."),
    ("session", "integer", "", "Session number."),
    ("block", "string", "", "Block name ('practice' for practice problems)."),
    ("practice", "boolean", "", "A practice problem."),
    ("trial", "integer", "", "Problem attempt number in the session, from 1."),
    ("attempt", "integer", "", "Attempt at this problem, from 1."),
    ("problem_id", "string", "", "Problem id in the protocol."),
    ("task", "string", "", "hanoi or london."),
    ("size", "integer", "", "Number of disks or balls."),
    ("pegs", "integer", "", "Number of pegs."),
    (
        "puzzle",
        "string",
        "",
        "Apparatus code, e.g. hanoi:3:3:0 (disks, pegs, adjacent-only) or london:RGB:3-2-1.",
    ),
    ("start", "string", "", "Start configuration."),
    ("goal", "string", "", "Goal configuration."),
    ("min_moves", "integer", "moves", "Fewest moves from start to goal (exact solver)."),
    (
        "moves",
        "integer",
        "moves",
        "Moves made, under the conventions (completed moves, plus same-peg drops and violations if they count).",
    ),
    ("placements", "integer", "moves", "Completed moves (a piece placed on another peg)."),
    (
        "excess_moves",
        "integer",
        "moves",
        "moves - min_moves, for solved attempts (empty otherwise).",
    ),
    ("solved", "boolean", "", "The goal was reached."),
    ("solved_in_min", "boolean", "", "Solved with moves == min_moves."),
    ("time_out", "boolean", "", "The time limit was reached (a time violation)."),
    ("move_limit_reached", "boolean", "", "The move limit was reached unsolved."),
    ("rule_violations", "integer", "", "Illegal attempts, all kinds."),
    (
        "violations_larger_on_smaller",
        "integer",
        "",
        "Attempts to put a larger disk on a smaller one.",
    ),
    ("violations_peg_full", "integer", "", "Attempts to put a ball on a full peg."),
    (
        "violations_forbidden_pair",
        "integer",
        "",
        "Attempts to move between non-neighbouring pegs (adjacent-only rule).",
    ),
    ("same_peg_drops", "integer", "", "Pieces put back on their own peg."),
    (
        "planning_time",
        "float",
        "s",
        "Onset to the first pick-up (or first completed move, by convention).",
    ),
    ("first_move_time", "float", "s", "Onset to the first completed move."),
    ("execution_time", "float", "s", "total_time - planning_time."),
    (
        "total_time",
        "float",
        "s",
        "Onset to the end of the attempt (solved, time-out, move limit, or its end).",
    ),
    ("mean_inter_move_time", "float", "s", "Mean time between consecutive completed moves."),
    ("median_inter_move_time", "float", "s", "Median time between consecutive completed moves."),
    ("time_per_move", "float", "s", "total_time / moves (D-KEFS time-per-move ratio)."),
    ("move_accuracy_ratio", "float", "", "moves / min_moves, for solved attempts."),
    ("path_efficiency", "float", "", "min_moves / moves, for solved attempts."),
    ("optimal_move_proportion", "float", "", "Share of completed moves that were optimal."),
    ("optimal_moves", "integer", "", "Completed moves that lowered the distance by one."),
    ("neutral_moves", "integer", "", "Completed moves that left the distance unchanged."),
    ("counterproductive_moves", "integer", "", "Completed moves that raised the distance."),
    ("first_move_optimal", "boolean", "", "The first completed move was optimal (empty if none)."),
    ("backtracks", "integer", "", "Moves that undid the previous move."),
    (
        "revisits",
        "integer",
        "",
        "Moves that returned to a configuration already seen in the trial.",
    ),
    ("frames", "integer", "", "Screen frames drawn during the attempt."),
    ("dropped_frames", "integer", "", "Frame intervals longer than 1.5 refresh periods."),
    (
        "frame_work_median_ms",
        "float",
        "ms",
        "Median per-frame work: from the return of one flip to the call of the next (empty in logs from before tol-tasks 0.2).",
    ),
    ("frame_work_p99_ms", "float", "ms", "99th percentile of per-frame work."),
    ("frame_work_max_ms", "float", "ms", "Largest per-frame work."),
    (
        "complete",
        "boolean",
        "",
        "The attempt ended normally (false: the session was cut off or aborted during it).",
    ),
    # Yoked copy trials (event log format 2); empty for attempts without a copy.
    ("copy_trial", "integer", "", "Trial number of the yoked copy trial that copied this attempt."),
    (
        "copy_source",
        "string",
        "",
        "What the copy showed: own (this attempt's moves) or optimal (a shortest solution).",
    ),
    ("copy_moves_shown", "integer", "moves", "Moves the copy showed."),
    ("copy_moves", "integer", "moves", "Moves carried out in the copy."),
    (
        "copy_refused",
        "integer",
        "",
        "Actions refused in the copy (the wrong piece taken, or put on the wrong peg); they stay in the copy's times.",
    ),
    (
        "copy_complete",
        "boolean",
        "",
        "Every move shown was carried out (false: the session ended during the copy).",
    ),
    (
        "copy_first_move_latency",
        "float",
        "s",
        "The copy's initial movement time: its onset to its first pick-up.",
    ),
    (
        "copy_time_per_move",
        "float",
        "s",
        "The copy's movement time per move: its onset to its last placement, divided by copy_moves.",
    ),
    (
        "copy_median_move_time",
        "float",
        "s",
        "Median time of one copy move: from the previous placement (or the onset) to the placement.",
    ),
    (
        "initial_thinking_time",
        "float",
        "s",
        "Onset to the first pick-up of this attempt minus the same in its copy (copy_first_move_latency). Empty unless the copy is complete and the attempt has a completed move; negative values are kept.",
    ),
    (
        "subsequent_thinking_time",
        "float",
        "s",
        "This attempt's time from its first pick-up to its last placement, minus the copy's movement time for as many moves: placements x copy_time_per_move - copy_first_move_latency (with equal move counts, exactly the copy's time from its first pick-up to its last placement). Negative values are kept.",
    ),
    (
        "subsequent_thinking_time_per_move",
        "float",
        "s",
        "subsequent_thinking_time / (placements - 1): thinking per move after the first (empty for one-move attempts).",
    ),
]

#: One row per move carried out in a yoked copy trial (copy_moves.csv).
COPY_MOVES_COLUMNS = [
    ("participant", "string", "", "Participant id."),
    ("session", "integer", "", "Session number."),
    ("block", "string", "", "Block name."),
    ("trial", "integer", "", "Trial number of the copy trial."),
    ("copy_of", "integer", "", "Trial number of the attempt it copies (trials.csv trial)."),
    ("problem_id", "string", "", "Problem id in the protocol."),
    ("move_index", "integer", "", "Copy move number, from 1."),
    ("piece", "string", "", "Disk number (1 = smallest) or ball letter."),
    ("from_peg", "string", "", "Peg the piece came from."),
    ("to_peg", "string", "", "Peg the piece went to."),
    ("cue_time", "float", "s", "When the move was first shown (the flip), since the copy's onset."),
    (
        "pick_time",
        "float",
        "s",
        "When the piece was picked up (the pick-up that was carried out), since onset.",
    ),
    ("time", "float", "s", "When the piece was placed, since onset."),
    (
        "move_time",
        "float",
        "s",
        "time minus the previous placement's time (or minus 0 for the first move).",
    ),
    ("refused", "integer", "", "Actions refused while this move was shown."),
]

SESSIONS_COLUMNS = [
    ("participant", "string", "", "Participant id."),
    ("session", "integer", "", "Session number."),
    ("protocol", "string", "", "Protocol name (from the sidecar, when present)."),
    ("status", "string", "", "completed, aborted, or incomplete (cut off)."),
    ("problems", "integer", "", "Distinct problems attempted."),
    ("attempts", "integer", "", "Problem attempts."),
    ("problems_solved", "integer", "", "Distinct problems solved in some attempt."),
    (
        "problems_solved_in_min",
        "integer",
        "",
        "Distinct problems solved in the minimum number of moves.",
    ),
    ("total_moves", "integer", "moves", "Sum of moves over attempts."),
    ("total_excess_moves", "integer", "moves", "Sum of excess moves over solved attempts."),
    ("total_rule_violations", "integer", "", "Sum of rule violations."),
    ("total_time_violations", "integer", "", "Attempts that hit their time limit."),
    ("total_planning_time", "float", "s", "Sum of planning times."),
    ("total_execution_time", "float", "s", "Sum of execution times."),
    ("total_solving_time", "float", "s", "Sum of total times."),
    ("mean_planning_time", "float", "s", "Mean planning time per attempt."),
    ("mean_time_per_move", "float", "s", "Mean of time_per_move over attempts with moves."),
    (
        "mean_initial_thinking_time",
        "float",
        "s",
        "Mean initial_thinking_time over attempts with a complete copy.",
    ),
    (
        "mean_subsequent_thinking_time",
        "float",
        "s",
        "Mean subsequent_thinking_time over attempts with a complete copy.",
    ),
    (
        "mean_subsequent_thinking_time_per_move",
        "float",
        "s",
        "Mean subsequent_thinking_time_per_move over attempts with a complete copy.",
    ),
]

#: Per minimum-move level k, sessions.csv also has these columns, prefixed ``min{k}_``.
SESSIONS_LEVEL_COLUMNS = [
    ("problems", "integer", "", "Distinct problems needing k moves."),
    ("problems_solved", "integer", "", "Of those, solved."),
    ("problems_solved_in_min", "integer", "", "Of those, solved in k moves."),
    (
        "total_excess_moves",
        "integer",
        "moves",
        "Excess moves over solved attempts needing k moves.",
    ),
    ("mean_planning_time", "float", "s", "Mean planning time over attempts needing k moves."),
    ("mean_time_per_move", "float", "s", "Mean time_per_move over attempts needing k moves."),
    ("total_rule_violations", "integer", "", "Rule violations in attempts needing k moves."),
    (
        "mean_initial_thinking_time",
        "float",
        "s",
        "Mean initial thinking time over attempts needing k moves with a complete copy.",
    ),
    (
        "mean_subsequent_thinking_time",
        "float",
        "s",
        "Mean subsequent thinking time over attempts needing k moves.",
    ),
    (
        "mean_subsequent_thinking_time_per_move",
        "float",
        "s",
        "Mean subsequent thinking time per move over attempts needing k moves.",
    ),
]

#: Measures per problem in the wide (SPSS) table.
WIDE_MEASURES = (
    "solved",
    "moves",
    "excess_moves",
    "planning_time",
    "total_time",
    "rule_violations",
)

COLUMNS = {
    "moves": MOVES_COLUMNS,
    "trials": TRIALS_COLUMNS,
    "sessions": SESSIONS_COLUMNS,
    "copy_moves": COPY_MOVES_COLUMNS,
}


#: Full references of the sources named in SOURCES.
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
    "tol-tasks": "Defined by tol-tasks from the exact distance to the goal after each move "
    "(the solver's shortest-path distances); no published norm.",
}

#: Where each measure's definition comes from (a key of REFERENCES, with a note).
SOURCES = {
    "min_moves": "tol-tasks: exact shortest path, from the solver (never typed by hand)",
    "moves": "Shallice 1982 (moves made); Delis et al. 2001 count rule violations too "
    "(--violations-count)",
    "excess_moves": "Culbertson & Zillmer 1998 (TOL-DX total move score: moves above the minimum)",
    "solved": "Shallice 1982 (problem solved)",
    "solved_in_min": "Shallice 1982; Owen et al. 1990 (problems solved in the minimum moves)",
    "time_out": "Culbertson & Zillmer 1998 (TOL-DX time violation)",
    "move_limit_reached": "Shallice 1982 (a problem is failed when its move limit is reached)",
    "rule_violations": "Culbertson & Zillmer 1998 (TOL-DX rule violations); Delis et al. 2001",
    "violations_larger_on_smaller": "Delis et al. 2001 (rule violation: a larger disk on a smaller)",
    "violations_peg_full": "Culbertson & Zillmer 1998 (rule violation: too many balls on a peg)",
    "planning_time": "Culbertson & Zillmer 1998 (TOL-DX initiation time); Delis et al. 2001 "
    "(first-move time). Owen et al. 1990's initial thinking time also subtracts a yoked copy's "
    "latency: initial_thinking_time",
    "first_move_time": "Delis et al. 2001 (first-move time, to the first completed move)",
    "execution_time": "Culbertson & Zillmer 1998 (TOL-DX execution time)",
    "total_time": "Culbertson & Zillmer 1998 (TOL-DX total problem-solving time)",
    "time_per_move": "Delis et al. 2001 (D-KEFS time-per-move ratio)",
    "move_accuracy_ratio": "Delis et al. 2001 (D-KEFS move accuracy ratio)",
    "path_efficiency": "tol-tasks: the inverse of Delis et al. 2001's move accuracy ratio",
    "problems_solved": "Shallice 1982 (problems solved)",
    "problems_solved_in_min": "Owen et al. 1990 (problems solved in the minimum number of moves)",
    "total_moves": "Culbertson & Zillmer 1998 (TOL-DX total move score counts moves)",
    "total_excess_moves": "Culbertson & Zillmer 1998 (TOL-DX total move score)",
    "total_rule_violations": "Culbertson & Zillmer 1998 (TOL-DX total rule violations)",
    "total_time_violations": "Culbertson & Zillmer 1998 (TOL-DX total time violations)",
    "total_planning_time": "Culbertson & Zillmer 1998 (TOL-DX total initiation time)",
    "total_execution_time": "Culbertson & Zillmer 1998 (TOL-DX total execution time)",
    "total_solving_time": "Culbertson & Zillmer 1998 (TOL-DX total problem-solving time)",
    "mean_planning_time": "Delis et al. 2001 (mean first-move time)",
    "mean_time_per_move": "Delis et al. 2001 (D-KEFS time-per-move ratio, averaged over problems)",
    "initial_thinking_time": "Owen et al. 1990 (initial thinking time: latency to the first move "
    "minus the latency in the yoked copy of the same moves)",
    "subsequent_thinking_time": "Owen et al. 1990 (subsequent thinking time: the rest of the "
    "solution's time minus the yoked copy's movement time); tol-tasks scales the copy's time "
    "per move when the copy has another number of moves",
    "subsequent_thinking_time_per_move": "Owen et al. 1990 (subsequent thinking time per move); "
    "tol-tasks divides by the moves after the first",
    "copy_first_move_latency": "Owen et al. 1990 (initial movement time in the yoked copy)",
    "copy_time_per_move": "Owen et al. 1990 (movement time in the yoked copy, per move)",
    "copy_trial": "Owen et al. 1990 (the yoked copy trial of this problem)",
    "copy_source": "Owen et al. 1990 (the yoked copy replays the participant's own moves); "
    "tol-tasks also offers a shortest solution",
    "copy_moves_shown": "Owen et al. 1990 (moves in the yoked copy)",
    "copy_moves": "Owen et al. 1990 (moves in the yoked copy)",
    "copy_complete": "tol-tasks (whether the yoked copy was finished)",
    "copy_refused": "tol-tasks (refused actions in the yoked copy)",
    "copy_median_move_time": "tol-tasks (median of the yoked copy's move times)",
    "mean_initial_thinking_time": "Owen et al. 1990 (mean initial thinking time)",
    "mean_subsequent_thinking_time": "Owen et al. 1990 (mean subsequent thinking time)",
    "mean_subsequent_thinking_time_per_move": "Owen et al. 1990 (mean subsequent thinking time per move)",
}
for _name in ("optimal_move_proportion", "optimal_moves", "neutral_moves",
              "counterproductive_moves", "first_move_optimal", "backtracks", "revisits",
              "same_peg_drops", "mean_inter_move_time", "median_inter_move_time",
              "violations_forbidden_pair", "distance_before", "distance_after", "optimal",
              "counterproductive", "backtrack", "revisit"):  # fmt: skip
    SOURCES.setdefault(_name, "tol-tasks")
del _name
