// Where the files go at the end: to JATOS when the page runs there, to the
// URL given at build time (POST), or downloaded by the browser.

/** Download `text` as a file called `name`. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.textContent = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/** A link that downloads `text` again (shown on the last page, in case a download was blocked). */
export function downloadLink(name, text, type) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.textContent = name;
  a.className = "tol-download";
  return a;
}

async function post(url, body, tries = 4) {
  let last = null;
  for (let k = 0; k < tries; k++) {
    try {
      const r = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      if (r.ok) return null;
      last = `${url} answered ${r.status} ${r.statusText}`;
    } catch (exc) {
      last = `${url}: ${exc.message}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** k));
  }
  return last;
}

/**
 * Hand over the event log and the sidecar.
 * files: {csvName, csv, jsonName, json}. Returns {method, error} (error null when done).
 */
export async function deliver(files, settings) {
  const jatos = globalThis.jatos;
  if (jatos && typeof jatos.uploadResultFile === "function") {
    try {
      await jatos.uploadResultFile(files.csv, files.csvName);
      await jatos.uploadResultFile(files.json, files.jsonName);
      await jatos.submitResultData(files.csv);
      return { method: "jatos", error: null };
    } catch (exc) {
      return { method: "jatos", error: `JATOS: ${exc && exc.message ? exc.message : exc}` };
    }
  }
  if (settings.post_url) {
    const error = await post(settings.post_url, {
      participant: files.participant,
      session: files.session,
      event_log: { name: files.csvName, text: files.csv },
      sidecar: { name: files.jsonName, text: files.json },
    });
    return { method: "post", error };
  }
  download(files.csvName, files.csv, "text/csv");
  download(files.jsonName, files.json, "application/json");
  return { method: "download", error: null };
}
