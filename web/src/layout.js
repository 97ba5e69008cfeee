// Where everything on the task screen goes: a port of tol_tasks/display/layout.py
// (screen_layout and the boards' as_dict), for the jsPsych "tower" plugin, which plays
// problems that no compiled protocol declares. The built page does not run it: tol-web
// build writes the session's layout, made by the Python model, into protocol.json
// ("layout"). Listed in web/ports.toml; tests/test_web_js.py compares the two.
// Box units: the height of a 4:3 design box, origin at its centre, y up.

import DISPLAY from "./generated/display.json" with { type: "json" };

// The lengths are the display model's (tol_tasks/display/layout.py, planning.py), written
// into generated/display.json at build time by tol_tasks.web.jsdata: declared once.
export const BOX_WIDTH = DISPLAY.BOX_WIDTH;
const { GOAL_FRACTION, MAX_UNIT, BOARD_WIDTH, LABEL_HEIGHT, TEXT_HEIGHT, COUNTER_Y } = DISPLAY;
const { COUNTER_MARGIN, BOTTOM, BAND, GOAL_LABEL, BASE_HEIGHT, ROD_WIDTH } = DISPLAY;
const { LIFT_CENTRE, LIFT_ROOM, PEG_SHARE, SIDE_GAP, SIDE_MARGIN } = DISPLAY;

function board(kind, caps, unit, scale, width, x0, bottom, largest) {
  const n = caps.length;
  const spacing = width / n;
  const baseH = BASE_HEIGHT * scale;
  const baseTop = bottom + baseH;
  const pegs = caps.map((cap, i) => {
    const h = unit * (cap + 0.6);
    const x = x0 + (i - (n - 1) / 2) * spacing;
    const y = baseTop + h / 2;
    return { x, y, w: spacing * PEG_SHARE, h, lifted_y: y + h / 2 + unit * LIFT_CENTRE, marker_y: y + h / 2 + unit * 0.4 };
  });
  const baseW = pegs[n - 1].x - pegs[0].x + pegs[0].w;
  return { kind, unit, scale, largest, base: [x0, bottom + baseH / 2, baseW, baseH], rod_width: ROD_WIDTH * scale, pegs };
}

function top(b) {
  return Math.max(...b.pegs.map((a) => a.y + a.h / 2)) + b.unit * LIFT_ROOM;
}

function unitOf(fit, pieceScale, spacing) {
  const room = Math.min(fit, spacing * 0.9);
  return Math.min(Math.min(MAX_UNIT, room) * pieceScale, room);
}

/** The task screen of an apparatus (as screen_layout in tol_tasks/display/layout.py). */
export function screenLayout(kind, capacities, display, largest = null) {
  const caps = capacities.map(Number);
  const most = Math.max(...caps);
  largest = largest || most;
  const g = GOAL_FRACTION;
  const free = COUNTER_Y - LABEL_HEIGHT - BOTTOM;
  const ps = Number(display.piece_scale);
  const side = display.show_goal && (display.goal_position === "left" || display.goal_position === "right");
  const half = BOX_WIDTH / 2;
  let b;
  let goal = null;
  let label = null;
  let band;
  if (!display.show_goal || side) {
    let width = BOARD_WIDTH;
    if (side) width = Math.min(BOARD_WIDTH, (BOX_WIDTH - 2 * SIDE_MARGIN - SIDE_GAP) / (1 + g));
    const fixed = BASE_HEIGHT + BAND;
    const unit = unitOf((free - fixed) / (most + 0.6 + LIFT_ROOM), ps, width / caps.length);
    const slack = free - fixed - unit * (most + 0.6 + LIFT_ROOM);
    const bottom = BOTTOM + slack / 2;
    let xBoard = 0;
    let xGoal = 0;
    if (side) {
      const total = width * (1 + g) + SIDE_GAP;
      const sign = display.goal_position === "right" ? 1 : -1;
      xBoard = -sign * (total / 2 - width / 2);
      xGoal = sign * (total / 2 - (width * g) / 2);
    }
    b = board(kind, caps, unit, 1.0, width, xBoard, bottom, largest);
    if (side) {
      goal = board(kind, caps, unit * g, g, width * g, xGoal, bottom, largest);
      label = [xGoal, Math.max(...goal.pegs.map((a) => a.y + a.h / 2)) + GOAL_LABEL / 2];
    }
    band = [top(b), top(b) + BAND + slack / 2];
  } else {
    const width = BOARD_WIDTH;
    const fixed = BASE_HEIGHT * (1 + g) + BAND + GOAL_LABEL;
    const perUnit = (most + 0.6) * (1 + g) + LIFT_ROOM;
    const unit = unitOf((free - fixed) / perUnit, ps, width / caps.length);
    const slack = (free - fixed - unit * perUnit) / 3;
    b = board(kind, caps, unit, 1.0, width, 0, BOTTOM + slack, largest);
    band = [top(b), top(b) + BAND + slack];
    goal = board(kind, caps, unit * g, g, width * g, 0, band[1], largest);
    label = [0, Math.max(...goal.pegs.map((a) => a.y + a.h / 2)) + GOAL_LABEL / 2];
  }
  return {
    box_width: BOX_WIDTH,
    board: b,
    goal,
    places: {
      text_y: (band[0] + band[1]) / 2,
      label_height: LABEL_HEIGHT,
      text_height: TEXT_HEIGHT,
      wrap: BOX_WIDTH * 0.85,
      page_y: 0.05,
      image_y: 0.15,
      image_height: 0.45,
      caption_y: -0.2,
      continue_y: -0.43,
      moves: [-half + COUNTER_MARGIN, COUNTER_Y],
      time: [half - COUNTER_MARGIN, COUNTER_Y],
      copy_label: [0, COUNTER_Y],
      goal_label: label,
    },
  };
}

