// Where the data go, chosen when the study is built (settings.destination),
// sent as the session goes, not only at its end:
//
//   "server"    pieces of the log POSTed to tol-web serve (settings.upload_url,
//               with the study's token), the upload protocol of
//               tol_tasks/session_data/pieces.py: idempotent (the attempt's id and the
//               rows' numbers; the server answers how many rows it holds),
//               retried with growing waits, the last piece (final) confirmed
//               before the page says thank you;
//   "jatos"     the same pieces appended to the study result
//               (jatos.appendResultData), one JSON line each; tol-import's
//               "jatos" format turns the result export back into logs;
//   "download"  piloting: the two files are downloaded at the end; nothing is
//               collected (the page says so).
//
// After each checkpoint of the session (each trial at least) the rows not yet
// delivered are sent; rows the destination confirms are removed from the
// browser's storage (storage.js). When the page is hidden or closed, what is
// left goes with a keepalive request.

import { rowsOf } from "./csv.js";

/** Version of the upload protocol (tol_tasks/session_data/pieces.py UPLOAD_FORMAT). */
export const UPLOAD_FORMAT = 1;

/** Rows per piece at most (a piece stays well under the server's size limit). */
const ROWS_PER_PIECE = 1000;

/** Waits between tries (s), the last one repeated. */
const BACKOFF = [0.5, 1, 2, 4, 8, 15, 30];

/** How many tries the final piece gets before the participant is told what to do. */
const FINAL_TRIES = 8;

/** A failed request: `permanent` when trying again cannot help. */
export class DeliveryError extends Error {
  constructor(message, { permanent = false, held = null, retryAfter = null } = {}) {
    super(message);
    this.name = "DeliveryError";
    this.permanent = permanent;
    this.held = held;
    this.retryAfter = retryAfter;
  }
}

const sleep = (s) => new Promise((resolve) => setTimeout(resolve, s * 1000));

/**
 * Sends a session's rows as they are written. `log`: the EventLog; `store`:
 * the SessionStore (told what is delivered); `who`: {participant, session};
 * `send(piece, {keepalive})` resolves with the rows the destination holds.
 */
class PieceSender {
  constructor({ log, store, who, attempt }) {
    this.log = log;
    this.store = store;
    this.who = who;
    this.attempt = attempt;
    this.held = store ? store.held : 0;
    this.meta = null;
    this.running = null;
    this.again = false;
    this.error = null; // a permanent refusal: the end page says it
    this.failures = 0;
    this.finishing = false; // the session ended: the background loop gives way to finish()
    this._wake = null;
  }

  /** Wait `s` seconds, or less when finish() needs the line. */
  _pause(s) {
    return Promise.race([sleep(s), new Promise((resolve) => (this._wake = resolve))]);
  }

  _piece(final) {
    const first = this.held + 1;
    const last = Math.min(this.log.rowsWritten, first + ROWS_PER_PIECE - 1);
    const lines = this.log.slice(first, last);
    if (lines.length !== last - first + 1) {
      throw new DeliveryError(`rows ${first} to ${last} are no longer in this page`, { permanent: true });
    }
    const whole = last === this.log.rowsWritten;
    return {
      format: UPLOAD_FORMAT, attempt: this.attempt, participant: this.who.participant,
      session: this.who.session, first_row: first, rows: lines.join(""),
      sidecar: whole ? this.meta : null, final: final && whole,
    };
  }

  _delivered(held) {
    if (held > this.held) {
      this.held = held;
      if (this.store) {
        this.store.delivered(held, (row) => {
          const line = this.log.line(row);
          return line === null ? null : rowsOf([line])[0];
        });
      }
    }
  }

  /** The session is at a checkpoint (`meta`: its sidecar): send what is new, soon. */
  schedule(meta) {
    this.meta = meta;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this._loop(false).finally(() => {
      this.running = null;
    });
  }

