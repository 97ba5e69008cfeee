// Defaults of a problem played by the plugin outside a built protocol: the
// participant-facing texts and the piece colours. They are tol_tasks.config's
// (DEFAULT_MESSAGES, DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS); a test checks
// that they stay equal.

export const DEFAULT_MESSAGES = {
  continue: "Click or press space to continue.",
  practice_start: "First, some practice problems.",
  test_start: "Now the test problems begin.",
  goal_label: "Goal",
  moves_label: "Moves: {moves}",
  time_label: "Time left: {seconds} s",
  solved: "Solved!",
  not_solved: "Not solved.",
  moves_feedback: "Solved in {moves} moves; the fewest possible is {min_moves}.",
  time_out: "Time is up.",
  move_limit: "No moves left.",
  try_again: "Let's try that one again.",
  illegal_larger_on_smaller: "A larger disk cannot go on a smaller one.",
  illegal_peg_full: "That peg is full.",
  illegal_forbidden_pair: "Move only between neighbouring pegs.",
  illegal_empty_source: "That peg is empty.",
  end: "Thank you! The task is finished.",
  copy_start: "Now copy the moves shown, one at a time.",
  copy_label: "Take the highlighted piece and put it on the marked peg.",
};

export const DEFAULT_BALL_COLORS = {
  R: "#d62728", G: "#2ca02c", B: "#1f77b4", Y: "#f2c014",
  P: "#9467bd", O: "#ff7f0e", K: "#222222", W: "#eeeeee",
};

export const DEFAULT_DISK_COLORS = [
  "#e6194b", "#f58231", "#ffe119", "#3cb44b", "#42d4f4",
  "#4363d8", "#911eb4", "#f032e6", "#a9a9a9", "#9a6324",
];

export const DEFAULT_DISPLAY = {
  background: "#1e1e1e",
  text_color: "#ffffff",
  peg_color: "#a0784a",
  highlight_color: "#ffffff",
  piece_colors: {},
  piece_scale: 1.0,
  show_goal: true,
  goal_position: "top",
  show_move_counter: true,
  show_time_left: false,
  show_illegal_message: true,
};

/** A piece's colour: the given one, else the default of its disk number or ball letter. */
export function pieceColor(puzzle, piece, colors = {}) {
  const given = colors[String(piece)];
  if (given) return given;
  if (puzzle.kind === "hanoi") return DEFAULT_DISK_COLORS[(piece - 1) % DEFAULT_DISK_COLORS.length];
  return DEFAULT_BALL_COLORS[piece] || "#888888";
}
