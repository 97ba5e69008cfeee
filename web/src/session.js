// A whole protocol in the browser, as tol-run runs it in the lab: the
// participant from the URL (or asked for), the counterbalanced form, the
// instructions, practice, blocks, copies and discontinue rules of the session
// plan, every row logged and kept in the browser's storage, a reload
// continuing at the first unfinished problem after a `resume` row, and at the
// end the event log and its sidecar handed over (JATOS, POST or download).

import { Stage, boards } from "./board.js";
import { formFor } from "./counterbalance.js";
import { COLUMNS, EVENT_LOG_VERSION, EventLog, logText } from "./eventlog.js";
import { frameSummary } from "./frames.js";
import { fill, playCopy, playProblem, readyToContinue, showMessage, showPages } from "./play.js";
import { progressOf, sessionPlan } from "./plan.js";
import { fromCode } from "./puzzle.js";
import { blockOrder } from "./random.js";
import { Abort, FrameRecorder, InputRouter, SessionClock, measureRefresh } from "./runtime.js";
import { deliver, downloadLink } from "./save.js";
import { SessionStore, storedLines } from "./storage.js";
import { injectStyle } from "./style.js";
import { JSPSYCH_VERSION, VERSION } from "./version.js";

/** PsychoPy's data.getDateStr() form, e.g. 2026-11-22_14h03.07.123 (tol_tasks/runner/files.py). */
export function dateStr(d = new Date()) {
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}_${p(d.getHours())}h${p(d.getMinutes())}.${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** Local time as Python's time.strftime("%Y-%m-%dT%H:%M:%S%z"). */
export function isoNow(d = new Date()) {
  const p = (n) => String(n).padStart(2, "0");
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const a = Math.abs(off);
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${sign}${p(Math.floor(a / 60))}${p(a % 60)}`;
}

/** A CSV line of the event log back into its cells (the rows as the log writes them). */
export function parseCsvLine(line) {
  const out = [];
  let cur = "";
  let quoted = false;
  const text = line.replace(/\n$/, "");
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function rowsOf(lines) {
  return lines.map((line) => Object.fromEntries(parseCsvLine(line).map((v, i) => [COLUMNS[i], v])));
}

/** Whether `id` can name a participant (the lab's rule, compiled from Python's session_data/identity.py). */
export function checkParticipant(proto, id) {
  return typeof id === "string" && new RegExp(proto.participant_pattern).test(id);
}

/** The session number `text` gives, or null (the lab's rule, compiled from Python's session_data/identity.py). */
export function sessionFromText(proto, text) {
  if (typeof text !== "string" || !new RegExp(proto.session_pattern).test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= proto.session_max ? n : null;
}

function urlParameters() {
  const jatos = globalThis.jatos;
  if (jatos && jatos.urlQueryParameters) return { ...jatos.urlQueryParameters };
  return Object.fromEntries(new URLSearchParams(globalThis.location ? location.search : ""));
}

/** The page for what cannot go on (a bad URL parameter): the text, nothing else. */
export function stop(root, text) {
  root.replaceChildren();
  const el = document.createElement("div");
  el.className = "tol-screen tol-error";
  el.setAttribute("role", "alert");
  el.textContent = text;
  root.appendChild(el);
  return { status: "refused", error: text };
}

function showScreen(root, ...children) {
  root.replaceChildren();
  const el = document.createElement("div");
  el.className = "tol-screen";
  el.append(...children);
  root.appendChild(el);
  return el;
}

function element(tag, props = {}, text = null) {
  const el = document.createElement(tag);
  Object.assign(el, props);
  if (text !== null) el.textContent = text;
  return el;
}

/** Ask for the participant id (and the protocol's participant fields); resolves {participant, fields}. */
function askParticipant(root, proto, { given, fields, problem }) {
  return new Promise((resolve) => {
    const form = element("form", { className: "tol-form" });
    const title = element("h1", {}, proto.plan.protocol.name);
    const inputs = {};
    const row = (name, label, value) => {
      const id = `tol-field-${name}`;
      const lab = element("label", { htmlFor: id }, label);
      const input = element("input", { id, name, value: value ?? "", autocomplete: "off" });
      inputs[name] = input;
      form.append(lab, input);
    };
    row("participant", "Participant", given || "");
    for (const [name, value] of Object.entries(fields)) row(name, name, value);
    const note = element("p", { className: "tol-form-error", role: "alert" }, problem || "");
    const go = element("button", { type: "submit" }, "OK");
    form.append(note, go);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const id = inputs.participant.value.trim();
      if (!checkParticipant(proto, id)) {
        note.textContent = `“${id}” cannot be used: 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit (e.g. P001).`;
        inputs.participant.focus();
        return;
      }
      const values = {};
      for (const name of Object.keys(fields)) values[name] = inputs[name].value;
      resolve({ participant: id, fields: values });
    });
    showScreen(root, title, form);
    inputs.participant.focus();
  });
}

/** The start button: a user gesture, which full screen needs. */
function waitForStart(root, label) {
  return new Promise((resolve) => {
    const button = element("button", { type: "button", className: "tol-start" }, label);
    button.dataset.start = "";
    button.addEventListener("click", () => resolve(), { once: true });
    showScreen(root, button);
    button.focus();
  });
}

/** Everything the screens share during a session (see play.js). */
class TaskContext {
  constructor(proto, language) {
    this.proto = proto;
    this.msg = proto.languages[language].messages;
    this.pages = proto.languages[language].pages;
    this.display = proto.display;
    this.input = proto.input;
    this.rules = proto.rules;
    this.timing = proto.timing;
    this.feedback = proto.feedback;
    this.copyStartSeconds = proto.plan.messages.copy_start;
    this.trialNo = 0;
    this.frameTrials = [];
    this.copyShown = false;
    this._puzzles = new Map();
  }

  puzzle(code) {
    if (!this._puzzles.has(code)) this._puzzles.set(code, fromCode(code));
    return this._puzzles.get(code);
  }

  colors(puzzle) {
    return this.proto.puzzles[puzzle.code].colors;
  }

  /** The text on each piece and its colour (display.piece_labels), or null. */
  labels(puzzle) {
    return this.proto.puzzles[puzzle.code].labels || null;
  }
}

/** Size of the stage in CSS pixels: the whole window in full screen, else the protocol's window size. */
function stageSize(display) {
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  if (display.fullscreen) return [vw, vh];
  return display.window_size;
}

function fitStage(el, w, h) {
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  const s = Math.min(1, vw / w, vh / h);
  el.style.transform = s < 1 ? `scale(${s})` : "";
}

/**
 * Run the protocol `proto` (protocol.json, compiled by tol-web build) in `root`.
 * Resolves with a summary once the files were handed over (or the page stopped).
 */
export async function runSession(root, proto, settings = {}) {
  injectStyle();
  settings = {
    participant_param: "participant", session_param: "session", language_param: "lang",
    session: 1, language: null, post_url: null, completion_url: null, ...settings,
  };
  const params = urlParameters();
  if (params.recover !== undefined) return recoveryPage(root);
  const language = params[settings.language_param] || settings.language || proto.default_language;
  if (!proto.languages[language]) {
    return stop(root, `${settings.language_param}=${language}: this task has no texts in that language. Use one of: ${Object.keys(proto.languages).join(", ")}.`);
  }
  const sessionText = params[settings.session_param];
  const session = sessionText === undefined ? settings.session : sessionFromText(proto, sessionText);
  if (session === null) {
    return stop(root, `${settings.session_param}=${sessionText}: not a session number. Use a whole number from 1 to ${proto.session_max}, in digits only, e.g. ${settings.session_param}=1.`);
  }
  const fields = {};
  for (const [name, value] of Object.entries(proto.participant_fields)) fields[name] = params[name] ?? value;
  let participant = params[settings.participant_param];
  if (participant === undefined || !checkParticipant(proto, participant)) {
    const problem = participant === undefined ? "" : `“${participant}” (from the address) cannot be used as a participant id.`;
    const answer = await askParticipant(root, proto, { given: participant, fields, problem });
    participant = answer.participant;
    Object.assign(fields, answer.fields);
  }
  const store = new SessionStore(proto.plan.protocol.sha256, participant, session);
  const stored = store.load();
  // As tol-run --resume: any session but a completed one continues (aborted and crashed too).
  const msg = proto.languages[language].messages;
  if (stored && stored.meta.status === "completed") {
    return completedPage(root, stored, msg);
  }
  await waitForStart(root, stored ? msg.continue_button : msg.start_button);
  if (proto.display.fullscreen && document.documentElement.requestFullscreen) {
    try {
      await document.documentElement.requestFullscreen();
    } catch {
      // refused (e.g. in an iframe without permission): the session runs in the window
    }
  }
  return runTask(root, proto, settings, { participant, session, language, fields, params, store, stored, msg });
}

async function runTask(root, proto, settings, s) {
  const ctx = new TaskContext(proto, s.language);
  const [w, h] = stageSize(proto.display);
  root.replaceChildren();
  const stageEl = element("div", { className: "tol-stage" });
  stageEl.style.width = `${w}px`;
  stageEl.style.height = `${h}px`;
  stageEl.style.background = proto.display.background;
  stageEl.style.color = proto.display.text_color;
  document.body.style.background = proto.display.background;
  root.appendChild(stageEl);
  fitStage(stageEl, w, h);
  addEventListener("resize", () => fitStage(stageEl, w, h));
  const stage = new Stage(stageEl, w, h);
  ctx.stage = stage;
  ctx.refresh = await measureRefresh(60);

  // The clock: a resumed session continues on its own zero, its times still increasing.
  let progress = null;
  let clock;
  let meta;
  let resumeNote = null;
  if (s.stored) {
    meta = s.stored.meta;
    progress = progressOf(rowsOf(s.stored.lines));
    clock = new SessionClock(meta.timing.clock_zero);
    if (clock.now() <= progress.last_time) {
      const shift = (progress.last_time + 0.001 - clock.now()) * 1000;
      clock = new SessionClock(meta.timing.clock_zero - shift);
      meta.timing.clock_zero = clock.zero;
      resumeNote = `clock moved on by ${Math.round(shift)} ms to keep times increasing`;
    }
    ctx.trialNo = progress.last_trial;
    ctx.frameTrials = meta.frames.trials || [];
  } else {
    clock = SessionClock.startingNow();
  }
  ctx.clock = clock;
  const log = new EventLog({
    participant: s.participant,
    session: s.session,
    lines: s.stored ? s.stored.lines : [],
    onRow: (line, row) => s.store.appendRow(line, row),
  });
  ctx.log = log;
  ctx.write = (event, fields = {}) => {
    if (fields.time === undefined) fields = { ...fields, time: clock.now() };
    return log.write(event, fields);
  };
  const frames = new FrameRecorder();
  ctx.frames = frames;
  let rejectAbort;
  ctx.abort = new Promise((_, reject) => (rejectAbort = reject));
  ctx.abort.catch(() => {});
  const router = new InputRouter(stage, clock, {
    quitKey: proto.input.quit_key,
    onQuit: (ev) => rejectAbort(new Abort(ev.t)),
    frames,
  });
  ctx.router = router;
  const hidden = [];
  const onVisibility = () => hidden.push({ time: clock.now(), state: document.visibilityState });
  document.addEventListener("visibilitychange", onVisibility);
  const fullscreenExits = [];
  const onFullscreen = () => {
    if (!document.fullscreenElement) fullscreenExits.push(clock.now());
  };
  document.addEventListener("fullscreenchange", onFullscreen);

  const [form, blockIndices] = recordedForm(proto, meta, s);
  const layoutPuzzle = ctx.puzzle(proto.layout_puzzle);
  const pegRects = stage.pixelRects(boards(layoutPuzzle, proto.display, stage.aspect)[0]);
  if (!meta) {
    meta = newSidecar(proto, s, { clock, refresh: ctx.refresh, stage, pegRects, form, blockIndices });
  } else {
    const previous = meta.status;
    meta.status = "incomplete";
    meta.end_time = null;
    meta.resumes = [...(meta.resumes || []), {
      time: isoNow(), after_row: progress.last_row, previous_status: previous,
      interrupted: progress.interrupted || [], note: resumeNote || "",
      user_agent: navigator.userAgent, refresh_rate_hz: ctx.refresh,
    }];
  }
  meta.frames.trials = ctx.frameTrials;
  const saveMeta = () => {
    meta.rows_written = log.rowsWritten;
    if (s.store.error) meta.storage_error = s.store.error;
    s.store.saveMeta(meta);
  };
  saveMeta();
  if (s.stored) {
    const [b, pid] = progress.interrupted || ["", ""];
    ctx.write("resume", { detail: `after_row=${progress.last_row};interrupted=${b}/${pid}` });
  } else {
    const f = form ? `;form=${form}` : "";
    ctx.write("session_start", { detail: `protocol=${proto.plan.protocol.name};sha256=${proto.plan.protocol.sha256}${f}` });
  }
  saveMeta();

  const recorded = Object.fromEntries((meta.blocks || []).map((b) => [b.name, b.order]));
  const plan = sessionPlan(proto.plan, {
    blocks: blockIndices,
    progress,
    recorded,
    order: (b) => blockOrder(b.problems.length, b.order, b.seed),
  });
  let status = "completed";
  let lastTrial = null;
  try {
    if (s.stored) await readyToContinue(ctx);
    let step = plan.next();
    while (!step.done) {
      const st = step.value;
      let reply;
      if (st.kind === "instructions") {
        await showPages(ctx, ctx.pages);
      } else if (st.kind === "message") {
        await showMessage(ctx, ctx.msg[st.key], st.seconds);
      } else if (st.kind === "block_start") {
        meta.blocks.push({ name: st.block, order: st.order, shuffled: proto.plan.blocks[st.index].order === "shuffled", seed: st.seed ?? null });
        const f = form ? `;form=${form}` : "";
        ctx.write("block_start", { block: st.block, detail: `order=${st.order.join(",")};seed=${st.seed ?? "None"}${f}` });
        saveMeta();
      } else if (st.kind === "problem") {
        reply = await playProblem(ctx, st.problem, st);
        lastTrial = reply.trial;
        saveMeta();
      } else if (st.kind === "copy") {
        await playCopy(ctx, st.problem, { ...st, copyOf: lastTrial });
        saveMeta();
      } else if (st.kind === "discontinue") {
        ctx.write("discontinue", { block: st.block, detail: `after=${st.failures} consecutive failures` });
      }
      step = plan.next(reply);
    }
  } catch (exc) {
    if (!(exc instanceof Abort)) {
      status = "crashed";
      meta.error = `${exc.name}: ${exc.message}`;
      console.error(exc);
    } else {
      status = "aborted";
      ctx.write("abort", { time: exc.t, input: "key" });
    }
  }
  router.close();
  document.removeEventListener("visibilitychange", onVisibility);
  document.removeEventListener("fullscreenchange", onFullscreen);
  if (status !== "crashed") ctx.write("session_end", { reason: status });
  Object.assign(meta.frames, frameSummary(ctx.frameTrials, frames.all));
  meta.timing.input_delay_ms = router.delayStats();
  meta.page = { hidden: [...(meta.page?.hidden || []), ...hidden], fullscreen_exits: [...(meta.page?.fullscreen_exits || []), ...fullscreenExits] };
  meta.status = status;
  meta.end_time = isoNow();
  saveMeta();
  if (document.fullscreenElement && document.exitFullscreen) {
    try {
      await document.exitFullscreen();
    } catch {
      // already left
    }
  }
  return finish(root, proto, settings, s, log, meta, ctx.msg);
}

function recordedForm(proto, meta, s) {
  const names = proto.plan.blocks.map((b) => b.name);
  if (meta && meta.counterbalance) {
    return [meta.counterbalance.form, meta.counterbalance.blocks.map((b) => names.indexOf(b))];
  }
  return formFor(proto.plan.counterbalance, names, s.participant, s.session);
}

/**
 * A new session's sidecar: the one tol-web build made through the sidecar model
 * (every key of it, the protocol's copy, the recorder), filled in for this session.
 */
function newSidecar(proto, s, { clock, refresh, stage, pegRects, form, blockIndices }) {
  const stem = `${s.participant}_${proto.plan.protocol.name}_${dateStr()}`;
  const names = proto.plan.blocks.map((b) => b.name);
  const cb = proto.plan.counterbalance;
  const meta = JSON.parse(JSON.stringify(proto.sidecar));
  return Object.assign(meta, {
    event_log: `${stem}.csv`,
    event_log_version: EVENT_LOG_VERSION,
    status: "incomplete",
    participant: s.participant,
    session: s.session,
    extra_fields: s.fields,
    language: s.language,
    instruction_pages: proto.languages[s.language].pages.map((p) => p.text),
    start_time: isoNow(),
    end_time: null,
    software: { ...meta.software, jspsych: JSPSYCH_VERSION, user_agent: navigator.userAgent },
    screen: {
      index: 0,
      size: [screen.width, screen.height],
      available_size: [screen.availWidth, screen.availHeight],
      device_pixel_ratio: devicePixelRatio,
      color_depth: screen.colorDepth,
    },
    window: {
      size: [stage.W, stage.H],
      position: null,
      fullscreen: !!document.fullscreenElement,
      units: "CSS pixels (1 height unit = the stage's height)",
      owner: "tol-web",
      viewport: [innerWidth, innerHeight],
      fullscreen_requested: proto.display.fullscreen,
      page: location.origin + location.pathname,
    },
    refresh_rate_hz: refresh,
    timing: {
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
    },
    frames: { trials: [] },
    layout: { puzzle: proto.layout_puzzle, pegs: pegRects, coordinates: "CSS pixels from the stage's top-left" },
    blocks: [],
    counterbalance: cb ? { by: cb.by, form, blocks: blockIndices.map((i) => names[i]) } : null,
    resumes: [],
    url_parameters: s.params,
    rows_written: 0,
  });
}

/** The texts of the last page, kept in the summary so that it can be drawn again. */
const END_TEXTS = ["data_downloaded", "data_not_sent"];

function pick(obj, keys) {
  return Object.fromEntries(keys.map((k) => [k, obj[k]]));
}

async function finish(root, proto, settings, s, log, meta, msg) {
  const files = {
    participant: s.participant,
    session: s.session,
    csvName: meta.event_log,
    csv: log.text(),
    jsonName: meta.event_log.replace(/\.csv$/, ".json"),
  };
  meta.saved = { method: null, time: isoNow() };
  const method = globalThis.jatos ? "jatos" : settings.post_url ? "post" : "download";
  meta.saved.method = method;
  files.json = JSON.stringify(meta, null, 2) + "\n";
  s.store.saveMeta(meta);
  const result = await deliver(files, settings);
  if (!result.error && method !== "download") s.store.remove(); // the server holds them now
  const summary = {
    status: meta.status,
    saved: method,
    error: result.error,
    event_log_name: files.csvName,
    event_log: files.csv,
    sidecar_name: files.jsonName,
    sidecar: files.json,
    end_text: msg.end,
    messages: pick(msg, END_TEXTS),
  };
  endPage(root, summary, msg);
  if (!result.error) {
    if (settings.completion_url) {
      const target = fill(settings.completion_url, s.params);
      if (globalThis.jatos && globalThis.jatos.endStudyAndRedirect) globalThis.jatos.endStudyAndRedirect(target);
      else setTimeout(() => location.assign(target), 1500);
    } else if (globalThis.jatos && globalThis.jatos.endStudy) {
      globalThis.jatos.endStudy();
    }
  }
  return summary;
}

/**
 * The last page: the end text, and links to both files when they were
 * downloaded (in case the browser blocked one) or could not be sent. The
 * page's <html> element says how the session ended (data-tol-status,
 * data-tol-saved), for automation.
 */
export function endPage(root, summary, msg = summary.messages) {
  const page = showScreen(root, element("p", { className: "tol-end" }, summary.end_text));
  const links = () => [
    downloadLink(summary.event_log_name, summary.event_log, "text/csv"),
    downloadLink(summary.sidecar_name, summary.sidecar, "application/json"),
  ];
  if (summary.error) {
    page.append(
      element("p", { className: "tol-form-error", role: "alert" }, fill(msg.data_not_sent, { error: summary.error })),
      ...links(),
    );
  } else if (summary.saved === "download") {
    page.append(element("p", {}, msg.data_downloaded), ...links());
  } else if (summary.saved === "stored") {
    page.append(...links());
  }
  document.documentElement.dataset.tolStatus = summary.status;
  document.documentElement.dataset.tolSaved = summary.error ? "failed" : summary.saved;
}

/** A session this browser already finished: its files again, never a second run. */
function completedPage(root, stored, msg) {
  const summary = {
    status: stored.meta.status,
    saved: "stored",
    error: null,
    event_log_name: stored.meta.event_log,
    event_log: logText(stored.lines),
    sidecar_name: stored.meta.event_log.replace(/\.csv$/, ".json"),
    sidecar: JSON.stringify(stored.meta, null, 2) + "\n",
    end_text: msg.already_finished,
    messages: pick(msg, END_TEXTS),
  };
  endPage(root, summary, msg);
  return summary;
}

/** ?recover: every session kept in this browser for this site, with its files. */
function recoveryPage(root) {
  const items = SessionStore.list();
  const list = element("ul", { className: "tol-recover" });
  for (const { key, meta } of items) {
    const lines = storedLines(key);
    const csv = logText(lines);
    const li = element("li", {}, `${meta.participant}, session ${meta.session}, ${meta.protocol?.name} (${meta.status}, ${lines.length} rows): `);
    li.append(
      downloadLink(meta.event_log, csv, "text/csv"),
      document.createTextNode(" "),
      downloadLink(meta.event_log.replace(/\.csv$/, ".json"), JSON.stringify({ ...meta, rows_written: lines.length }, null, 2) + "\n", "application/json"),
    );
    list.appendChild(li);
  }
  showScreen(root, element("h1", {}, "Sessions kept in this browser"), items.length ? list : element("p", {}, "None."));
  return { status: "recovery", saved: null, error: null };
}
