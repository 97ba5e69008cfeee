// Drawing a board in the page from the display model's layout (tol_tasks/display/layout.py:
// protocol.json's "layout", or layout.js's port for the plugin), in box units of the stage,
// as HTML elements. No geometry is decided here: every place comes from the layout.
//
// Every peg of the participant's board is an element with data-peg="A", "B",
// ... and every piece one with data-piece ("1" = the smallest disk, or a ball
// letter), each with an accessible name, so that tests, automation and screen
// readers find them. The goal board's pegs carry data-goal-peg instead.

import { BOX_WIDTH, pieceSize, pieceXY } from "./layout.js";
import { PEG_LETTERS } from "./puzzle.js";

/**
 * The stage: a box of W x H CSS pixels showing the 4:3 design box centred, 1 box unit =
 * U pixels (H, or less when the stage is narrower than 4:3: tol_tasks.display.layout.fit_factor).
 */
export class Stage {
  constructor(element, width, height) {
    this.el = element;
    this.W = width;
    this.H = height;
    this.aspect = width / height;
    this.U = height * Math.min(1, this.aspect / BOX_WIDTH);
  }

  /** Box units (origin centre, y up) to stage pixels (origin top-left, y down). */
  px(x, y) {
    return [x * this.U + this.W / 2, this.H / 2 - y * this.U];
  }

  units(px, py) {
    return [(px - this.W / 2) / this.U, (this.H / 2 - py) / this.U];
  }

  /** Which peg of `areas` a point in stage pixels falls on, as the lab's screen.hit decides. */
  hit(areas, px, py) {
    const [x, y] = this.units(px, py);
    for (let i = 0; i < areas.length; i++) {
      const a = areas[i];
      if (Math.abs(x - a.x) <= a.w / 2 && Math.abs(y - a.y) <= a.h / 2 + HIT_MARGIN) return i;
    }
    return null;
  }

  /** Peg rectangles in stage pixels, for the sidecar. */
  pixelRects(areas) {
    return areas.map((a, i) => {
      const [left, top] = this.px(a.x - a.w / 2, a.y + a.h / 2);
      const r = (v) => Math.round(v * 10) / 10;
      return { peg: PEG_LETTERS[i], left: r(left), top: r(top), width: r(a.w * this.U), height: r(a.h * this.U) };
    });
  }

  /** A text label at (x, y) in height units: its centre, or its left or right end (`align`). */
  label(className, x, y, { size = 0.028, width = null, align = "center" } = {}) {
    const el = document.createElement("div");
    el.className = `tol-label ${className}`;
    const [px, py] = this.px(x, y);
    Object.assign(el.style, {
      left: `${px}px`,
      top: `${py}px`,
      fontSize: `${size * this.U}px`,
      width: width ? `${width * this.U}px` : "auto",
    });
    if (align !== "center") {
      Object.assign(el.style, {
        transform: `translate(${align === "left" ? "0" : "-100%"}, -50%)`,
        textAlign: align,
      });
    }
    this.el.appendChild(el);
    return el;
  }
}

/** A peg's clickable area reaches this far (box units) above and below its rectangle (tol_tasks.display.layout.HIT_MARGIN). */
const HIT_MARGIN = 0.02;

function pieceName(puzzle, piece) {
  return puzzle.kind === "hanoi" ? `disk ${piece}` : `ball ${piece}`;
}

