// The page's own screens around the task: what cannot go on, the form that
// asks for the participant id, the start button.

import { checkParticipant } from "./params.js";

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

/** Ask for the participant id (and the protocol's participant fields); resolves {participant, fields}. */
export function askParticipant(root, proto, { given, fields, problem }) {
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
export function waitForStart(root, label) {
  return new Promise((resolve) => {
    const button = element("button", { type: "button", className: "tol-start" }, label);
    button.dataset.start = "";
    button.addEventListener("click", () => resolve(), { once: true });
    showScreen(root, button);
    button.focus();
  });
}
