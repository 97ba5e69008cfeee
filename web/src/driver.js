// The session driver: a whole protocol carried out without any display, as
// tol-run's tol_tasks/runner/steps.py (StepRunner) carries out the session plan. It owns the plan
// (plan.js), the trials' state and rows (trialrun.js), the event log, the
// clock, the sidecar and the stored copy of both, and asks a display to show
// each step. The jsPsych page's display is front.js; another front (PsychoJS,
// a tablet app) implements the same small interface:
//
//   display.prepare()                 -> Promise: the surface is up, the refresh rate measured
//   display.start(driver)             the session's clock and page rows are ready: take input
//                                     (driver.clock; driver.rows.pageShown(id, t),
//                                     driver.rows.pageLeft(id, t, input))
//   display.describe()                -> {user_agent, screen, window, refresh_rate_hz, layout}
//                                     (the sidecar's sections only the display knows)
//   display.abort                     a promise rejected with Abort when the participant quits
//   display.instructions(pages)       the instruction pages, each logged through driver.rows
//   display.readyToContinue()         a resumed session's first screen
//   display.message(text, seconds)
//   display.problem(run, {feedback})  -> Promise of run.end()'s result: play a ProblemRun
//   display.copy(run)                 -> Promise of run.end()'s result: play a CopyRun
//   display.planning(run, screen)     -> Promise of run.end()'s result: play a PlanningRun on
//                                     its planning screen (the display model's, protocol.json)
//   display.close()                   -> {input_delay_ms, frame_work, page}: input stops
//   display.leave()                   -> Promise: full screen is left (after the last row)
//
// Every row goes through write(); `onRow(line, row)` and `onCheckpoint(meta)`
// (after each step: the sidecar is current) let the page keep and send them.

import { formFor } from "./counterbalance.js";
import { rowsOf } from "./csv.js";
import { EventLog } from "./eventlog.js";
import { frameSummary } from "./frames.js";
import { progressOf, sessionPlan } from "./plan.js";
import { fromCode } from "./puzzle.js";
import { blockOrder } from "./random.js";
import { Abort, SessionClock } from "./runtime.js";
import { newSidecar, recordedForm, resumeRecord } from "./sidecar.js";
import { isoNow } from "./timefmt.js";
import { CopyRun, inTimeOrder, PlanningRun, ProblemRun } from "./trialrun.js";

export class SessionDriver {
  /**
   * @param {object} proto  the compiled protocol (protocol.json)
   * @param {object} who    {participant, session, language, fields, params}
   * @param {object} o      stored: {meta, lines, firstRow, digest} of a session to
   *                        continue, or null (lines: the rows still kept, from row
   *                        firstRow; digest: what a resume needs of the rows before,
   *                        see storage.js); assigned: the form's index when the
   *                        form is assigned from outside (JATOS's batch), else null;
   *                        onRow(line, row), onCheckpoint(meta): keep and send them
   */
  constructor(proto, who, { stored = null, assigned = null, onRow = null, onCheckpoint = null } = {}) {
    this.proto = proto;
    this.who = who;
    this.stored = stored;
    this.assigned = assigned;
    this.onCheckpoint = onCheckpoint;
    this.msg = proto.languages[who.language].messages;
    this.rules = proto.rules;
    this.trialNo = 0;
    this.frameTrials = [];
    this.copyShown = false;
    this.refresh = null;
    this.clock = null;
    this.meta = null;
    this.status = null;
    this._puzzles = new Map();
    this.log = new EventLog({
      participant: who.participant,
      session: who.session,
      lines: stored ? stored.lines : [],
      firstRow: stored ? stored.firstRow ?? 1 : 1,
      onRow,
    });
    this.rows = {
      pageShown: (id, t) => this.write("page_shown", { time: t, problem_id: id, stamp: "flip" }),
      pageLeft: (id, t, input) => this.write("page_left", { time: t, problem_id: id, input, stamp: "arrival" }),
      // The page lost or got back the participant's attention (why: hidden, fullscreen), as
      // PsychoPy logs its window's focus (why: focus): one pair of events, the codebook's.
      attention: (lost, t, why) =>
        this.write(lost ? "attention_lost" : "attention_back", { time: t, stamp: "clock", detail: `why=${why}` }),
    };
  }

  puzzle(code) {
    if (!this._puzzles.has(code)) this._puzzles.set(code, fromCode(code));
    return this._puzzles.get(code);
  }

  // ---------------------------------------------------------- what runs write to
  /** Write one row (at the session clock's now unless `fields.time` is given); its row number. */
  write(event, fields = {}) {
    const now = this.clock.now();
    if (fields.time === undefined) fields = { ...fields, time: now };
    return this.log.write(event, inTimeOrder(fields, this.log.lastTime, now));
  }

  nextTrial() {
    this.trialNo += 1;
    return this.trialNo;
  }

  recordFrames(entry) {
    this.frameTrials.push(entry);
  }

  /** The sidecar is current: its rows count (and storage error), handed to onCheckpoint. */
  checkpoint() {
    this.meta.rows_written = this.log.rowsWritten;
    if (this.onCheckpoint) this.onCheckpoint(this.meta);
  }

