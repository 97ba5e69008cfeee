// A whole protocol in the browser, as tol-run runs it in the lab: the
// participant from the URL (or asked for), then the session driver
// (driver.js: plan, trials, log, sidecar) on the page's display (front.js),
// every row kept in the browser's storage as it is written, a reload
// continuing at the first unfinished problem after a `resume` row, and at the
// end the event log and its sidecar handed over (JATOS, POST or download).

import { SessionDriver } from "./driver.js";
import { END_TEXTS, completedPage, endPage, pick, recoveryPage } from "./endpages.js";
import { PageDisplay } from "./front.js";
import { SETTINGS_DEFAULTS, sessionRequest, urlParameters } from "./params.js";
import { deliver } from "./save.js";
import { askParticipant, stop, waitForStart } from "./screens.js";
import { SessionStore } from "./storage.js";
import { injectStyle } from "./style.js";
import { isoNow } from "./timefmt.js";
import { fill } from "./trialrun.js";
import { COMPILED_FORMAT } from "./version.js";

/** Why `proto` cannot be played by this page, or null. */
export function compiledFormatProblem(proto) {
  if (proto && proto.compiled_format === COMPILED_FORMAT) return null;
  const found = proto ? proto.compiled_format : undefined;
  return `protocol.json is of compiled format ${found} (${proto?.compiled_by || "unknown"}); this page reads format ${COMPILED_FORMAT}. Build the folder again with one tol-tasks (tol-web build), so that the page and protocol.json come from the same release.`;
}

/**
 * Run the protocol `proto` (protocol.json, compiled by tol-web build) in `root`.
 * Resolves with a summary once the files were handed over (or the page stopped).
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
  const { language, session, fields } = asked;
  let participant = asked.participant;
  if (!asked.participantOk) {
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
  const who = { participant, session, language, fields, params };
  const driver = new SessionDriver(proto, who, {
    stored,
    onRow: (line, row) => store.appendRow(line, row),
    onCheckpoint: (meta) => {
      if (store.error) meta.storage_error = store.error;
      store.saveMeta(meta);
    },
  });
  const { meta, log } = await driver.run(new PageDisplay(root, proto, language));
  return finish(root, settings, { who, store, log, meta, msg });
}

async function finish(root, settings, { who, store, log, meta, msg }) {
  const files = {
    participant: who.participant,
    session: who.session,
    csvName: meta.event_log,
    csv: log.text(),
    jsonName: meta.event_log.replace(/\.csv$/, ".json"),
  };
  meta.saved = { method: null, time: isoNow() };
  const method = globalThis.jatos ? "jatos" : settings.post_url ? "post" : "download";
  meta.saved.method = method;
  files.json = JSON.stringify(meta, null, 2) + "\n";
  store.saveMeta(meta);
  const result = await deliver(files, settings);
  if (!result.error && method !== "download") store.remove(); // the server holds them now
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
      const target = fill(settings.completion_url, who.params);
      if (globalThis.jatos && globalThis.jatos.endStudyAndRedirect) globalThis.jatos.endStudyAndRedirect(target);
      else setTimeout(() => location.assign(target), 1500);
    } else if (globalThis.jatos && globalThis.jatos.endStudy) {
      globalThis.jatos.endStudy();
    }
  }
  return summary;
}
