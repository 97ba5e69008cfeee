// Event log lines read back into their cells (a resumed session's stored rows).

import { COLUMNS } from "./eventlog.js";

/** A CSV line of the event log back into its cells (the rows as the log writes them). */
export function parseCsvLine(line) {
  const out = [];
  let cur = "";
  let quoted = false;
  const text = line.replace(/\n$/, "");
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Lines of the event log as objects of column -> text. */
export function rowsOf(lines) {
  return lines.map((line) => Object.fromEntries(parseCsvLine(line).map((v, i) => [COLUMNS[i], v])));
}
