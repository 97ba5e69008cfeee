// The page's own screens around the task: what cannot go on, the form that
// asks for the participant id, the start button, the notices at the top.

import { checkParticipant } from "./params.js";
import { fill } from "./trialrun.js";

export function element(tag, props = {}, text = null) {
  const el = document.createElement(tag);
  Object.assign(el, props);
  if (text !== null) el.textContent = text;
  return el;
}

export function showScreen(root, ...children) {
  root.replaceChildren();
  const el = document.createElement("div");
  el.className = "tol-screen";
  el.append(...children);
  root.appendChild(el);
  return el;
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

/**
 * Ask for the participant id (and the protocol's participant fields), with
 * the task's title and texts in `language`; resolves {participant, fields}.
 */
export function askParticipant(root, proto, { given, fields, problem, msg, language }) {
  return new Promise((resolve) => {
    const form = element("form", { className: "tol-form" });
    const title = element("h1", {}, proto.languages[language].title);
    const inputs = {};
    const row = (name, label, value) => {
      const id = `tol-field-${name}`;
      const lab = element("label", { htmlFor: id }, label);
      const input = element("input", { id, name, value: value ?? "", autocomplete: "off" });
      inputs[name] = input;
      form.append(lab, input);
    };
    row("participant", msg.participant_label, given || "");
    for (const [name, value] of Object.entries(fields)) row(name, name, value);
    const note = element("p", { className: "tol-form-error", role: "alert" }, problem || "");
    const go = element("button", { type: "submit" }, msg.ok_button);
    form.append(note, go);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const id = inputs.participant.value.trim();
      if (!checkParticipant(proto, id)) {
        note.textContent = fill(msg.participant_invalid, { id });
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

/**
 * A notice at the top of the page (`kind`: "pilot", shown on every screen but
 * the task's; "storage", shown at once, the task's too, until the participant
 * closes it with `dismiss`, a button's label). Read out by screen readers.
 */
export function notice(text, kind, dismiss = null) {
  const id = `tol-notice-${kind}`;
  if (document.getElementById(id)) return;
  const el = element("div", { id, className: "tol-banner" }, text);
  el.setAttribute("role", kind === "pilot" ? "note" : "alert");
  el.dataset.notice = kind;
  if (dismiss) {
    const ok = element("button", { type: "button", className: "tol-banner-ok" }, dismiss);
    ok.addEventListener("click", () => el.remove(), { once: true });
    el.append(" ", ok);
  }
  document.body.prepend(el);
}

/** The start button: a user gesture, which full screen needs. */
export function waitForStart(root, label) {
  return new Promise((resolve) => {
    const button = element("button", { type: "button", className: "tol-start" }, label);
    button.dataset.start = "";
    button.addEventListener("click", () => resolve(), { once: true });
    showScreen(root, button);
    button.focus();
  });
}
