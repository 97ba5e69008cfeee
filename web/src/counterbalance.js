// Which counterbalanced form a session gets
// (tol_tasks/protocol_format/counterbalance.py assignment_index). The forms
// and Latin-square orders themselves are compiled by `tol-web build`.

import { sha256Hex } from "./sha256.js";

function mod(a, n) {
  return ((a % n) + n) % n;
}

/** Which of `n` forms a session gets: by session number, or by the participant id. */
export function assignmentIndex(by, participant, session, n) {
  if (by === "session") return mod(session - 1, n);
  const m = /(\d+)$/.exec(participant);
  const big = BigInt(n);
  if (m) return Number((((BigInt(m[1]) - 1n) % big) + big) % big);
  return Number(BigInt("0x" + sha256Hex(participant)) % big);
}

/**
 * The form a session gets and the indices of the blocks it runs, in order
 * (LoadedProtocol.form_for, choose_form). `counterbalance`: null, or the
 * compiled plan's {by, forms: [{name, blocks: [block names]}]}; `names`: every
 * block's name, in file order.
 */
export function formFor(counterbalance, names, participant, session) {
  if (!counterbalance) return [null, names.map((_, i) => i)];
  const { forms, by } = counterbalance;
  const form = forms[assignmentIndex(by, participant, session, forms.length)];
  return [form.name, form.blocks.map((b) => names.indexOf(b))];
}
