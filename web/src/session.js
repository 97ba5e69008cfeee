// A whole protocol in the browser, as tol-run runs it in the lab: the
// participant from the URL (or asked for), one tab per session (tablock.js),
// then the session driver (driver.js: plan, trials, log, sidecar) on the
// page's display (front.js), every row kept in the browser's storage as it
// is written (storage.js) and sent to the study's destination as the session
// goes (delivery.js), a reload continuing at the first unfinished problem
// after a `resume` row, and at the end the last piece confirmed before the
// page thanks the participant.

import { SessionDriver } from "./driver.js";
import { deliveryFor } from "./delivery.js";
import { END_TEXTS, completedPage, endPage, pick, recoveryPage, savingPage } from "./endpages.js";
import { EventLog } from "./eventlog.js";
import { PageDisplay } from "./front.js";
import { SETTINGS_DEFAULTS, sessionRequest, urlParameters } from "./params.js";
import { download } from "./save.js";
import { askParticipant, notice, stop, waitForStart } from "./screens.js";
import { SessionStore } from "./storage.js";
import { injectStyle } from "./style.js";
import { claimSession } from "./tablock.js";
import { runWarnings } from "./quality.js";
import { isoNow } from "./timefmt.js";
import { fill } from "./trialrun.js";
import { COMPILED_FORMAT } from "./version.js";

/** Why `proto` cannot be played by this page, or null. */
export function compiledFormatProblem(proto) {
  if (proto && proto.compiled_format === COMPILED_FORMAT) return null;
  const found = proto ? proto.compiled_format : undefined;
  return `protocol.json is of compiled format ${found} (${proto?.compiled_by || "unknown"}); this page reads format ${COMPILED_FORMAT}. Build the folder again with one tol-tasks (tol-web build), so that the page and protocol.json come from the same release.`;
}

/** The participant: from the URL, from JATOS (its worker), else asked for. */
async function participantOf(root, proto, asked, msg, language) {
  let participant = asked.participant;
  const fields = { ...asked.fields };
  if (asked.participantOk) return { participant, fields };
  const jatos = globalThis.jatos;
  if (participant === undefined && jatos && jatos.workerId !== undefined) {
    participant = String(jatos.workerId);
    if (new RegExp(proto.participant_pattern).test(participant)) return { participant, fields };
  }
  const problem = participant === undefined ? "" : fill(msg.participant_from_address, { id: participant });
  const answer = await askParticipant(root, proto, { given: participant, fields, problem, msg, language });
  return { participant: answer.participant, fields: { ...fields, ...answer.fields } };
}

/** The form a new session gets from JATOS's batch session (counterbalanced across participants), or null. */
async function batchForm(proto) {
  const jatos = globalThis.jatos;
  const cb = proto.plan.counterbalance;
  if (!cb || cb.by !== "participant" || !jatos || !jatos.batchSession) return null;
  const key = `tol-tasks/forms/${proto.plan.protocol.sha256}`;
  for (let tries = 0; tries < 5; tries++) {
    const next = Number(jatos.batchSession.get(key) || 0);
    try {
      await jatos.batchSession.set(key, next + 1);
      return next % cb.forms.length;
    } catch {
      // another participant took it at the same moment: read again
    }
  }
  return null;
}

/**
 * Run the protocol `proto` (protocol.json, compiled by tol-web build) in `root`.
 * Resolves with a summary once the data were handed over (or the page stopped).
 */
