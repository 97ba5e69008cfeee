// What the researcher should know at the end of a run: a port of
// tol_tasks/session_data/quality.py (run_warnings), listed in web/ports.toml and compared
// with it by tests/test_web_js.py. The page puts the sentences in the researcher's data
// (the tower-session plugin's `warnings`) and, in a pilot run, on the end page.

import { pyFixed, pyFormatG } from "./pyformat.js";

const DROPPED_FRAMES_SHARE = 0.05;
const REFRESH_TOLERANCE = 0.05;

function plural(n, word) {
  if (n === 1) return `${n} ${word}`;
  return word.endsWith("s") ? `${n} ${word}es` : `${n} ${word}s`;
}

// Python's "{:.0%}", "{:.1f}" and "{:g}", rounding as Python does.
const pct = (x) => `${pyFixed(x * 100, 0)}%`;

/** The warnings about a run from its sidecar (as run_warnings in Python). */
export function runWarnings(meta, declaredRefresh = null) {
  const out = [];
  const frames = meta.frames || {};
  const total = frames.total_frames || 0;
  const dropped = frames.total_dropped_frames || 0;
  if (total && dropped / total > DROPPED_FRAMES_SHARE) {
    out.push(
      `${dropped} of ${total} frames (${pct(dropped / total)}) were dropped (more than ${pct(DROPPED_FRAMES_SHARE)}): ` +
        "the screen was not redrawn in time, so onsets may be late by a frame or more. Close other programs or check the graphics driver.",
    );
  }
  const timing = meta.timing || {};
  const person = !meta.simulate; // a simulated participant's presses are not stamped
  if (person && timing.input_method === "polled") {
    const reason = timing.input_fallback_reason;
    out.push("Every press was stamped by polling once per frame (up to a frame late)" + (reason ? `: ${reason}.` : "."));
  }
  const unmatched = timing.unmatched_presses || 0;
  if (person && unmatched) out.push(`${plural(unmatched, "press")} seen only by the window were stamped by polling (up to a frame late).`);
  const keys = timing.unmatched_keys || 0;
  if (person && keys) out.push(`${plural(keys, "key")} seen only by the window were stamped by polling (up to a frame late).`);
  const lost = timing.input_lost;
  if (lost) out.push(`On-arrival input stopped at ${pyFixed(lost.time, 1)} s (${lost.reason}); later presses were stamped by polling.`);
  const page = meta.page || {};
  const hidden = (page.hidden || []).filter((h) => h.state === "hidden");
  if (hidden.length) {
    out.push(`The task was hidden ${plural(hidden.length, "time")} (another tab or window was in front): the participant may have looked away.`);
  }
  const exits = page.fullscreen_exits || [];
  if (exits.length) out.push(`Full screen was left ${plural(exits.length, "time")}.`);
  const focus = (meta.window || {}).focus_lost || [];
  if (focus.length) {
    out.push(`The window lost the keyboard and mouse ${plural(focus.length, "time")} (another window was in front): the participant may have looked away.`);
  }
  const measured = meta.refresh_rate_hz;
  if (declaredRefresh) {
    if (measured === null || measured === undefined) {
      out.push(`The refresh rate could not be measured; the protocol declares ${pyFormatG(declaredRefresh)} Hz.`);
    } else if (Math.abs(measured - declaredRefresh) > REFRESH_TOLERANCE * declaredRefresh) {
      out.push(
        `The screen refreshed at ${pyFixed(measured, 1)} Hz, not the ${pyFormatG(declaredRefresh)} Hz the protocol declares (display.refresh_rate): check the monitor's settings.`,
      );
    }
  }
  return out;
}
