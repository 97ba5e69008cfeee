// The page's display for the session driver (driver.js): the stage in the
// page, its input (runtime.js InputRouter: Pointer Events and keys, each with
// its own timestamp), the frame recorder, the screens of play.js, and what the
// page alone can tell the sidecar (screen, window, the pegs' places, the
// refresh rate, when the page was hidden or full screen left).

import { Stage } from "./board.js";
import { playCopy, playPlanning, playProblem, readyToContinue, showControls, showMessage, showPages, showPause } from "./play.js";
import { Abort, FrameRecorder, InputRouter, measureRefresh } from "./runtime.js";

/** Size of the stage in CSS pixels: the whole window in full screen, else the protocol's window size. */
function stageSize(display) {
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  if (display.fullscreen) return [vw, vh];
  return display.window_size;
}

function fitStage(el, w, h) {
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  const s = Math.min(1, vw / w, vh / h);
  el.style.transform = s < 1 ? `scale(${s})` : "";
}

export class PageDisplay {
  /** The display of `proto` (protocol.json) in `root`, with the texts of `language`. */
  constructor(root, proto, language) {
    this.root = root;
    this.proto = proto;
    this.msg = proto.languages[language].messages;
    this.display = proto.display;
    // The session's one layout, made by the Python display model at build time, and what
    // the instruction pages show (the board, a demonstration), made there too.
    this.layout = proto.layout;
    this.shown = proto.shown;
    this.input = proto.input;
    this.timing = proto.timing;
    this.feedback = proto.feedback;
    this.frames = new FrameRecorder();
    this.hidden = [];
    this.fullscreenExits = [];
    let rejectAbort;
    this.abort = new Promise((_, reject) => (rejectAbort = reject));
    this.abort.catch(() => {});
    this._quit = (ev) => rejectAbort(new Abort(ev.t));
  }

  colors(puzzle) {
    return this.proto.puzzles[puzzle.code].colors;
  }

  /** The rim of each piece (made by the display model: never lost in the background). */
  edges(puzzle) {
    return this.proto.puzzles[puzzle.code].edges || null;
  }

  /** The text on each piece and its colour (display.piece_labels), or null. */
  labels(puzzle) {
    return this.proto.puzzles[puzzle.code].labels || null;
  }

  async prepare() {
    document.documentElement.dataset.tolRunning = "";
    const [w, h] = stageSize(this.display);
    this.root.replaceChildren();
    const el = document.createElement("div");
    el.className = "tol-stage";
    el.style.width = `${w}px`;
    el.style.height = `${h}px`;
    el.style.background = this.display.background;
    el.style.color = this.display.text_color;
    document.body.style.background = this.display.background;
    this.root.appendChild(el);
    fitStage(el, w, h);
    this._onResize = () => fitStage(el, w, h);
    addEventListener("resize", this._onResize);
    this.stage = new Stage(el, w, h);
    this.refresh = await measureRefresh(60);
  }

  start(driver) {
    this.clock = driver.clock;
    this.rows = driver.rows;
    this.router = new InputRouter(this.stage, this.clock, {
      quitKey: this.input.quit_key,
      onQuit: this._quit,
      frames: this.frames,
    });
    this._onVisibility = () => {
      const t = this.clock.now();
      this.hidden.push({ time: t, state: document.visibilityState });
      this.rows.attention(document.visibilityState === "hidden", t, "hidden");
    };
    document.addEventListener("visibilitychange", this._onVisibility);
    // Each fullscreenchange is one change, read from the state before it: the events of a
    // quick exit and return may both be handled after the return, when the document says
    // "full screen" twice.
    this._full = Boolean(document.fullscreenElement);
    this._onFullscreen = () => {
      const t = this.clock.now();
      const left = this._full;
      this._full = !this._full;
      if (left) this.fullscreenExits.push(t);
      if (left || this.fullscreenExits.length) this.rows.attention(left, t, "fullscreen"); // back: only after a loss
    };
    document.addEventListener("fullscreenchange", this._onFullscreen);
  }

  describe() {
    const stage = this.stage;
    const layoutPuzzle = this.proto.layout_puzzle;
    const pegs = stage.pixelRects(this.layout.board.pegs);
    return {
      user_agent: navigator.userAgent,
      refresh_rate_hz: this.refresh,
      screen: {
        index: 0,
        size: [screen.width, screen.height],
        available_size: [screen.availWidth, screen.availHeight],
        device_pixel_ratio: devicePixelRatio,
        color_depth: screen.colorDepth,
      },
      window: {
        size: [stage.W, stage.H],
        position: null,
        fullscreen: !!document.fullscreenElement,
        units: "CSS pixels (1 height unit = the stage's height)",
        owner: "tol-web",
        viewport: [innerWidth, innerHeight],
        fullscreen_requested: this.display.fullscreen,
        page: location.origin + location.pathname,
      },
      layout: { puzzle: layoutPuzzle, pegs, coordinates: "CSS pixels from the stage's top-left" },
    };
  }

  instructions(pages, prefix = "page") {
    return showPages(this, pages, prefix);
  }

  pause(text, id) {
    return showPause(this, text, id);
  }

  controls() {
    return showControls(this);
  }

  readyToContinue() {
    return readyToContinue(this);
  }

  message(text, seconds) {
    return showMessage(this, text, seconds);
  }

  problem(run, { feedback }) {
    return playProblem(this, run, { feedback });
  }

  copy(run) {
    return playCopy(this, run);
  }

  planning(run, screen) {
    return playPlanning(this, run, screen);
  }

  close() {
    delete document.documentElement.dataset.tolRunning;
    this.router.close();
    removeEventListener("resize", this._onResize);
    document.removeEventListener("visibilitychange", this._onVisibility);
    document.removeEventListener("fullscreenchange", this._onFullscreen);
    return {
      input_delay_ms: this.router.delayStats(),
      frame_work: this.frames.all,
      page: { hidden: this.hidden, fullscreen_exits: this.fullscreenExits },
    };
  }

  async leave() {
    if (document.fullscreenElement && document.exitFullscreen) {
      try {
        await document.exitFullscreen();
      } catch {
        // already left
      }
    }
  }
}