export async function runSession(root, proto, settings = {}) {
  injectStyle();
  settings = { ...SETTINGS_DEFAULTS, ...settings };
  const wrong = compiledFormatProblem(proto);
  if (wrong) return stop(root, wrong);
  const params = urlParameters();
  if (params.recover !== undefined) return recoveryPage(root);
  const asked = sessionRequest(proto, settings, params);
  if (asked.error) return stop(root, asked.error);
  const { language, session } = asked;
  document.documentElement.lang = language;
  const msg = proto.languages[language].messages;
  if (settings.destination === "download") notice(msg.pilot_notice, "pilot");
  const { participant, fields } = await participantOf(root, proto, asked, msg, language);
  const sha = proto.plan.protocol.sha256;
  const store = new SessionStore(sha, participant, session, { onFull: () => notice(msg.storage_full, "storage", msg.ok_button) });
  const done = store.load();
  const who = { participant, session, language, fields, params };
  if (done && done.meta.status === "completed") {
    if (done.delivered || settings.destination === "download") return completedPage(root, done, msg);
    // Finished but never confirmed (the page was closed on its last screen): deliver it now.
    const log = new EventLog({ participant, session, lines: done.lines, firstRow: done.firstRow });
    const delivery = deliveryFor(settings, { log, store, who, attempt: store.attempt });
    return finish(root, settings, { who, store, log, meta: done.meta, msg, delivery, release: () => {}, proto });
  }
  const release = await claimSession(`${sha}/${participant}/${session}`);
  if (!release) {
    const summary = stop(root, msg.open_elsewhere);
    document.documentElement.dataset.tolStatus = "elsewhere";
    return summary;
  }
  const stored = store.load(); // again: another tab may have written it meanwhile
  // As tol-run --resume: any session but a completed one continues (aborted and crashed too).
  if (stored && stored.meta.status === "completed") {
    release();
    return completedPage(root, stored, msg);
  }
  if (!stored) store.begin();
  const assigned = stored ? null : await batchForm(proto);
  await waitForStart(root, stored ? msg.continue_button : msg.start_button);
  if (proto.display.fullscreen && document.documentElement.requestFullscreen) {
    try {
      await document.documentElement.requestFullscreen();
    } catch {
      // refused (e.g. in an iframe without permission): the session runs in the window
    }
  }
  let delivery = null;
  const driver = new SessionDriver(proto, who, {
    stored,
    assigned,
    onRow: (line, row) => store.appendRow(line, row),
    onCheckpoint: (meta) => {
      meta.delivery = { method: settings.destination, attempt_id: store.attempt };
      if (store.error) meta.storage_error = store.error;
      meta.rows_not_stored = store.notStored;
      store.saveMeta(meta);
      delivery.schedule(meta);
    },
  });
  delivery = deliveryFor(settings, { log: driver.log, store, who, attempt: store.attempt });
  const leaving = () => delivery.leaving();
  addEventListener("pagehide", leaving);
  const hidden = () => document.visibilityState === "hidden" && leaving();
  document.addEventListener("visibilitychange", hidden);
  const { meta, log } = await driver.run(new PageDisplay(root, proto, language));
  return finish(root, settings, { who, store, log, meta, msg, delivery, release, proto });
}

/** Deliver the last piece (confirmed), then the end page; a failure says what to do and can be retried. */
async function finish(root, settings, { who, store, log, meta, msg, delivery, release, proto }) {
  meta.saved = { method: delivery.method, time: isoNow() };
  store.saveMeta(meta);
  const files = {
    event_log_name: meta.event_log,
    event_log: log.whole ? log.text() : null,
    sidecar_name: meta.event_log.replace(/\.csv$/, ".json"),
    sidecar: JSON.stringify(meta, null, 2) + "\n",
  };
  const attempt = async () => {
    savingPage(root, msg);
    const result = await delivery.finish(meta);
    if (result.ok && delivery.method === "download") {
      download(files.event_log_name, files.event_log, "text/csv");
      download(files.sidecar_name, files.sidecar, "application/json");
    } else if (result.ok) {
      store.finished(meta); // the destination holds every row now
    }
    if (result.ok) release(); // another tab may now show that the session is finished
    const summary = {
      status: meta.status, saved: delivery.method, error: result.error, ...files,
      end_text: msg.end, messages: pick(msg, END_TEXTS),
      // What the researcher should know about the recording (quality.js), in the data.
      warnings: runWarnings(meta, proto.display.refresh_rate, meta.language),
    };
    endPage(root, summary, msg, result.ok ? null : attempt);
    if (result.ok) leave(settings, who);
    return summary;
  };
  return attempt();
}

/** After the data are saved: the completion link (Prolific, SONA), or JATOS's end. */
function leave(settings, who) {
  const jatos = globalThis.jatos;
  if (settings.completion_url) {
    const target = fill(settings.completion_url, who.params);
    if (jatos && jatos.endStudyAndRedirect) jatos.endStudyAndRedirect(target);
    else setTimeout(() => location.assign(target), 1500);
  } else if (jatos && jatos.endStudy) {
    jatos.endStudy();
  }
}
