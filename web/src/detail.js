// The `detail` column's codec (tol_tasks/session_data/detail.py): extra facts
// of an event as key=value pairs joined by ";", in the order given.

import { pyFixed } from "./pyformat.js";

/**
 * One value as the log writes it: a float with 3 decimals, null as "None",
 * booleans as "True"/"False". JavaScript has no separate float type, so a
 * value meant as a float is passed as `{ float: x }` (an integer-valued float
 * such as 120.0 is then written "120.000", as Python does).
 */
export function formatValue(value) {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "object" && "float" in value) return pyFixed(value.float, 3);
  if (typeof value === "number" && !Number.isInteger(value)) return pyFixed(value, 3);
  return String(value);
}

/** key=value pairs joined by ";" (an object's own keys in insertion order). */
export function formatDetail(pairs) {
  return Object.entries(pairs)
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(";");
}

/** The pairs of a detail cell, as texts; a part without "=" continues the value before it. */
export function parseDetail(text) {
  const out = {};
  let last = null;
  for (const part of text ? text.split(";") : []) {
    const i = part.indexOf("=");
    const key = i >= 0 ? part.slice(0, i) : "";
    if (i >= 0 && /^[A-Za-z0-9_]+$/.test(key)) {
      out[key] = part.slice(i + 1);
      last = key;
    } else if (last !== null) {
      out[last] += ";" + part;
    }
  }
  return out;
}
