// Every row kept in the browser's storage as it is written (localStorage: one
// item per row, so that writing stays cheap however long the session), with
// the sidecar beside it. A reload finds the session there and continues it.

const PREFIX = "tol-tasks/1";

export class SessionStore {
  /** The stored session of one protocol (by SHA-256), participant and session number. */
  constructor(sha256, participant, session, storage = globalThis.localStorage) {
    this.key = `${PREFIX}/${sha256}/${participant}/${session}`;
    this.storage = storage;
    this.error = null; // why storage failed, if it did (the session goes on in memory)
  }

  _set(key, value) {
    try {
      this.storage.setItem(key, value);
    } catch (exc) {
      this.error = this.error || `${exc.name}: ${exc.message}`;
    }
  }

  /** The stored sidecar and rows, or null. */
  load() {
    let meta;
    try {
      meta = JSON.parse(this.storage.getItem(`${this.key}/meta`));
    } catch {
      return null;
    }
    if (!meta) return null;
    const lines = [];
    for (let row = 1; ; row++) {
      const line = this.storage.getItem(`${this.key}/row/${row}`);
      if (line === null) break;
      lines.push(line);
    }
    return { meta, lines };
  }

  saveMeta(meta) {
    this._set(`${this.key}/meta`, JSON.stringify(meta));
  }

  appendRow(line, row) {
    this._set(`${this.key}/row/${row}`, line);
  }

  /** Forget the session (once a server has confirmed it holds the files). */
  remove() {
    try {
      const keys = [];
      for (let i = 0; i < this.storage.length; i++) {
        const k = this.storage.key(i);
        if (k === `${this.key}/meta` || k.startsWith(`${this.key}/row/`)) keys.push(k);
      }
      keys.forEach((k) => this.storage.removeItem(k));
    } catch {
      // nothing stored, nothing to remove
    }
  }

  /** Every session stored on this page's origin: [{key, meta}]. */
  static list(storage = globalThis.localStorage) {
    const out = [];
    for (let i = 0; i < storage.length; i++) {
      const k = storage.key(i);
      if (k.startsWith(`${PREFIX}/`) && k.endsWith("/meta")) {
        try {
          out.push({ key: k.slice(0, -"/meta".length), meta: JSON.parse(storage.getItem(k)) });
        } catch {
          // a damaged entry is left alone
        }
      }
    }
    return out;
  }
}

/** A stored session's rows, given its storage key (for the recovery page). */
export function storedLines(key, storage = globalThis.localStorage) {
  const lines = [];
  for (let row = 1; ; row++) {
    const line = storage.getItem(`${key}/row/${row}`);
    if (line === null) return lines;
    lines.push(line);
  }
}
