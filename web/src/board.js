// Drawing a board in the page: the geometry of the lab's screen
// (tol_tasks/runner/screen.py) in "height units" of the stage, as HTML elements.
//
// Every peg of the participant's board is an element with data-peg="A", "B",
// ... and every piece one with data-piece ("1" = the smallest disk, or a ball
// letter), each with an accessible name, so that tests, automation and screen
// readers find them. The goal board's pegs carry data-goal-peg instead.

import { PEG_LETTERS } from "./puzzle.js";

export const BOARD_SCALE = 0.95;
export const GOAL_SCALE = 0.5;

/** Peg areas of one board in height units: {x, y (centre), w, h, unit}. */
export function layout(puzzle, pieceScale, aspect, { baseY = -0.42, scale = 1.0, x0 = 0.0 } = {}) {
  const n = puzzle.nPegs;
  const width = Math.min(aspect * 0.9, 1.3) * scale;
  const spacing = width / n;
  const caps = puzzle.capacities;
  const most = Math.max(...caps);
  const unit = Math.min(0.11, 0.4 / (most + 0.6)) * pieceScale * scale;
  return caps.map((cap, i) => {
    const h = unit * (cap + 0.6);
    return { x: x0 + (i - (n - 1) / 2) * spacing, y: baseY + h / 2, w: spacing * 0.92, h, unit, scale };
  });
}

/** Where the counters are drawn, and the height of their text (as tol_tasks/runner/geometry.py). */
export const TOP_LABELS_Y = 0.45;
export const LABEL_HEIGHT = 0.028;
const LIFT = 1.3;

/**
 * The height at which a line of text between the boards covers no peg and no piece:
 * the middle of the tallest band free of every board (from under its base to a lifted
 * piece above its highest peg) and of the counters. As text_band_y in tol_tasks/runner/geometry.py.
 */
export function textBandY(boardList) {
  const taken = [[TOP_LABELS_Y - LABEL_HEIGHT, 0.5]];
  for (const areas of boardList) {
    const first = areas[0];
    const bottom = first.y - first.h / 2 - 0.012 * first.scale;
    const top = Math.max(...areas.map((a) => a.y + a.h / 2)) + Math.max(first.unit * LIFT, 2 * LABEL_HEIGHT);
    taken.push([bottom, top]);
  }
  taken.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let best = null;
  let reached = -0.5;
  for (const [lo, hi] of taken) {
    if (lo > reached && (best === null || lo - reached > best[0])) best = [lo - reached, reached, lo];
    reached = Math.max(reached, hi);
  }
  return (best[1] + best[2]) / 2;
}

/** The participant's board and the goal's areas, placed as the lab places them. */
export function boards(puzzle, display, aspect) {
  const ps = display.piece_scale;
  if (!display.show_goal) return [layout(puzzle, ps, aspect, { baseY: -0.4, scale: BOARD_SCALE }), null];
  if (display.goal_position === "top") {
    return [
      layout(puzzle, ps, aspect, { baseY: -0.46, scale: BOARD_SCALE }),
      layout(puzzle, ps, aspect, { baseY: 0.14, scale: GOAL_SCALE }),
    ];
  }
  const side = aspect * 0.25 * (display.goal_position === "right" ? 1 : -1);
  return [
    layout(puzzle, ps, aspect, { baseY: -0.4, scale: 0.6, x0: -side * 0.8 }),
    layout(puzzle, ps, aspect, { baseY: -0.1, scale: 0.35, x0: side * 1.3 }),
  ];
}

/** The stage: a box of W x H CSS pixels in which 1 height unit = H pixels. */
export class Stage {
  constructor(element, width, height) {
    this.el = element;
    this.W = width;
    this.H = height;
    this.aspect = width / height;
  }

  /** Height units (origin centre, y up) to stage pixels (origin top-left, y down). */
  px(x, y) {
    return [x * this.H + this.W / 2, this.H / 2 - y * this.H];
  }

  units(px, py) {
    return [(px - this.W / 2) / this.H, (this.H / 2 - py) / this.H];
  }

  /** Which peg of `areas` a point in stage pixels falls on, as the lab's screen.hit decides. */
  hit(areas, px, py) {
    const [x, y] = this.units(px, py);
    for (let i = 0; i < areas.length; i++) {
      const a = areas[i];
      if (Math.abs(x - a.x) <= a.w / 2 && Math.abs(y - a.y) <= a.h / 2 + 0.02) return i;
    }
    return null;
  }

  /** Peg rectangles in stage pixels, for the sidecar. */
  pixelRects(areas) {
    return areas.map((a, i) => {
      const [left, top] = this.px(a.x - a.w / 2, a.y + a.h / 2);
      const r = (v) => Math.round(v * 10) / 10;
      return { peg: PEG_LETTERS[i], left: r(left), top: r(top), width: r(a.w * this.H), height: r(a.h * this.H) };
    });
  }

  /** A text label placed at (x, y) in height units, centred. */
  label(className, x, y, { size = 0.028, width = null } = {}) {
    const el = document.createElement("div");
    el.className = `tol-label ${className}`;
    const [px, py] = this.px(x, y);
    Object.assign(el.style, {
      left: `${px}px`,
      top: `${py}px`,
      fontSize: `${size * this.H}px`,
      width: width ? `${width * this.H}px` : "auto",
    });
    this.el.appendChild(el);
    return el;
  }
}

function pieceName(puzzle, piece) {
  return puzzle.kind === "hanoi" ? `disk ${piece}` : `ball ${piece}`;
}

