// Times as the lab writes them in file names and sidecars.

/** PsychoPy's data.getDateStr() form, e.g. 2026-11-22_14h03.07.123 (tol_tasks/runner/files.py). */
export function dateStr(d = new Date()) {
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}_${p(d.getHours())}h${p(d.getMinutes())}.${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** Local time as Python's time.strftime("%Y-%m-%dT%H:%M:%S%z"). */
export function isoNow(d = new Date()) {
  const p = (n) => String(n).padStart(2, "0");
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const a = Math.abs(off);
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${sign}${p(Math.floor(a / 60))}${p(a % 60)}`;
}
