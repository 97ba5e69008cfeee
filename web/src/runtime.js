// Time and input in the page.
//
// Session clock: seconds since the session's zero, an epoch time in
// milliseconds kept with the session, so that it runs on across a reload:
// t = (performance.timeOrigin + stamp - zero) / 1000 for any stamp on the
// page's high-resolution clock (performance.now(), event.timeStamp,
// requestAnimationFrame). Within a page it is monotonic to the microsecond;
// across a reload the two pages' origins are joined by the system clock.
//
// Input: Pointer Events only (mouse, pen and touch alike; one touch is one
// action: pointerdown's default is prevented, so no compatibility mouse
// events follow, and the stage has touch-action: none), and keydown. Every
// event is stamped with its own event.timeStamp, taken by the browser when
// the input arrived, before any handler ran.

import { median, percentile } from "./frames.js";

export class Abort extends Error {
  /** The quit key pressed at session time `t`, stamped `stamp` (a page's input: arrival). */
  constructor(t, stamp = "arrival") {
    super("the quit key was pressed");
    this.name = "Abort";
    this.t = t;
    this.stamp = stamp;
  }
}

export class SessionClock {
  /** `zero`: the session's zero as epoch milliseconds (performance.timeOrigin + performance.now()). */
  constructor(zero) {
    this.zero = zero;
  }

  static startingNow() {
    return new SessionClock(performance.timeOrigin + performance.now());
  }

  /** A stamp on the page's clock (ms) as session seconds. */
  fromStamp(ms) {
    return (performance.timeOrigin + ms - this.zero) / 1000;
  }

  now() {
    return this.fromStamp(performance.now());
  }
}

/** The timestamp of the next animation frame, after `draw` ran in it (if given). */
export function nextFrame(draw = null) {
  return new Promise((resolve) => {
    requestAnimationFrame((ts) => {
      if (draw) draw(ts);
      resolve(ts);
    });
  });
}

/**
 * Draw in an animation frame and resolve with the time the drawing was first
 * on screen: the timestamp of the next frame (a frame's timestamp is when it
 * began, about when the frame before it was presented), never earlier than
 * the end of the drawing. Chrome can give a frame a timestamp from before the
 * script asked for it, so the frame that draws cannot date its own drawing.
 */
export async function drawShown(draw) {
  let drawn = 0;
  await nextFrame(() => {
    draw();
    drawn = performance.now();
  });
  return Math.max(await nextFrame(), drawn);
}

/** The display's refresh rate from the median interval of `n` animation frames (Hz). */
export async function measureRefresh(n = 60) {
  let last = await nextFrame();
  const gaps = [];
  for (let i = 0; i < n; i++) {
    const ts = await nextFrame();
    gaps.push(ts - last);
    last = ts;
  }
  const m = median(gaps);
  return m > 0 ? 1000 / m : null;
}

/**
 * Animation frames while a trial is shown: their intervals and the task's own
 * work in each (the time its input handlers and frame callback ran). `onFrame`
 * runs in each frame with its timestamp.
 */
export class FrameRecorder {
  constructor() {
    this.all = [];
    this.running = false;
    this.work = 0;
  }