/** One board (the participant's or the goal: `layout`, a board of the display model) drawn in a stage. */
export class BoardView {
  constructor(stage, puzzle, layout, display, colors, { goal = false, labels = null, edges = null } = {}) {
    this.stage = stage;
    this.puzzle = puzzle;
    this.layout = layout;
    this.areas = layout.pegs;
    this.goal = goal;
    this.unit = layout.unit;
    const U = stage.U;
    const root = document.createElement("div");
    root.className = "tol-board";
    root.dataset.board = goal ? "goal" : "board";
    if (goal) root.setAttribute("aria-label", "goal");
    this.root = root;
    // The base, then each peg: its clickable area holding a rod.
    const [bx, by, bw, bh] = layout.base;
    const [cx, cy] = stage.px(bx, by);
    root.appendChild(box("tol-base", cx - (bw * U) / 2, cy - (bh * U) / 2, bw * U, bh * U, display.peg_color));
    this.pegs = layout.pegs.map((a, i) => {
      const [left, top] = stage.px(a.x - a.w / 2, a.y + a.h / 2);
      const peg = box("tol-peg", left, top, a.w * U, a.h * U, null);
      if (goal) peg.dataset.goalPeg = PEG_LETTERS[i];
      else {
        peg.dataset.peg = PEG_LETTERS[i];
        peg.setAttribute("role", "button");
      }
      const rodW = layout.rod_width * U;
      peg.appendChild(box("tol-rod", (a.w * U - rodW) / 2, 0, rodW, a.h * U, display.peg_color));
      root.appendChild(peg);
      return peg;
    });
    // One element per piece; balls of one colour share a letter and are told apart by order.
    this.pieces = [];
    for (const piece of puzzle.pieces) {
      const el = document.createElement("div");
      el.className = `tol-piece tol-${puzzle.kind}`;
      if (!goal) el.dataset.piece = String(piece);
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", pieceName(puzzle, piece));
      const [pw, ph] = pieceSize(layout, piece);
      const w = pw * U;
      const h = ph * U;
      Object.assign(el.style, { width: `${w}px`, height: `${h}px`, background: colors[String(piece)] });
      // The piece's rim (the display model's edge colour; a darker rim where none is given).
      el.style.border = `2px solid ${edges ? edges[String(piece)] : "rgba(0, 0, 0, 0.35)"}`;
      const label = labels ? labels[String(piece)] : null;
      if (label) {
        // display.piece_labels: the ball's letter (the disk's number), as the lab draws it.
        el.textContent = label[0];
        el.classList.add("tol-labelled");
        Object.assign(el.style, { color: label[1], fontSize: `${this.unit * 0.5 * U}px` });
      }
      el.style.setProperty("--tol-outline", display.highlight_color);
      this.pieces.push({ piece, el, w, h });
      root.appendChild(el);
    }
    this.marker = document.createElement("div");
    this.marker.className = "tol-marker";
    this.marker.style.setProperty("--tol-marker", `${this.unit * 0.32 * U}px`);
    this.marker.style.borderTopColor = display.highlight_color;
    this.marker.hidden = true;
    root.appendChild(this.marker);
    // display.show_legal_targets: a ring above each peg the held piece may go on.
    this.targets = display.show_legal_targets && !goal
      ? layout.pegs.map((a) => {
          const ring = document.createElement("div");
          ring.className = "tol-target";
          const d = this.unit * 0.44 * U;
          const [x, y] = stage.px(a.x, a.marker_y);
          Object.assign(ring.style, { left: `${x - d / 2}px`, top: `${y - d / 2}px`, width: `${d}px`, height: `${d}px`, borderColor: display.highlight_color });
          ring.hidden = true;
          root.appendChild(ring);
          return ring;
        })
      : [];
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
        let [x, y] = this.stage.px(...pieceXY(this.layout, i, level));
        const top = level === col.length - 1;
        const lifted = held === i && top;
        if (lifted) {
          if (drag) [x, y] = drag;
          else y = this.stage.px(0, a.lifted_y)[1];
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
    this.targets.forEach((ring, j) => {
      let legal = held !== null && j !== held;
      if (legal) {
        try {
          this.puzzle.checkMove(state, held, j);
        } catch {
          legal = false;
        }
      }
      ring.hidden = !legal;
    });
    if (cue) {
      const a = this.areas[cue[1]];
      const [x, y] = this.stage.px(a.x, a.marker_y);
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
