// tol-tasks in the browser: the bundle that tol-web build ships (jsPsych inside).
//
//   TolTasks.startExperiment({protocol: "protocol.json", settings})  the built page
//   TolTasks.TowerPlugin, TolTasks.createSession(...)                a researcher's own timeline

import { initJsPsych } from "jspsych";
import { TowerSession } from "./embed.js";
import { TowerPlugin, TowerSessionPlugin } from "./plugin.js";
import { endPage } from "./endpages.js";
import { stop } from "./screens.js";
import { injectStyle } from "./style.js";

export { initJsPsych };
export * from "./lib.js";

/** A TowerSession (see embed.js) for the tower plugin's `session` parameter. */
export function createSession(options) {
  return new TowerSession(options);
}

async function loadProtocol(protocol) {
  if (typeof protocol !== "string") return protocol;
  let response;
  try {
    response = await fetch(protocol);
  } catch (exc) {
    throw new Error(
      `${protocol} could not be read (${exc.message}). A page opened from a file cannot read it: ` +
        "serve the folder with a web server, e.g. python -m http.server --directory <folder>.",
    );
  }
  if (!response.ok) throw new Error(`${protocol}: the server answered ${response.status}.`);
  return response.json();
}

/** Run a built experiment: the protocol (a URL or the compiled object) in one jsPsych trial. */
export async function startExperiment({ protocol, settings = {}, displayElement = null }) {
  injectStyle();
  const jatos = globalThis.jatos;
  if (jatos && typeof jatos.onLoad === "function") await new Promise((resolve) => jatos.onLoad(resolve));
  let proto;
  try {
    proto = await loadProtocol(protocol);
  } catch (exc) {
    const p = document.createElement("p");
    p.className = "tol-screen tol-error";
    p.setAttribute("role", "alert");
    p.textContent = exc.message;
    (displayElement || document.body).appendChild(p);
    return null;
  }
  const jsPsych = initJsPsych({ display_element: displayElement || undefined });
  globalThis.tolTasksJsPsych = jsPsych;
  await jsPsych.run([{ type: TowerSessionPlugin, protocol: proto, settings }]);
  // jsPsych clears its display after the trial: the last page is shown again.
  const summary = jsPsych.data.get().last(1).values()[0];
  if (summary && summary.end_text) endPage(jsPsych.getDisplayElement(), summary);
  else if (summary && summary.error) stop(jsPsych.getDisplayElement(), summary.error);
  return jsPsych;
}

export { TowerPlugin, TowerSession, TowerSessionPlugin };