  async _loop(final, tries = Infinity) {
    for (let k = 0; k < tries; k++) {
      try {
        do {
          this.again = false;
          const piece = this._piece(final);
          const held = await this.send(piece);
          this._delivered(held);
        } while (this.held < this.log.rowsWritten || this.again);
        this.failures = 0;
        return true;
      } catch (exc) {
        if (exc.held !== null && exc.held !== undefined && exc.held < this.held) {
          this.held = exc.held; // the destination holds fewer rows than it said: send them again
        }
        if (exc.permanent) {
          this.error = exc.message;
          return false;
        }
        this.failures += 1;
        this.lastError = exc.message;
        if (!final && this.finishing) return false;
        await this._pause(exc.retryAfter ?? BACKOFF[Math.min(k, BACKOFF.length - 1)]);
        if (!final && this.finishing) return false;
      }
    }
    return false;
  }

  /**
   * The session ended (`meta`: its final sidecar): deliver every row and have
   * the destination confirm it. Resolves {ok, error}.
   */
  async finish(meta) {
    this.meta = meta;
    this.finishing = true;
    if (this._wake) this._wake();
    if (this.running) await this.running;
    if (this.error) return { ok: false, error: this.error };
    const ok = await this._loop(true, FINAL_TRIES);
    this.finishing = false; // a retry from the last page goes through finish() again
    return ok ? { ok: true, error: null } : { ok: false, error: this.error || this.lastError };
  }

  /** The page is being hidden or closed: what is left goes with a keepalive request. */
  leaving() {
    if (this.held >= this.log.rowsWritten || this.error) return;
    try {
      this.send(this._piece(false), { keepalive: true }).then((held) => this._delivered(held), () => {});
    } catch {
      // the rows stay in storage: the next visit sends them
    }
  }
}

/** Pieces POSTed to tol-web serve. */
export class ServerDelivery extends PieceSender {
  constructor(options, { url, token }) {
    super(options);
    this.method = "server";
    this.url = url;
    this.token = token;
  }

  async send(piece, { keepalive = false } = {}) {
    const body = JSON.stringify(piece);
    let response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${this.token}` },
        body,
        keepalive: keepalive && body.length < 60000,
        cache: "no-store",
      });
    } catch (exc) {
      throw new DeliveryError(`the server cannot be reached (${exc.message})`);
    }
    let answer = {};
    try {
      answer = await response.json();
    } catch {
      // not JSON: a proxy's page
    }
    if (response.ok) return answer.rows_held;
    const held = typeof answer.rows_held === "number" ? answer.rows_held : null;
    const retryAfter = Number(response.headers.get("Retry-After")) || null;
    const why = `${response.status}: ${answer.error || response.statusText}`;
    if (response.status === 409 && held !== null) throw new DeliveryError(why, { held, retryAfter: 0 });
    const permanent = response.status >= 400 && response.status < 500 && ![408, 425, 429].includes(response.status);
    throw new DeliveryError(why, { permanent, held, retryAfter });
  }
}

/** Pieces appended to a JATOS study result (one JSON line each). */
export class JatosDelivery extends PieceSender {
  constructor(options, jatos) {
    super(options);
    this.method = "jatos";
    this.jatos = jatos;
  }

  async send(piece) {
    try {
      await this.jatos.appendResultData(JSON.stringify({ tol_tasks: piece }) + "\n");
    } catch (exc) {
      throw new DeliveryError(`JATOS: ${exc && exc.message ? exc.message : exc}`);
    }
    return piece.first_row + piece.rows.split("\n").length - 2;
  }
}

/** Piloting: nothing is sent; the files are downloaded at the end. */
export class DownloadDelivery {
  constructor() {
    this.method = "download";
    this.error = null;
    this.held = 0;
  }

  schedule() {}

  leaving() {}

  async finish() {
    return { ok: true, error: null };
  }
}

/** The delivery a built page's settings ask for (see tol_tasks/web/build.py WebSettings). */
export function deliveryFor(settings, options) {
  if (settings.destination === "server") return new ServerDelivery(options, { url: settings.upload_url, token: settings.token });
  if (settings.destination === "jatos") {
    if (!globalThis.jatos) throw new Error("this page was built for JATOS (--jatos): open it from a JATOS study");
    return new JatosDelivery(options, globalThis.jatos);
  }
  return new DownloadDelivery();
}
