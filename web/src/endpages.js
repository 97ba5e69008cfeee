// The last pages: a session's end (with its files when they were downloaded
// or could not be sent), a session this browser already finished, and
// ?recover, every session kept in this browser.

import { logText } from "./eventlog.js";
import { downloadLink } from "./save.js";
import { element, showScreen } from "./screens.js";
import { SessionStore, storedLines } from "./storage.js";
import { fill } from "./trialrun.js";

/** The texts of the last page, kept in the summary so that it can be drawn again. */
export const END_TEXTS = ["data_downloaded", "data_not_sent"];

export function pick(obj, keys) {
  return Object.fromEntries(keys.map((k) => [k, obj[k]]));
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
export function completedPage(root, stored, msg) {
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
export function recoveryPage(root) {
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
