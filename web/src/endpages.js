// The last pages: saving, a session's end (thanks once the destination holds
// every row; else what to do, a retry and the files), a session this browser
// already finished, and ?recover, every session kept in this browser.

import { logText } from "./eventlog.js";
import { downloadLink } from "./save.js";
import { element, showScreen } from "./screens.js";
import { SessionStore, storedLines } from "./storage.js";
import { fill } from "./trialrun.js";

/** The texts of the last page, kept in the summary so that it can be drawn again. */
export const END_TEXTS = ["data_downloaded", "data_not_sent", "data_saved", "retry_button"];

export function pick(obj, keys) {
  return Object.fromEntries(keys.map((k) => [k, obj[k]]));
}

let retryLast = null; // the retry of the last end page, for a redraw (index.js)

/** While the last piece goes: the participant waits (data-tol-saved="saving"). */
export function savingPage(root, msg) {
  const p = element("p", { className: "tol-saving" }, msg.saving);
  p.setAttribute("role", "status");
  showScreen(root, p);
  document.documentElement.dataset.tolSaved = "saving";
}

/**
 * The last page: the end text and that the answers are saved; or, when they
 * could not be, what to do, a retry button and links to both files. The
 * page's <html> element says how the session ended (data-tol-status,
 * data-tol-saved), for automation.
 */
export function endPage(root, summary, msg = summary.messages, retry = retryLast) {
  retryLast = retry;
  const page = showScreen(root, element("p", { className: "tol-end" }, summary.end_text));
  const links = () => [
    ...(summary.event_log !== null ? [downloadLink(summary.event_log_name, summary.event_log, "text/csv")] : []),
    downloadLink(summary.sidecar_name, summary.sidecar, "application/json"),
  ];
  if (summary.error) {
    page.append(element("p", { className: "tol-form-error", role: "alert" }, fill(msg.data_not_sent, { error: summary.error })));
    if (retry) {
      const again = element("button", { type: "button", className: "tol-retry" }, msg.retry_button);
      again.addEventListener("click", () => retry(), { once: true });
      page.append(again);
    }
    page.append(...links());
  } else if (summary.saved === "download") {
    page.append(element("p", {}, msg.data_downloaded), ...links());
    // A pilot run: the researcher is at the screen; what went wrong with the recording.
    if (summary.warnings && summary.warnings.length) {
      const list = element("ul", { className: "tol-warnings" });
      for (const w of summary.warnings) list.appendChild(element("li", {}, w));
      page.append(list);
    }
  } else if (summary.saved === "stored") {
    page.append(...links());
  } else if (summary.saved && summary.saved !== "delivered") {
    page.append(element("p", { className: "tol-saved" }, msg.data_saved));
  }
  document.documentElement.dataset.tolStatus = summary.status;
  document.documentElement.dataset.tolSaved = summary.error ? "failed" : summary.saved;
}

/** A session this browser already finished: never a second run; its files while they are kept here. */
export function completedPage(root, stored, msg) {
  const delivered = stored.delivered;
  const summary = {
    status: stored.meta.status,
    saved: delivered ? "delivered" : "stored",
    error: null,
    event_log_name: stored.meta.event_log,
    event_log: delivered ? null : logText(stored.lines),
    sidecar_name: stored.meta.event_log.replace(/\.csv$/, ".json"),
    sidecar: JSON.stringify(stored.meta, null, 2) + "\n",
    end_text: delivered ? msg.already_saved : msg.already_finished,
    messages: pick(msg, END_TEXTS),
  };
  endPage(root, summary, msg, null);
  return summary;
}

/** ?recover: every session kept in this browser for this site, with the rows still kept. */
export function recoveryPage(root) {
  const items = SessionStore.list();
  const list = element("ul", { className: "tol-recover" });
  for (const { key, meta, held, delivered } of items) {
    const lines = storedLines(key, held);
    const kept = held ? `rows ${held + 1} to ${held + lines.length} kept here, 1 to ${held} delivered` : `${lines.length} rows`;
    const li = element("li", {}, `${meta.participant}, session ${meta.session}, ${meta.protocol?.name} (${meta.status}, ${delivered ? "delivered" : kept}): `);
    if (!delivered) {
      li.append(
        downloadLink(held ? meta.event_log.replace(/\.csv$/, `_from-row-${held + 1}.csv`) : meta.event_log, logText(lines), "text/csv"),
        document.createTextNode(" "),
        downloadLink(meta.event_log.replace(/\.csv$/, ".json"), JSON.stringify({ ...meta, rows_written: held + lines.length }, null, 2) + "\n", "application/json"),
      );
    }
    list.appendChild(li);
  }
  showScreen(root, element("h1", {}, "Sessions kept in this browser"), items.length ? list : element("p", {}, "None."));
  return { status: "recovery", saved: null, error: null };
}