/** A piece's width and height on `b` (a board of a layout), as BoardLayout.piece_size. */
export function pieceSize(b, piece) {
  if (b.kind === "hanoi") return [b.pegs[0].w * (0.3 + 0.65 * (Number(piece) / b.largest)), b.unit * 0.9];
  return [b.unit * 0.92, b.unit * 0.92];
}

/** The centre of the piece at `level` of peg `i` (as BoardLayout.piece_xy). */
export function pieceXY(b, i, level) {
  return [b.pegs[i].x, b.base[1] + b.base[3] / 2 + b.unit * (level + 0.5)];
}

// The page view and the planning screen (tol_tasks/display/layout.py ScreenLayout.page_view,
// tol_tasks/display/planning.py planning_screen), for the plugin's planning-only problems.
const { PAGE_BOARD_SCALE, PAGE_BOARD_UP, CHOICE_BOX, CHOICE_STEP, CHOICE_ROW, CHOICE_TEXT } = DISPLAY;

/** A board of a layout with every length times `f`, moved up by `dy` (BoardLayout.scaled, .shifted). */
function scaledBoard(b, f, dy) {
  return {
    ...b,
    unit: b.unit * f,
    base: [b.base[0] * f, b.base[1] * f + dy, b.base[2] * f, b.base[3] * f],
    rod_width: b.rod_width * f,
    pegs: b.pegs.map((a) => ({
      x: a.x * f, y: a.y * f + dy, w: a.w * f, h: a.h * f, lifted_y: a.lifted_y * f + dy, marker_y: a.marker_y * f + dy,
    })),
  };
}

/** The task screen as an instruction page shows it: smaller and raised (ScreenLayout.page_view). */
export function pageView(layout) {
  const s = PAGE_BOARD_SCALE;
  const up = PAGE_BOARD_UP;
  const goal = layout.goal === null ? null : scaledBoard(layout.goal, s, up);
  const label = goal === null ? null : [layout.places.goal_label[0] * s, Math.max(...goal.pegs.map((a) => a.y + a.h / 2)) + GOAL_LABEL / 2];
  return {
    box_width: layout.box_width,
    board: scaledBoard(layout.board, s, up),
    goal,
    places: { ...layout.places, text_y: layout.places.text_y * s + up, goal_label: label },
  };
}

/** A planning-only problem's screen with `n` numbered boxes (planning_screen; PlanningScreen.as_dict). */
export function planningScreen(kind, capacities, display, largest, n) {
  const view = pageView(screenLayout(kind, capacities, { ...display, show_goal: true, goal_position: "top" }, largest));
  const step = Math.min(CHOICE_BOX * CHOICE_STEP, (BOX_WIDTH * CHOICE_ROW) / n);
  const box = Math.min(CHOICE_BOX, (step / CHOICE_STEP) * 1.25);
  const y = view.places.caption_y;
  const boxes = Array.from({ length: n }, (_, k) => [(k - (n - 1) / 2) * step, y]);
  return { view, boxes, box, text_height: box * CHOICE_TEXT };
}
