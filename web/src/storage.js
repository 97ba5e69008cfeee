// Every row kept in the browser's storage as it is written, until the data's
// destination holds it (localStorage: one item per row, so that writing stays
// cheap however long the session), with the sidecar beside it. A reload finds
// the session there and continues it.
//
// Keys are per session attempt (an attempt: one event log, drawn when the
// session starts and kept across reloads), so that nothing can overwrite
// another attempt's rows:
//   tol-tasks/2/session/<protocol sha256>/<participant>/<session>  the attempt id
//   tol-tasks/2/attempt/<id>/meta     {meta: sidecar, held, digest, not_stored}
//   tol-tasks/2/attempt/<id>/row/<n>  row n's line, until it is delivered
// Once the destination confirms rows (held), their items are removed and
// what a resume needs of them is kept in `digest` (the rows that say where
// the session stands: trial onsets and ends, copy ends, discontinues, and the
// last row).
// A finished, delivered session keeps only its meta, so that the link shows
// "already finished" instead of starting again.
//
// Storage cannot fail silently: a write that fails is tried again after
// removing what was already delivered (other attempts' finished sessions,
// format-1 leftovers of sessions that were delivered); if it still fails, the
// session goes on in memory (every row is delivered from there), `onFull` is
// called once (the page tells the participant), and the sidecar counts the
// rows that could not be stored.

const PREFIX = "tol-tasks/2";
const OLD_PREFIX = "tol-tasks/1/";

/** A new session attempt's id: 16 random bytes, URL-safe base64 (22 characters). */
export function newAttemptId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The fields of a row that a resume reads (plan.js progressOf), for rows no longer stored. */
const DIGEST_EVENTS = new Set(["trial_onset", "trial_end", "discontinue", "copy_end", "planning_onset", "planning_end"]);
const DIGEST_FIELDS = ["row", "time", "trial", "event", "block", "problem_id", "reason"];

function digestOf(row) {
  return Object.fromEntries(DIGEST_FIELDS.map((k) => [k, row[k]]));
}

export class SessionStore {
  /** The stored sessions of one protocol (by SHA-256), participant and session number. */
  constructor(sha256, participant, session, { storage = globalThis.localStorage, onFull = null } = {}) {
    this.sessionKey = `${PREFIX}/session/${sha256}/${participant}/${session}`;
    this.storage = storage;
    this.onFull = onFull;
    this.attempt = null;
    this.held = 0; // rows the destination holds (no longer stored here)
    this.digest = []; // what a resume needs of them
    this.meta = null;
    this.error = null; // why storage failed, if it did (the session goes on in memory)
    this.notStored = 0; // rows that could not be stored
    this.cleared = 0; // items removed to make room
  }

  _key(...parts) {
    return [`${PREFIX}/attempt/${this.attempt}`, ...parts].join("/");
  }

