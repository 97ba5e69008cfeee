// The event log (its format from the codebook): the columns come from the codebook that the Python
// package ships (tol_tasks/session_data/codebook/events-v3.json), and each
// cell is written as Python's EventLog writes it (csv module, floats with six
// decimals, booleans 1/0, line breaks inside a value turned into spaces).

import codebook from "../../tol_tasks/session_data/codebook/events-v3.json" with { type: "json" };
import { pyFixed } from "./pyformat.js";

export const EVENT_LOG_VERSION = codebook.format_version;
export const COLUMNS = Object.freeze(codebook.columns.map((c) => c.name));
export const EVENTS = Object.freeze(Object.keys(codebook.events));
const FLOAT_COLUMNS = new Set(codebook.columns.filter((c) => c.type === "float").map((c) => c.name));
const KNOWN = new Set(COLUMNS);
const EVENT_SET = new Set(EVENTS);

/** One cell's text, as Python's eventlog._cell writes it. */
export function cellText(column, value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number" && FLOAT_COLUMNS.has(column)) return pyFixed(value, 6);
  return String(value).replace(/\r\n/g, " ").replace(/[\n\r]/g, " ");
}

/** One field as Python's csv.writer quotes it (only when it must). */
export function csvField(text) {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line, newline included. */
export function csvLine(values) {
  return values.map(csvField).join(",") + "\n";
}

export const HEADER = csvLine(COLUMNS);

/**
 * Rows of one session's event log, kept in order.
 *
 * `onRow(line, row)` is called with each new line before write() returns (the
 * session keeps it in the browser's storage there). `lines` continues a
 * resumed log: its rows as stored, the first of them numbered `firstRow`
 * (the rows before it were delivered and are no longer kept in the page).
 */
export class EventLog {
  constructor({ participant, session, onRow = null, lines = [], firstRow = 1 }) {
    this.participant = participant;
    this.session = session;
    this.onRow = onRow;
    this.firstRow = firstRow;
    this.lines = lines.slice();
    this.lastTime = -Infinity; // the latest time of the rows written by this page
  }

  get rowsWritten() {
    return this.firstRow - 1 + this.lines.length;
  }

  /** Whether the page holds every row (else the earlier ones were delivered before a reload). */
  get whole() {
    return this.firstRow === 1;
  }

  /** Row `row`'s line, or null when the page no longer holds it. */
  line(row) {
    return row >= this.firstRow ? this.lines[row - this.firstRow] ?? null : null;
  }

  /** The lines of rows `from` to `to` (those the page holds). */
  slice(from, to = this.rowsWritten) {
    return this.lines.slice(Math.max(0, from - this.firstRow), Math.max(0, to - this.firstRow + 1));
  }

  /** Append one event; unknown columns and events are errors. Returns the row number. */
  write(event, fields = {}) {
    if (!EVENT_SET.has(event)) throw new Error(`${event} is not an event of format ${EVENT_LOG_VERSION}`);
    const unknown = Object.keys(fields).filter((k) => !KNOWN.has(k) && fields[k] != null);
    if (unknown.length) throw new Error(`not event log columns: ${unknown.sort().join(", ")}`);
    const row = this.rowsWritten + 1;
    const values = { ...fields, row, participant: this.participant, session: this.session, event };
    if (typeof fields.time === "number" && !(fields.time <= this.lastTime)) this.lastTime = fields.time;
    const line = csvLine(COLUMNS.map((c) => cellText(c, values[c])));
    this.lines.push(line);
    if (this.onRow) this.onRow(line, row);
    return row;
  }

  /** The whole file: the header and every row. */
  text() {
    return logText(this.lines);
  }
}

/** An event log file from its rows' lines. */
export function logText(lines) {
  return HEADER + lines.join("");
}