/** One board (the participant's or the goal) drawn in a stage. */
export class BoardView {
  constructor(stage, puzzle, areas, display, colors, { goal = false, labels = null } = {}) {
    this.stage = stage;
    this.puzzle = puzzle;
    this.areas = areas;
    this.goal = goal;
    this.unit = areas[0].unit;
    this.baseY = areas[0].y - areas[0].h / 2;
    const H = stage.H;
    const root = document.createElement("div");
    root.className = "tol-board";
    root.dataset.board = goal ? "goal" : "board";
    if (goal) root.setAttribute("aria-label", "goal");
    this.root = root;
    const scale = areas[0].scale;
    // The base, then each peg: its clickable area holding a rod.
    const first = areas[0];
    const last = areas[areas.length - 1];
    const [bx, by] = stage.px((first.x + last.x) / 2, this.baseY - 0.006 * scale);
    const baseW = (last.x - first.x + first.w) * H;
    const baseH = 0.012 * scale * H;
    root.appendChild(box("tol-base", bx - baseW / 2, by - baseH / 2, baseW, baseH, display.peg_color));
    this.pegs = areas.map((a, i) => {
      const [left, top] = stage.px(a.x - a.w / 2, a.y + a.h / 2);
      const peg = box("tol-peg", left, top, a.w * H, a.h * H, null);
      if (goal) peg.dataset.goalPeg = PEG_LETTERS[i];
      else {
        peg.dataset.peg = PEG_LETTERS[i];
        peg.setAttribute("role", "button");
      }
      const rodW = (0.012 * scale + 0.004) * H;
      peg.appendChild(box("tol-rod", (a.w * H - rodW) / 2, 0, rodW, a.h * H, display.peg_color));
      root.appendChild(peg);
      return peg;
    });
    // One element per piece; balls of one colour share a letter and are told apart by order.
    this.pieces = [];
    const pegW = first.w;
    for (const piece of puzzle.pieces) {
      const el = document.createElement("div");
      el.className = `tol-piece tol-${puzzle.kind}`;
      if (!goal) el.dataset.piece = String(piece);
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", pieceName(puzzle, piece));
      let w;
      let h;
      if (puzzle.kind === "hanoi") {
        w = pegW * (0.3 + 0.65 * (piece / puzzle.disks)) * H;
        h = this.unit * 0.9 * H;
      } else {
        w = h = this.unit * 0.92 * H;
      }
      Object.assign(el.style, { width: `${w}px`, height: `${h}px`, background: colors[String(piece)] });
      const label = labels ? labels[String(piece)] : null;
      if (label) {
        // display.piece_labels: the ball's letter (the disk's number), as the lab draws it.
        el.textContent = label[0];
        el.classList.add("tol-labelled");
        Object.assign(el.style, { color: label[1], fontSize: `${this.unit * 0.5 * H}px` });
      }
      el.style.setProperty("--tol-outline", display.highlight_color);
      this.pieces.push({ piece, el, w, h });
      root.appendChild(el);
    }
    this.marker = document.createElement("div");
    this.marker.className = "tol-marker";
    this.marker.style.setProperty("--tol-marker", `${this.unit * 0.32 * H}px`);
    this.marker.style.borderTopColor = display.highlight_color;
    this.marker.hidden = true;
    root.appendChild(this.marker);
    stage.el.appendChild(root);
  }

  /**
   * Place the pieces for `state` (lists of pegs). `held`: the peg whose top
   * piece is lifted; `drag`: [x, y] in stage pixels where a dragged piece is;
   * `cue`: [from, to] of a copy trial's move (top piece outlined, peg marked).
   */
  show(state, held = null, drag = null, cue = null) {
    const used = new Map();
    state.forEach((col, i) => {
      const a = this.areas[i];
      col.forEach((piece, level) => {
        const n = used.get(piece) || 0;
        used.set(piece, n + 1);
        const item = this.pieces.filter((p) => p.piece === piece)[n];
        let [x, y] = this.stage.px(a.x, this.baseY + this.unit * (level + 0.5));
        const top = level === col.length - 1;
        const lifted = held === i && top;
        if (lifted) {
          if (drag) [x, y] = drag;
          else y = this.stage.px(0, a.y + a.h / 2 + this.unit * 0.8)[1];
        }
        item.el.style.transform = `translate(${x - item.w / 2}px, ${y - item.h / 2}px)`;
        item.el.classList.toggle("tol-lifted", lifted);
        item.el.classList.toggle("tol-cued", !!(cue && cue[0] === i && top));
      });
      const peg = this.pegs[i];
      if (!this.goal) {
        peg.setAttribute("aria-label", `peg ${PEG_LETTERS[i]}: ${col.length ? col.map((p) => pieceName(this.puzzle, p)).join(", ") : "empty"}`);
      }
    });
    if (cue) {
      const a = this.areas[cue[1]];
      const [x, y] = this.stage.px(a.x, a.y + a.h / 2 + this.unit * 0.4);
      this.marker.style.transform = `translate(${x}px, ${y}px)`;
      this.marker.hidden = false;
    } else {
      this.marker.hidden = true;
    }
    if (!this.goal) {
      this.root.dataset.state = this.puzzle.format(state);
      this.root.dataset.held = held === null ? "" : PEG_LETTERS[held];
    }
  }

  remove() {
    this.root.remove();
  }
}

function box(className, left, top, width, height, color) {
  const el = document.createElement("div");
  el.className = className;
  Object.assign(el.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` });
  if (color) el.style.background = color;
  return el;
}