  // ---------------------------------------------------------- the session
  /** Carry out the session on `display`; resolves with {status, meta, log}. */
  async run(display) {
    await display.prepare();
    const progress = this._openClock();
    display.start(this);
    const env = display.describe();
    this.refresh = env.refresh_rate_hz;
    const [form, blockIndices] = recordedForm(this.proto, this.meta, formFor, this.who, this.assigned);
    this._openSidecar(env, progress, form, blockIndices);
    const recorded = Object.fromEntries((this.meta.blocks || []).map((b) => [b.name, b.order]));
    const plan = sessionPlan(this.proto.plan, {
      blocks: blockIndices,
      progress,
      recorded,
      order: (b) => blockOrder(b.problems.length, b.order, b.seed),
    });
    let status = "completed";
    try {
      if (this.stored) await display.readyToContinue();
      let step = plan.next();
      while (!step.done) {
        step = plan.next(await this._step(display, step.value, form));
      }
    } catch (exc) {
      if (!(exc instanceof Abort)) {
        status = "crashed";
        this.meta.error = `${exc.name}: ${exc.message}`;
        console.error(exc);
      } else {
        status = "aborted";
        this.write("abort", { time: exc.t, stamp: exc.stamp, input: "key" });
      }
    }
    const closed = display.close();
    if (status !== "crashed") this.write("session_end", { reason: status });
    const meta = this.meta;
    Object.assign(meta.frames, frameSummary(this.frameTrials, closed.frame_work));
    meta.timing.input_delay_ms = closed.input_delay_ms;
    meta.page = {
      hidden: [...(meta.page?.hidden || []), ...closed.page.hidden],
      fullscreen_exits: [...(meta.page?.fullscreen_exits || []), ...closed.page.fullscreen_exits],
    };
    meta.status = status;
    meta.end_time = isoNow();
    this.status = status;
    this.checkpoint();
    await display.leave();
    return { status, meta, log: this.log };
  }

  /** The clock: a resumed session continues on its own zero, its times still increasing. */
  _openClock() {
    if (!this.stored) {
      this.clock = SessionClock.startingNow();
      return null;
    }
    this.meta = this.stored.meta;
    const progress = progressOf([...(this.stored.digest || []), ...rowsOf(this.stored.lines)]);
    let clock = new SessionClock(this.meta.timing.clock_zero);
    this.resumeNote = null;
    if (clock.now() <= progress.last_time) {
      const shift = (progress.last_time + 0.001 - clock.now()) * 1000;
      clock = new SessionClock(this.meta.timing.clock_zero - shift);
      this.meta.timing.clock_zero = clock.zero;
      this.resumeNote = `clock moved on by ${Math.round(shift)} ms to keep times increasing`;
    }
    this.clock = clock;
    this.trialNo = progress.last_trial;
    this.frameTrials = this.meta.frames.trials || [];
    return progress;
  }

  /** A new session's sidecar and session_start, or a resume's record and resume row. */
  _openSidecar(env, progress, form, blockIndices) {
    if (!this.meta) {
      this.meta = newSidecar(this.proto, this.who, env, { clock: this.clock, form, blockIndices });
      if (this.assigned !== null && this.meta.counterbalance) {
        this.meta.counterbalance.assigned = "across participants, by the JATOS batch session's count";
      }
    } else {
      const record = resumeRecord(this.meta, progress, env, this.resumeNote);
      this.meta.status = "incomplete";
      this.meta.end_time = null;
      this.meta.resumes = [...(this.meta.resumes || []), record];
    }
    this.meta.frames.trials = this.frameTrials;
    this.checkpoint();
    if (this.stored) {
      const [b, pid] = progress.interrupted || ["", ""];
      this.write("resume", { detail: `after_row=${progress.last_row};interrupted=${b}/${pid}` });
    } else {
      const f = form ? `;form=${form}` : "";
      const p = this.proto.plan.protocol;
      this.write("session_start", { detail: `protocol=${p.name};sha256=${p.sha256}${f}` });
    }
    this.checkpoint();
  }

  /** One step of the plan on the display; what the plan is sent back. */
  async _step(display, st, form) {
    if (st.kind === "instructions") {
      await display.instructions(this.proto.languages[this.who.language].pages);
      if (this.proto.plan.practice.controls) await display.controls(); // practice.controls
    } else if (st.kind === "message") {
      await display.message(this.msg[st.key], st.seconds);
    } else if (st.kind === "pause") {
      await display.pause(this.msg[st.key], `pause-${st.block}`);
    } else if (st.kind === "block_pages") {
      const pages = this.proto.languages[this.who.language].block_pages || {};
      await display.instructions(pages[st.block] || [], `${st.block}-page`);
    } else if (st.kind === "block_start") {
      const shuffled = this.proto.plan.blocks[st.index].order === "shuffled";
      this.meta.blocks.push({ name: st.block, order: st.order, shuffled, seed: st.seed ?? null });
      const f = form ? `;form=${form}` : "";
      this.write("block_start", { block: st.block, detail: `order=${st.order.join(",")};seed=${st.seed ?? "None"}${f}` });
      this.checkpoint();
    } else if (st.kind === "problem") {
      // A test problem of a planning-only block is answered, not moved (as tol-run's steps).
      const planning = st.block === "practice" ? null : this.proto.plan.blocks.find((b) => b.name === st.block)?.planning;
      const puzzle = this.puzzle(st.problem.puzzle);
      let reply;
      if (planning) {
        const run = new PlanningRun(this, st.problem, puzzle, planning, st);
        reply = await display.planning(run, planning.screens[puzzle.code]);
      } else {
        reply = await display.problem(new ProblemRun(this, st.problem, puzzle, st), { feedback: st.feedback });
      }
      this.lastTrial = reply.trial;
      this.checkpoint();
      return reply;
    } else if (st.kind === "copy") {
      if (!this.copyShown) {
        await display.message(this.msg.copy_start, this.proto.plan.messages.copy_start);
        this.copyShown = true;
      }
      const run = new CopyRun(this, st.problem, this.puzzle(st.problem.puzzle), { ...st, copyOf: this.lastTrial ?? null });
      await display.copy(run);
      this.checkpoint();
    } else if (st.kind === "discontinue") {
      this.write("discontinue", { block: st.block, detail: `after=${st.failures} consecutive failures` });
    }
    return undefined;
  }
}
