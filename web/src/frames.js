// Frame statistics, as tol_tasks/runner/frames.py computes them for the lab.
//
// Frame interval: from one animation frame to the next (requestAnimationFrame
// timestamps). Frame work: the time the task's own code ran during a frame
// (its input handlers and its frame callback), the browser's counterpart of
// the lab's "from the return of one flip to the call of the next".

import { fsum, pyFixed, pyRound } from "./pyformat.js";

export const PLAUSIBLE_REFRESH_HZ = [20.0, 300.0];

/** The q-th percentile (0-100), nearest rank, of a non-empty list. */
export function percentile(values, q) {
  const ordered = values.slice().sort((a, b) => a - b);
  const k = Math.max(0, Math.ceil((q / 100) * ordered.length) - 1);
  return ordered[k];
}

export function median(values) {
  const s = values.slice().sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

function fmean(values) {
  return fsum(values) / values.length;
}

/** Median, 99th percentile and maximum of per-frame work (seconds in, milliseconds out). */
export function workStats(work) {
  if (!work.length) return {};
  return {
    frame_work_median_ms: pyRound(1000 * median(work), 3),
    frame_work_p99_ms: pyRound(1000 * percentile(work, 99), 3),
    frame_work_max_ms: pyRound(1000 * Math.max(...work), 3),
  };
}

/** A trial's frame statistics (intervals and work in seconds; refresh in Hz or null). */
export function frameStats(intervals, refresh, work = []) {
  if (!intervals.length) return { frames: 0, dropped_frames: 0, ...workStats(work) };
  const [lo, hi] = PLAUSIBLE_REFRESH_HZ;
  let period;
  let source;
  if (refresh && lo <= refresh && refresh <= hi) {
    period = 1 / refresh;
    source = "refresh";
  } else {
    period = median(intervals);
    source = "median";
  }
  return {
    frames: intervals.length + 1,
    dropped_frames: intervals.filter((v) => v > 1.5 * period).length,
    frame_period_ms: pyRound(1000 * period, 3),
    period_source: source,
    frame_interval_mean_ms: pyRound(1000 * fmean(intervals), 3),
    frame_interval_max_ms: pyRound(1000 * Math.max(...intervals), 3),
    ...workStats(work),
  };
}

/** The detail text of trial_end and copy_end: floats with 3 decimals, the rest as text. */
export function frameDetail(frames) {
  return Object.entries(frames)
    .map(([k, v]) => `${k}=${FLOAT_KEYS.has(k) ? pyFixed(v, 3) : v}`)
    .join(";");
}

// Which frame statistics Python holds as floats (written with 3 decimals).
const FLOAT_KEYS = new Set([
  "frame_period_ms", "frame_interval_mean_ms", "frame_interval_max_ms",
  "frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms",
]);

/** Session-wide frame statistics for the sidecar. */
export function frameSummary(trials, work = []) {
  const frames = trials.reduce((n, t) => n + (t.frames || 0), 0);
  const out = {
    total_frames: frames,
    total_dropped_frames: trials.reduce((n, t) => n + (t.dropped_frames || 0), 0),
    frame_interval_max_ms: trials.length ? Math.max(...trials.map((t) => t.frame_interval_max_ms || 0)) : null,
    frame_interval_mean_ms: frames
      ? trials.reduce((s, t) => s + (t.frame_interval_mean_ms || 0) * (t.frames || 0), 0) / frames
      : null,
  };
  if (work.length) {
    Object.assign(out, workStats(work));
  } else {
    for (const key of ["frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms"]) {
      const vals = trials.filter((t) => key in t).map((t) => t[key]);
      out[key] = vals.length ? Math.max(...vals) : null;
    }
  }
  return out;
}