  /** Write an item; on failure make room and try again; else note it (never silently). */
  _set(key, value) {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        this.storage.setItem(key, value);
        return true;
      } catch (exc) {
        if (attempt === 0 && this.freeSpace() > 0) continue;
        if (!this.error) {
          this.error = `${exc.name}: ${exc.message}`;
          if (this.onFull) this.onFull(this.error);
        }
        return false;
      }
    }
    return false;
  }

  /**
   * Remove what was already delivered: other attempts' finished and delivered
   * sessions (their markers) and the format-1 items of sessions that were
   * handed to a server. Returns the number of items removed.
   */
  freeSpace() {
    const remove = [];
    try {
      for (let i = 0; i < this.storage.length; i++) {
        const k = this.storage.key(i);
        if (k.startsWith(`${PREFIX}/attempt/`) && k.endsWith("/meta") && !k.includes(`/${this.attempt}/`)) {
          const item = JSON.parse(this.storage.getItem(k));
          if (item && item.delivered) remove.push(k);
        }
      }
    } catch {
      return 0;
    }
    remove.forEach((k) => this.storage.removeItem(k));
    this.cleared += remove.length;
    return remove.length;
  }

  /** The stored session: {attempt, meta, lines, firstRow, digest, delivered}, or null. */
  load() {
    let item;
    try {
      this.attempt = this.storage.getItem(this.sessionKey);
      if (!this.attempt) return null;
      item = JSON.parse(this.storage.getItem(this._key("meta")));
    } catch {
      return null;
    }
    if (!item || !item.meta) return null;
    this.meta = item.meta;
    this.held = item.held || 0;
    this.digest = item.digest || [];
    this.notStored = item.not_stored || 0;
    const lines = [];
    for (let row = this.held + 1; ; row++) {
      const line = this.storage.getItem(this._key("row", row));
      if (line === null) break;
      lines.push(line);
    }
    return { attempt: this.attempt, meta: item.meta, lines, firstRow: this.held + 1, digest: this.digest, delivered: !!item.delivered };
  }

  /** A new attempt of the session (its id stored as the session's current one). */
  begin() {
    this.attempt = newAttemptId();
    this.held = 0;
    this.digest = [];
    this._set(this.sessionKey, this.attempt);
    return this.attempt;
  }

  _saveItem(extra = {}) {
    const item = { meta: this.meta, held: this.held, digest: this.digest, not_stored: this.notStored, ...extra };
    return this._set(this._key("meta"), JSON.stringify(item));
  }

  saveMeta(meta) {
    this.meta = meta;
    this._saveItem();
  }

  appendRow(line, row) {
    if (!this._set(this._key("row", row), line)) this.notStored += 1;
  }

  /**
   * The destination holds rows up to `held`: their items go, what a resume
   * needs of them stays in the digest. `rowAt(n)` gives row n as an object of
   * column -> text.
   */
  delivered(held, rowAt) {
    if (held <= this.held) return;
    for (let row = this.held + 1; row <= held; row++) {
      const r = rowAt(row);
      if (r && (DIGEST_EVENTS.has(r.event) || row === held)) {
        if (this.digest.length && !DIGEST_EVENTS.has(this.digest[this.digest.length - 1].event)) this.digest.pop();
        this.digest.push(digestOf(r));
      }
    }
    // The delivered rows go first (room for the record of them, when storage is full).
    for (let row = this.held + 1; row <= held; row++) {
      try {
        this.storage.removeItem(this._key("row", row));
      } catch {
        // nothing stored, nothing to remove
      }
    }
    this.held = held;
    this._saveItem();
  }

  /** The whole session is delivered: only a marker stays (the link then says "already finished"). */
  finished(meta) {
    this.meta = { ...meta };
    const rows = meta.rows_written;
    this.held = rows;
    this._saveItem({ delivered: true });
    for (let row = 1; row <= rows; row++) {
      try {
        this.storage.removeItem(this._key("row", row));
      } catch {
        // gone already
      }
    }
  }

  /** Every session stored on this page's origin: [{key, meta, held, delivered}]. */
  static list(storage = globalThis.localStorage) {
    const out = [];
    for (let i = 0; i < storage.length; i++) {
      const k = storage.key(i);
      if (k.startsWith(`${PREFIX}/attempt/`) && k.endsWith("/meta")) {
        try {
          const item = JSON.parse(storage.getItem(k));
          out.push({ key: k.slice(0, -"/meta".length), meta: item.meta, held: item.held || 0, delivered: !!item.delivered });
        } catch {
          // a damaged entry is left alone
        }
      } else if (k.startsWith(OLD_PREFIX) && k.endsWith("/meta")) {
        try {
          out.push({ key: k.slice(0, -"/meta".length), meta: JSON.parse(storage.getItem(k)), held: 0, delivered: false, old: true });
        } catch {
          // a damaged entry is left alone
        }
      }
    }
    return out;
  }
}

/** A stored session's rows still kept here, given its storage key and the rows delivered (recovery page). */
export function storedLines(key, held = 0, storage = globalThis.localStorage) {
  const lines = [];
  for (let row = held + 1; ; row++) {
    const line = storage.getItem(`${key}/row/${row}`);
    if (line === null) return lines;
    lines.push(line);
  }
}
