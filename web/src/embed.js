// The tower task inside a researcher's own jsPsych timeline: a TowerSession
// gathers the rows of every tower trial into one event log (session_start at
// the first problem, a block_start per block, session_end at the end), kept
// in the browser's storage as they are written, exactly as
// TowerTask.run_problem does in a PsychoPy experiment.

import { EVENT_LOG_VERSION, EventLog } from "./eventlog.js";
import { frameSummary } from "./frames.js";
import { FrameRecorder, SessionClock } from "./runtime.js";
import { inTimeOrder } from "./trialrun.js";
import { deliveryFor } from "./delivery.js";
import { download } from "./save.js";
import { dateStr, isoNow } from "./timefmt.js";
import { sha256Hex } from "./sha256.js";
import { SessionStore, newAttemptId } from "./storage.js";
import { JSPSYCH_VERSION, VERSION } from "./version.js";

export class TowerSession {
  /**
   * @param {object} o
   *   participant (required), session (1), name ("tower": the protocol column and
   *   file names), keep (true: every row in localStorage too), destination: where
   *   save() hands the log ("download", the default; "jatos"; or "server" with
   *   upload_url and token, the address and token of a study on tol-web serve).
   */
  constructor({ participant, session = 1, name = "tower", keep = true, destination = null, upload_url = null, token = null }) {
    if (!participant) throw new Error("TowerSession needs a participant id");
    this.participant = participant;
    this.session = session;
    this.name = name;
    const dest = destination || (globalThis.jatos ? "jatos" : "download");
    this.settings = { destination: dest, upload_url, token };
    this.clock = null;
    this.trialNo = 0;
    this.frameTrials = [];
    this.frames = new FrameRecorder();
    this.status = null;
    this.store = keep ? new SessionStore(`embedded-${name}`, participant, `${session}-${dateStr()}`) : null;
    this.attempt = this.store ? this.store.begin() : newAttemptId();
    this.log = new EventLog({
      participant,
      session,
      onRow: (line, row) => this.store && this.store.appendRow(line, row),
    });
  }

  /** Open the session at its first problem: its clock starts and session_start is written. */
  open() {
    if (this.clock) return;
    this.clock = SessionClock.startingNow();
    // The keys of the sidecar model (tol_tasks/session_data/sidecar.py, version 4).
    this.meta = {
      sidecar_version: 4,
      recorder: { name: "tol-web TowerPlugin", version: VERSION, runtime: "browser" },
      source: null,
      unavailable: [],
      event_log: `${this.participant}_${this.name}_${dateStr()}.csv`,
      event_log_version: EVENT_LOG_VERSION,
      status: "incomplete",
      participant: this.participant,
      session: this.session,
      session_attempt: null,
      earlier_attempts: [],
      extra_fields: {},
      start_time: isoNow(),
      end_time: null,
      language: null,
      instruction_pages: [],
      // No protocol file: each problem is given in the timeline (its rows say which).
      protocol: { name: this.name, version: null, path: null, sha256: sha256Hex(""), text: "" },
      software: { tol_tasks: VERSION, jspsych: JSPSYCH_VERSION, user_agent: navigator.userAgent },
      screen: { index: 0, size: [screen.width, screen.height], device_pixel_ratio: devicePixelRatio },
      window: null,
      refresh_rate_hz: null,
      timing: {
        clock: "the page's high-resolution clock; session time = (performance.timeOrigin + stamp - clock_zero) / 1000",
        clock_function: "performance.timeOrigin + performance.now() (milliseconds since the epoch)",
        clock_zero: this.clock.zero,
        input_method: "browser-event-timestamp",
        input_fallback_reason: null,
        unmatched_presses: 0,
        input_lost: null,
        expected_resolution_s: 0.0001,
        trial_onset: "the requestAnimationFrame timestamp of the frame that first showed the problem",
      },
      frames: { trials: this.frameTrials },
      layout: null,
      simulate: null,
      experiment: null,
      blocks: [],
      counterbalance: null,
      resumes: [],
      rows_written: 0,
      error: null,
    };
    this.write("session_start", { detail: `protocol=${this.name};sha256=${this.meta.protocol.sha256}` });
  }

  write(event, fields = {}) {
    const now = this.clock.now();
    if (fields.time === undefined) fields = { ...fields, time: now };
    const row = this.log.write(event, inTimeOrder(fields, this.log.lastTime, now));
    this.meta.rows_written = row;
    if (this.store) this.store.saveMeta(this.meta);
    return row;
  }

  /** The block a problem belongs to: block_start when it is new, its order grows. */
  enterBlock(block, problemId) {
    let b = this.meta.blocks.find((x) => x.name === block);
    if (!b) {
      b = { name: block, order: [], shuffled: false, seed: null };
      this.meta.blocks.push(b);
      this.write("block_start", { block, detail: "order=;seed=None" });
    }
    b.order.push(problemId);
  }

  /** End the session (session_end) and return its files: {csvName, csv, jsonName, json}. */
  end(status = "completed") {
    if (!this.clock) this.open();
    if (this.status === null) {
      this.write("session_end", { reason: status });
      this.status = status;
      Object.assign(this.meta.frames, frameSummary(this.frameTrials, this.frames.all));
      this.meta.status = status;
      this.meta.end_time = isoNow();
      if (this.store) this.store.saveMeta(this.meta);
    }
    return {
      participant: this.participant,
      session: this.session,
      csvName: this.meta.event_log,
      csv: this.log.text(),
      jsonName: this.meta.event_log.replace(/\.csv$/, ".json"),
      json: JSON.stringify(this.meta, null, 2) + "\n",
    };
  }

  /** End the session and hand its log over (the destination), or download both files. */
  async save(status = "completed") {
    const files = this.end(status);
    const delivery = deliveryFor(this.settings, {
      log: this.log, store: null, who: { participant: this.participant, session: this.session },
      attempt: this.attempt,
    });
    const result = await delivery.finish(this.meta);
    if (delivery.method === "download") {
      download(files.csvName, files.csv, "text/csv");
      download(files.jsonName, files.json, "application/json");
    }
    // For automation, as on the built page's last screen.
    document.documentElement.dataset.tolStatus = this.status;
    document.documentElement.dataset.tolSaved = result.ok ? delivery.method : "failed";
    return { method: delivery.method, error: result.error };
  }
}