  start(onFrame) {
    this.stamps = [];
    this.trialWork = [];
    this.work = 0;
    this.running = true;
    const loop = (ts) => {
      if (!this.running) return;
      const began = performance.now();
      if (this.stamps.length) {
        this.trialWork.push(this.work / 1000);
        this.all.push(this.work / 1000);
      }
      this.work = 0;
      this.stamps.push(ts);
      onFrame(ts);
      this.work += performance.now() - began;
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  /** Count `fn`'s run time as the current frame's work. */
  measure(fn) {
    const began = performance.now();
    try {
      return fn();
    } finally {
      if (this.running) this.work += performance.now() - began;
    }
  }

  /** Stop; the intervals between frames (s) and each frame's work (s). */
  stop() {
    this.running = false;
    const s = this.stamps || [];
    const intervals = s.slice(1).map((v, i) => (v - s[i]) / 1000);
    return { intervals, work: this.trialWork || [], first: s[0] };
  }
}

/**
 * The stage's input: pointer and key events as the task's actions, each with
 * its session time, where it was (stage pixels) and what made it. The quit
 * key calls `onQuit` wherever the session is; `handler` gets everything else.
 */
export class InputRouter {
  constructor(stage, clock, { quitKey, onQuit, frames }) {
    this.stage = stage;
    this.clock = clock;
    this.quitKey = quitKey;
    this.onQuit = onQuit;
    this.frames = frames;
    this.handler = null;
    this.delays = [];
    this.active = null; // the pointer of a press not yet released
    const el = stage.el;
    this._listeners = [
      [el, "pointerdown", (e) => this._pointer(e, "press")],
      [el, "pointermove", (e) => this._pointer(e, "move")],
      [el, "pointerup", (e) => this._pointer(e, "release")],
      [el, "pointercancel", (e) => this._pointer(e, "cancel")],
      [document, "keydown", (e) => this._key(e)],
      [el, "contextmenu", (e) => e.preventDefault()],
    ];
    for (const [target, type, fn] of this._listeners) target.addEventListener(type, fn, { passive: false });
  }

  close() {
    for (const [target, type, fn] of this._listeners) target.removeEventListener(type, fn);
  }

  _stagePoint(e) {
    const r = this.stage.el.getBoundingClientRect();
    const sx = r.width ? this.stage.W / r.width : 1;
    const sy = r.height ? this.stage.H / r.height : 1;
    return [(e.clientX - r.left) * sx, (e.clientY - r.top) * sy];
  }

  _deliver(ev, e) {
    this.delays.push(performance.now() - e.timeStamp);
    if (this.handler) this.frames.measure(() => this.handler(ev));
  }

  _pointer(e, kind) {
    if (kind === "press") {
      e.preventDefault(); // no compatibility mouse events, no text selection, no focus change
      if (this.active !== null) return; // a second finger while one is down: not an action
      this.active = e.pointerId;
      if (this.stage.el.setPointerCapture) {
        try {
          this.stage.el.setPointerCapture(e.pointerId);
        } catch {
          // a synthetic pointer cannot be captured; releases still reach the stage
        }
      }
    } else if (e.pointerId !== this.active) {
      return;
    } else if (kind !== "move") {
      this.active = null;
    }
    if (kind === "move" && !this.wantsMoves) return;
    const [x, y] = this._stagePoint(e);
    const ev = {
      kind,
      stamp: e.timeStamp,
      t: this.clock.fromStamp(e.timeStamp),
      x,
      y,
      source: e.pointerType || "mouse",
    };
    if (kind === "move") {
      if (this.handler) this.handler(ev);
      return;
    }
    this._deliver(ev, e);
  }

  _key(e) {
    if (e.repeat) return;
    const ev = {
      kind: "key",
      stamp: e.timeStamp,
      t: this.clock.fromStamp(e.timeStamp),
      key: e.key,
      code: e.code,
      source: "key",
    };
    if (matches(this.quitKey, e)) {
      e.preventDefault();
      this.onQuit(ev);
      return;
    }
    this._deliver(ev, e);
  }

  /** Delay from each input's own timestamp to its handling, in ms. */
  delayStats() {
    const d = this.delays;
    if (!d.length) return { n: 0 };
    const r = (v) => Math.round(v * 1000) / 1000;
    return { n: d.length, median_ms: r(median(d)), p99_ms: r(percentile(d, 99)), max_ms: r(Math.max(...d)) };
  }
}

/** Whether a keydown is the compiled key ({key} compared case-insensitively, or {code}). */
export function matches(spec, e) {
  if (!spec) return false;
  if (spec.code) return e.code === spec.code;
  return String(e.key).toLowerCase() === spec.key;
}

/** Wait `seconds`, or less if `abort` (a promise that rejects) ends the session first. */
export function sleep(seconds, abort) {
  const wait = new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds * 1000)));
  return abort ? Promise.race([wait, abort]) : wait;
}
