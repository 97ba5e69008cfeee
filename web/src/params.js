// What the page is asked to run: tol-web build's settings and the URL
// parameters (the participant, the session, the language, the protocol's
// participant fields), each checked before anything starts.

/** tol-web build's settings as the page reads them (tol_tasks/web/build.py WebSettings). */
export const SETTINGS_DEFAULTS = Object.freeze({
  participant_param: "participant", session_param: "session", language_param: "lang",
  session: 1, language: null, completion_url: null,
  destination: "download", upload_url: null, token: null,
});

/** Whether `id` can name a participant: the lab's rule, compiled from Python into the protocol. */
export function checkParticipant(proto, id) {
  return typeof id === "string" && new RegExp(proto.participant_pattern).test(id);
}

/** The session number `text` gives, or null: the lab's rule, compiled from Python into the protocol. */
export function sessionFromText(proto, text) {
  if (typeof text !== "string" || !new RegExp(proto.session_pattern).test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= proto.session_max ? n : null;
}

/** The URL's parameters (JATOS's, when the page runs there). */
export function urlParameters() {
  const jatos = globalThis.jatos;
  if (jatos && jatos.urlQueryParameters) return { ...jatos.urlQueryParameters };
  return Object.fromEntries(new URLSearchParams(globalThis.location ? location.search : ""));
}

/**
 * The session the URL asks for: {language, session, fields, participant
 * (undefined when the URL gives none), participantOk}, or {error} naming the
 * parameter, the value and the fix.
 */
export function sessionRequest(proto, settings, params) {
  const language = params[settings.language_param] || settings.language || proto.default_language;
  if (!proto.languages[language]) {
    return { error: `${settings.language_param}=${language}: this task has no texts in that language. Use one of: ${Object.keys(proto.languages).join(", ")}.` };
  }
  const sessionText = params[settings.session_param];
  const session = sessionText === undefined ? settings.session : sessionFromText(proto, sessionText);
  if (session === null) {
    return { error: `${settings.session_param}=${sessionText}: not a session number. Use a whole number from 1 to ${proto.session_max}, in digits only, e.g. ${settings.session_param}=1.` };
  }
  const fields = {};
  for (const [name, value] of Object.entries(proto.participant_fields)) fields[name] = params[name] ?? value;
  const participant = params[settings.participant_param];
  return { language, session, fields, participant, participantOk: participant !== undefined && checkParticipant(proto, participant) };
}
