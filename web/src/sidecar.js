// A browser session's sidecar: the one tol-web build made through the sidecar
// model (tol_tasks/session_data/sidecar.py; every key of it, the protocol's
// copy, the recorder), filled in for this session, and the record of a resume.
// What only the display knows (screen, window, refresh rate, the pegs'
// places) comes from the display's describe() (see driver.js).

import { EVENT_LOG_VERSION } from "./eventlog.js";
import { dateStr, isoNow } from "./timefmt.js";
import { JSPSYCH_VERSION } from "./version.js";

/** How the page's clock and input are taken (the sidecar's timing section). */
function timingOf(clock) {
  return {
    clock: "the page's high-resolution clock (performance.now() and every event's timeStamp); "
      + "session time = (performance.timeOrigin + stamp - clock_zero) / 1000, so that it runs on across a reload",
    clock_function: "performance.timeOrigin + performance.now() (milliseconds since the epoch)",
    clock_zero: clock.zero,
    input_method: "browser-event-timestamp",
    input_fallback_reason: null,
    input_reconciled: "Pointer Events (mouse, pen, touch) and keydown; each stamped with its own "
      + "event.timeStamp, set by the browser when the input arrived, before any handler ran",
    unmatched_presses: 0,
    input_lost: null,
    expected_resolution_s: 0.0001,
    trial_onset: "the requestAnimationFrame timestamp of the frame after the one that drew the "
      + "problem (about when that frame reached the screen), never earlier than the drawing",
    frame_work: "the task's own code in each animation frame (its input handlers and frame callback)",
  };
}

/**
 * A new session's sidecar. `who`: {participant, session, language, fields,
 * params}; `env`: the display's describe() ({user_agent, screen, window,
 * refresh_rate_hz, layout}); `form`, `blockIndices`: the counterbalanced form.
 */
export function newSidecar(proto, who, env, { clock, form, blockIndices }) {
  const stem = `${who.participant}_${proto.plan.protocol.name}_${dateStr()}`;
  const names = proto.plan.blocks.map((b) => b.name);
  const cb = proto.plan.counterbalance;
  const meta = JSON.parse(JSON.stringify(proto.sidecar));
  return Object.assign(meta, {
    event_log: `${stem}.csv`,
    event_log_version: EVENT_LOG_VERSION,
    status: "incomplete",
    participant: who.participant,
    session: who.session,
    extra_fields: who.fields,
    language: who.language,
    instruction_pages: proto.languages[who.language].pages.map((p) => p.text),
    start_time: isoNow(),
    end_time: null,
    software: { ...meta.software, jspsych: JSPSYCH_VERSION, user_agent: env.user_agent },
    screen: env.screen,
    window: env.window,
    refresh_rate_hz: env.refresh_rate_hz,
    timing: timingOf(clock),
    frames: { trials: [] },
    layout: env.layout,
    blocks: [],
    counterbalance: cb ? { by: cb.by, form, blocks: blockIndices.map((i) => names[i]) } : null,
    resumes: [],
    url_parameters: who.params,
    rows_written: 0,
  });
}

/** The sidecar's record of a resume (its resumes list), as tol-run --resume writes it. */
export function resumeRecord(meta, progress, env, note) {
  return {
    time: isoNow(), after_row: progress.last_row, previous_status: meta.status,
    interrupted: progress.interrupted || [], note: note || "",
    user_agent: env.user_agent, refresh_rate_hz: env.refresh_rate_hz,
  };
}

/**
 * The counterbalanced form of a session: the recorded one when it resumes,
 * the form of index `assigned` when it is assigned from outside (JATOS's
 * batch session, across participants), else formFor's choice.
 */
export function recordedForm(proto, meta, formFor, who, assigned = null) {
  const names = proto.plan.blocks.map((b) => b.name);
  if (meta && meta.counterbalance) {
    return [meta.counterbalance.form, meta.counterbalance.blocks.map((b) => names.indexOf(b))];
  }
  const cb = proto.plan.counterbalance;
  if (cb && assigned !== null) {
    const form = cb.forms[assigned % cb.forms.length];
    return [form.name, form.blocks.map((b) => names.indexOf(b))];
  }
  return formFor(cb, names, who.participant, who.session);
}
