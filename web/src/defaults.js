// Defaults of a problem played by the plugin outside a built protocol: the
// participant-facing texts of every language and the piece colours. The texts
// are tol_tasks/texts/*.yaml, written into generated/texts.json at
// build time (build.mjs, tol_tasks.web.jsdata); the colours are tol_tasks.config's
// (DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS). A test checks that both stay equal.

import TEXTS from "./generated/texts.json" with { type: "json" };

export { TEXTS };

/** The texts of `language` (English for a language tol-tasks has no texts in). */
export function messagesFor(language) {
  return { ...TEXTS.en.messages, ...(TEXTS[language] ? TEXTS[language].messages : {}) };
}

export const DEFAULT_MESSAGES = TEXTS.en.messages;

export const DEFAULT_BALL_COLORS = {
  R: "#f1240a", G: "#51d1b0", B: "#0d63ba", Y: "#fee588",
  P: "#b69cf0", O: "#ff9a00", K: "#817784", W: "#f1ffff",
};

export const DEFAULT_DISK_COLORS = [
  "#e11956", "#d99f24", "#e5fa07", "#27b9a0", "#00ffdc",
  "#c627ff", "#0f07b6", "#bdb0fd", "#767396", "#713f09",
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
  show_legal_targets: false,
  refresh_rate: null,
  piece_labels: false,
};

/** A piece's colour: the given one, else the default of its disk number or ball letter. */
export function pieceColor(puzzle, piece, colors = {}) {
  const given = colors[String(piece)];
  if (given) return given;
  if (puzzle.kind === "hanoi") return DEFAULT_DISK_COLORS[(piece - 1) % DEFAULT_DISK_COLORS.length];
  return DEFAULT_BALL_COLORS[piece] || "#888888";
}

/** sRGB 0-1 of a "#rgb" or "#rrggbb" colour (a CSS name: as the browser would give it, grey if unknown). */
function rgbOf(color) {
  let h = String(color).replace("#", "");
  if (h.length === 3) h = [...h].map((c) => c + c).join("");
  if (!/^[0-9a-fA-F]{6}$/.test(h)) return [0.5, 0.5, 0.5];
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255);
}

/** Black or white, whichever reads better on `color` (a piece's label): tol_tasks.display.colors.label_color. */
export function labelColor(color) {
  const lin = rgbOf(color).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? "#000000" : "#ffffff";
}
