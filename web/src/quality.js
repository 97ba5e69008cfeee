// What the researcher should know at the end of a run: a port of
// tol_tasks/session_data/quality.py (run_warnings), listed in web/ports.toml and compared
// with it by tests/test_web_js.py in every language. The sentences are the `examiner` texts
// of tol_tasks/texts (the build's generated/texts.json). The page puts them in the
// researcher's data (the tower-session plugin's `warnings`) and, in a pilot run, on the end page.

import { TEXTS } from "./defaults.js";
import { pyFixed, pyFormatG } from "./pyformat.js";
import { fill } from "./trialrun.js";

const DROPPED_FRAMES_SHARE = 0.05;
const REFRESH_TOLERANCE = 0.05;

/** How many times the task lost the participant's attention, by how (as attention_losses). */
export function attentionLosses(meta) {
  const page = meta.page || {};
  return {
    focus: ((meta.window || {}).focus_lost || []).length,
    hidden: (page.hidden || []).filter((h) => h.state === "hidden").length,
    fullscreen: (page.fullscreen_exits || []).length,
  };
}

/** The warnings about a run from its sidecar, in `language` (as run_warnings in Python). */
export function runWarnings(meta, declaredRefresh = null, language = "en") {
  const t = (TEXTS[language] || TEXTS.en).examiner;
  const fixed = (x, digits) => pyFixed(x, digits).replace(".", t.decimal_mark);
  const general = (x) => pyFormatG(x).replace(".", t.decimal_mark);
  const count = (key, n) => fill(t[n === 1 ? `${key}_one` : `${key}_other`], { n });
  const out = [];
  const frames = meta.frames || {};
  const total = frames.total_frames || 0;
  const dropped = frames.total_dropped_frames || 0;
  if (total && dropped / total > DROPPED_FRAMES_SHARE) {
    out.push(fill(t.dropped, { dropped, total, pct: fixed((100 * dropped) / total, 0), limit: fixed(100 * DROPPED_FRAMES_SHARE, 0) }));
  }
  const timing = meta.timing || {};
  const person = !meta.simulate; // a simulated participant's presses are not stamped
  if (person && timing.input_method === "polled") {
    const reason = timing.input_fallback_reason;
    out.push(reason ? fill(t.polled_because, { reason }) : t.polled);
  }
  for (const key of ["unmatched_presses", "unmatched_keys"]) {
    const n = timing[key] || 0;
    if (person && n) out.push(count(key, n));
  }
  const lost = timing.input_lost;
  if (lost) out.push(fill(t.input_lost, { time: fixed(lost.time, 1), reason: lost.reason }));
  const losses = attentionLosses(meta);
  for (const key of ["hidden", "fullscreen", "focus"]) {
    if (losses[key]) out.push(count(key, losses[key]));
  }
  const measured = meta.refresh_rate_hz;
  if (declaredRefresh) {
    const declared = general(declaredRefresh);
    if (measured === null || measured === undefined) {
      out.push(fill(t.refresh_unknown, { declared }));
    } else if (Math.abs(measured - declaredRefresh) > REFRESH_TOLERANCE * declaredRefresh) {
      out.push(fill(t.refresh_off, { measured: fixed(measured, 1), declared }));
    }
  }
  return out;
}
