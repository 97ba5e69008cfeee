"""The browser's JavaScript against Python, case for case (run with node).

What the page decides or writes must be what tol-run decides or writes:
block orders from a seed (Python's Mersenne Twister and shuffle), the
counterbalanced form of a participant and session, every event of a trial
for the same actions (TrialState), each cell's text and the frame
statistics. Inputs are drawn at random (seeded); expected values come from
the Python code the lab runs.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from tests.system_tools import program
from tol_tasks.errors import IllegalMoveError
from tol_tasks.protocol_format import load_protocol_text
from tol_tasks.protocol_format.loaded import ProblemSpec
from tol_tasks.protocol_format.model import Rules
from tol_tasks.puzzles import from_code
from tol_tasks.runner.frames import frame_stats
from tol_tasks.session_data.eventlog import cell
from tol_tasks.session_data.trial import CopyState, TrialState
from tol_tasks.session_data.trial_rows import in_time_order
from tol_tasks.web import compile_protocol

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "web" / "src"


def node(body: str, payload) -> object:
    """Run ``body`` (an async JS function body given ``input``) with node; its return value."""
    return _node(body, [payload])[0]


def node_each(body: str, payloads: list) -> list:
    """Run ``body`` on each of ``payloads`` in one node process (one start, not one per
    case: each start costs a node and the library's import); the return values in order."""
    return _node(body, payloads)


def _node(body: str, payloads: list) -> list:
    exe = program("node")
    script = (
        "import * as lib from " + json.dumps((SRC / "lib.js").as_uri()) + ";\n"
        "import { readFileSync } from 'node:fs';\n"
        "const run = async (input) => {\n" + body + "\n};\n"
        "const out = [];\n"
        "for (const input of JSON.parse(readFileSync(0, 'utf8'))) out.push(await run(input));\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    done = subprocess.run(
        [exe, "--input-type=module", "-e", script],
        input=json.dumps(payloads), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_one_seed_gives_one_order_in_the_lab_and_online(rng):
    cases = [(rng.choice([rng.randrange(2**31), rng.randrange(2**64), -rng.randrange(10**6), 0]),
              rng.randrange(1, 40)) for _ in range(300)]  # fmt: skip
    expected = []
    for seed, n in cases:
        x = list(range(n))
        random.Random(seed).shuffle(x)
        expected.append(x)
    got = node(
        "return input.map(([s, n]) => new lib.PythonRandom(BigInt(s)).shuffle([...Array(n).keys()]));",
        [[str(s), n] for s, n in cases],
    )
    assert got == expected


COUNTERBALANCED = """
format: 1
name: cb
task: {{type: hanoi, disks: 2}}
counterbalance: {counterbalance}
blocks:
  - {{name: one, problems: [{{id: a, start: AA, goal: CC}}]}}
  - {{name: two, problems: [{{id: b, start: AA, goal: BB}}]}}
  - {{name: three, problems: [{{id: c, start: CC, goal: AA}}]}}
"""


@pytest.mark.parametrize(
    "counterbalance",
    [
        "{by: participant}",
        "{by: session}",
        "{by: participant, forms: {x: [one, two], y: [three], z: [two, three, one]}}",
    ],
)
def test_the_same_form_for_the_same_participant_and_session(counterbalance, rng):
    lp = load_protocol_text(COUNTERBALANCED.format(counterbalance=counterbalance))
    ids = [f"P{rng.randrange(1000):03d}" for _ in range(40)]
    ids += [
        "".join(rng.choice("abcXYZ-_.") for _ in range(8)).strip("-_.") or "a" for _ in range(40)
    ]
    ids += ["S" + "9" * 40, "anna", "P0"]
    cases = [(pid, rng.randrange(1, 9)) for pid in ids]
    expected = [list(lp.form_for(pid, ses)) for pid, ses in cases]
    plan = compile_protocol(lp)["plan"]
    got = node(
        "return input.cases.map(([p, s]) => lib.formFor(input.cb, input.names, p, s));",
        {
            "cases": cases,
            "cb": plan["counterbalance"],
            "names": [b["name"] for b in plan["blocks"]],
        },
    )
    assert got == expected


PUZZLES = ["hanoi:3:3:0", "hanoi:4:4:0", "hanoi:3:3:1", "london:RGB:3-2-1", "london:RRGB:2-2-2-1"]
RULES = [
    {},
    {"same_peg_drop_counts_as_move": True, "violation_counts_as_move": True},
]


def _python_events(code, start, goal, rules, limits, actions):
    puzzle = from_code(code)
    spec = ProblemSpec("p", "b", puzzle, puzzle.parse(start), puzzle.parse(goal), 0,
                       limits.get("time_limit"), limits.get("move_limit"))  # fmt: skip
    trial = TrialState(spec, Rules(**rules))
    out = []
    for kind, value in actions:
        if kind == "pick":
            evs = trial.pick(value)
        elif kind == "drop":
            evs = trial.drop(value)
        else:
            evs = trial.tick(value)
        out.append([{k: str(v) for k, v in e.items()} for e in evs])
    return out


def test_a_trial_logs_the_same_events_for_the_same_actions(rng):
    cases = []
    for _ in range(240):
        code = rng.choice(PUZZLES)
        puzzle = from_code(code)
        states = [str(s) for s in rng.sample(_states(code), 2)]
        if rng.random() < 0.3:  # a goal one move away, to be solved
            start = puzzle.parse(states[0])
            a, b = rng.choice(_legal_moves(puzzle, start))
            states[1] = str(puzzle.move(start, a, b))
        limits = rng.choice([{}, {"move_limit": rng.randrange(1, 8)}, {"time_limit": 30.5}])
        actions = []
        for _ in range(rng.randrange(1, 40)):
            r = rng.random()
            if r < 0.45:
                actions.append(("pick", rng.randrange(puzzle.n_pegs)))
            elif r < 0.9:
                actions.append(("drop", rng.choice([None, *range(puzzle.n_pegs)])))
            else:
                actions.append(("tick", rng.choice([1.0, 30.5, 40.0])))
        cases.append((code, *states, rng.choice(RULES), limits, actions))
    expected = [_python_events(*c) for c in cases]
    got = node(
        """
        return input.map(([code, start, goal, rules, limits, actions]) => {
          const puzzle = lib.fromCode(code);
          const spec = { puzzle, start: puzzle.parse(start), goal: puzzle.parse(goal),
                         time_limit: limits.time_limit ?? null, move_limit: limits.move_limit ?? null };
          const t = new lib.TrialState(spec, rules);
          return actions.map(([kind, v]) => (kind === "pick" ? t.pick(v) : kind === "drop" ? t.drop(v) : t.tick(v))
            .map((e) => Object.fromEntries(Object.entries(e).map(([k, x]) => [k, String(x)]))));
        });
        """,
        cases,
    )
    assert got == expected


def _states(code):
    return list(from_code(code).states())


def _legal_moves(puzzle, state):
    out = []
    for a in range(puzzle.n_pegs):
        for b in range(puzzle.n_pegs):
            if a != b and puzzle.pegs_of(state)[a]:
                try:
                    puzzle.check_move(state, a, b)
                except IllegalMoveError:
                    continue
                out.append((a, b))
    return out


def test_a_copy_trial_refuses_and_logs_as_in_the_lab():
    puzzle = from_code("london:RGB:3-2-1")
    start, seq = "GR|B|", [(0, 2), (0, 1), (2, 0)]
    spec = ProblemSpec("p", "b", puzzle, puzzle.parse(start), puzzle.parse(start), 0, None, None)
    actions = [("pick", 1), ("pick", 0), ("drop", 1), ("pick", 0), ("drop", 2), ("pick", 0),
               ("drop", None), ("pick", 0), ("drop", 1), ("pick", 2), ("drop", 0)]  # fmt: skip
    trial = CopyState(spec, seq)
    expected = [
        [{k: str(v) for k, v in e.items()} for e in getattr(trial, k)(v)] for k, v in actions
    ]
    got = node(
        """
        const puzzle = lib.fromCode("london:RGB:3-2-1");
        const s = puzzle.parse("GR|B|");
        const t = new lib.CopyState({ puzzle, start: s, goal: s }, input.seq);
        return input.actions.map(([k, v]) => t[k](v).map((e) =>
          Object.fromEntries(Object.entries(e).map(([a, x]) => [a, String(x)]))));
        """,
        {"seq": seq, "actions": actions},
    )
    assert got == expected


def test_a_row_before_the_last_is_written_as_the_lab_writes_it(rng):
    # Rows of each kind of time (a press, a row with trial_time and detail, one without
    # time), before, at and after the last row's time.
    cases = []
    for _ in range(300):
        after = round(rng.uniform(0, 600), rng.choice([3, 6, 9]))
        row = {"event": rng.choice(["abort", "pick_up", "attention_lost"]),
               "stamp": rng.choice(["arrival", "polled", "flip"])}  # fmt: skip
        if rng.random() < 0.9:
            row["time"] = rng.choice(
                [after, after - rng.uniform(0, 0.5), after + rng.uniform(0, 5)]
            )
        if rng.random() < 0.5:
            row["trial_time"] = rng.uniform(0, 30)
        if rng.random() < 0.3:
            row["detail"] = "why=focus"
        cases.append([row, after, max(row.get("time", 0), after) + rng.uniform(0, 0.1)])
    got = node_each("return lib.inTimeOrder(...input);", cases)
    assert got == [in_time_order(*case) for case in cases]
    assert sum("at=" in row.get("detail", "") for row in got) > 50  # both branches drawn


def test_cells_and_frame_statistics_are_written_as_python_writes_them(rng):
    floats = [rng.uniform(0, 5000) for _ in range(300)]
    floats += [k / 2**j for k in range(1, 200, 7) for j in (3, 4, 7, 10)]  # exact ties
    floats += [0.0, 1e-7, 123456.5, 0.0078125]
    trials = []
    for _ in range(60):
        n = rng.randrange(0, 50)
        intervals = [rng.choice([1 / 60, 1 / 60 + rng.uniform(-0.002, 0.002), 0.05, 0.0625])
                     for _ in range(n)]  # fmt: skip
        work = [rng.uniform(0, 0.01) for _ in range(max(0, n - 1))]
        trials.append((intervals, rng.choice([None, 60.0, 59.94, 144.0, 1000.0]), work))
    expected = {
        "cells": [cell(x) for x in floats],
        "fixed3": [f"{x:.3f}" for x in floats],
        "g": [f"{x:g}" for x in floats],
        "frames": [frame_stats(i, r, w) for i, r, w in trials],
    }
    got = node(
        """
        const { pyFixed, pyFormatG } = await import(input.src + "/pyformat.js");
        const { cellText } = await import(input.src + "/eventlog.js");
        return {
          cells: input.floats.map((x) => cellText("time", x)),
          fixed3: input.floats.map((x) => pyFixed(x, 3)),
          g: input.floats.map((x) => pyFormatG(x)),
          frames: input.trials.map(([i, r, w]) => lib.frameStats(i, r, w)),
        };
        """,
        {"floats": floats, "trials": trials, "src": SRC.as_uri()},
    )
    assert got == expected


def test_the_plugins_defaults_are_the_protocol_formats(tmp_path):
    from tol_tasks import texts
    from tol_tasks.config import DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS
    from tol_tasks.protocol_format.model import Display

    got = node(
        "const d = await import(input + '/defaults.js'); return {m: d.DEFAULT_MESSAGES, "
        "b: d.DEFAULT_BALL_COLORS, k: d.DEFAULT_DISK_COLORS, display: d.DEFAULT_DISPLAY, "
        "fr: d.messagesFor('fr'), xx: d.messagesFor('xx')};",
        SRC.as_uri(),
    )
    # Every language's texts, as written into web/src/generated by web/build.mjs.
    assert (SRC / "generated" / "texts.json").read_text(encoding="utf-8") == texts.as_json()
    assert got["m"] == texts.messages("en")
    assert got["fr"] == texts.messages("fr")
    assert got["xx"] == texts.messages("en")
    assert got["b"] == DEFAULT_BALL_COLORS
    assert got["k"] == list(DEFAULT_DISK_COLORS)
    display = Display().model_dump(mode="json")
    for key in ("fullscreen", "screen", "window_size"):
        display.pop(key)
    assert got["display"] == display


def _layout_cases(rng, n: int) -> list[dict]:
    """``n`` random apparatus (Hanoi, London) and display settings (goal where, piece size)."""
    cases = []
    for _ in range(n):
        if rng.random() < 0.5:
            pegs, disks = rng.randrange(3, 7), rng.randrange(1, 11)
            kind, caps, largest = "hanoi", [disks] * pegs, disks + rng.randrange(0, 3)
        else:
            kind, largest = "london", None
            caps = [rng.randrange(1, 6) for _ in range(rng.randrange(2, 6))]
        goal = rng.choice(["top", "left", "right", None])
        display = {"piece_scale": rng.choice([0.5, 1.0, 1.2, 3.0]), "show_goal": goal is not None,
                   "goal_position": goal or "top"}  # fmt: skip
        cases.append({"kind": kind, "caps": caps, "display": display, "largest": largest})
    return cases


def test_the_plugins_layout_port_places_everything_as_the_display_model(rng):
    # The tower plugin lays out problems no protocol declares with web/src/layout.js; the
    # Python display model (tol_tasks.display.layout) is the source: every number equal.
    from types import SimpleNamespace

    from tol_tasks.display.layout import screen_layout

    cases = _layout_cases(rng, 200)
    got = node(
        "return input.map((c) => lib.screenLayout(c.kind, c.caps, c.display, c.largest));", cases
    )
    sizes = node(
        "return input.map((c) => { const b = lib.screenLayout(c.kind, c.caps, c.display, "
        "c.largest).board; return [lib.pieceSize(b, 1), lib.pieceSize(b, b.largest), "
        "lib.pieceXY(b, 0, 2)]; });",
        cases,
    )
    for case, js, size in zip(cases, got, sizes, strict=True):
        d = SimpleNamespace(**case["display"])
        layout = screen_layout(case["kind"], case["caps"], d, case["largest"])
        want = _flat(layout.as_dict())
        assert set(_flat(js)) == set(want), case
        for key, value in _flat(js).items():
            assert value == pytest.approx(want[key], abs=1e-12), (case, key)
        b = layout.board
        if case["kind"] == "hanoi":
            want_sizes = [*b.piece_size(1), *b.piece_size(b.largest), *b.piece_xy(0, 2)]
            assert [v for pair in size for v in pair] == pytest.approx(want_sizes, abs=1e-12)


def test_the_plugins_planning_screen_is_the_display_models(rng):
    # A planning-only problem of the tower plugin is laid out by web/src/layout.js
    # planningScreen; tol_tasks.display.planning (what tol-run and the built page use) is
    # the source: every number equal.
    from types import SimpleNamespace

    from tol_tasks.display.planning import planning_screen
    from tol_tasks.protocol_format.model import Display

    cases = [{**c, "n": rng.choice([2, 3, 6, 7, 10, 12, 20, 30])} for c in _layout_cases(rng, 150)]
    got = node(
        "return input.map((c) => lib.planningScreen(c.kind, c.caps, c.display, c.largest, c.n));",
        cases,
    )
    for case, js in zip(cases, got, strict=True):
        puzzle = SimpleNamespace(kind=case["kind"], capacities=tuple(case["caps"]))
        want = _flat(planning_screen(puzzle, Display(**case["display"]), case["largest"],
                                     case["n"]).as_dict())  # fmt: skip
        assert set(_flat(js)) == set(want), case
        for key, value in _flat(js).items():
            assert value == pytest.approx(want[key], abs=1e-12), (case, key)


def test_the_researcher_gets_the_same_warnings_in_the_browser_as_in_the_lab(rng):
    # web/src/quality.js is a port of tol_tasks.session_data.quality.run_warnings.
    from tol_tasks import texts
    from tol_tasks.session_data.quality import run_warnings

    cases = []
    for _ in range(300):
        total = rng.choice([0, 1, 20, 1000])
        meta = {
            "frames": {"total_frames": total, "total_dropped_frames": rng.randrange(total + 1)},
            "timing": {"input_method": rng.choice(["polled", "xinput2-raw", None]),
                       "input_fallback_reason": rng.choice([None, "no X Input 2"]),
                       "unmatched_presses": rng.choice([0, 1, 3]),
                       "unmatched_keys": rng.choice([0, 1, 2]),
                       "input_lost": rng.choice([None, {"time": 12.25, "reason": "died"}])},
            "refresh_rate_hz": rng.choice([None, 59.9, 60.0, 75.0, 143.8]),
            "page": {"hidden": [{"time": 1.0, "state": rng.choice(["hidden", "visible"])}
                                for _ in range(rng.randrange(3))],
                     "fullscreen_exits": [1.0] * rng.randrange(3)},
            "window": {"focus_lost": [1.0] * rng.randrange(3)},
            "simulate": rng.choice([None, {"seed": 1}]),
        }  # fmt: skip
        cases.append({"meta": meta, "declared": rng.choice([None, 60, 144, 59.94]),
                      "language": rng.choice([*texts.languages(), "xx"])})  # fmt: skip
    got = node("return input.map((c) => lib.runWarnings(c.meta, c.declared, c.language));", cases)
    assert got == [run_warnings(c["meta"], c["declared"], c["language"]) for c in cases]
    assert {c["language"] for c in cases} >= set(texts.languages())  # each language compared
    assert any(got)
    assert not all(got)


def test_the_plugin_writes_piece_labels_in_the_colour_the_lab_does(rng):
    # display.piece_labels in the tower plugin: black or white by WCAG luminance, as
    # tol_tasks.display.colors.label_color decides.
    from tol_tasks.config import DEFAULT_BALL_COLORS, DEFAULT_DISK_COLORS
    from tol_tasks.display.colors import label_color

    colors = [*DEFAULT_BALL_COLORS.values(), *DEFAULT_DISK_COLORS, "#fff", "#000"]
    colors += ["#" + "".join(rng.choice("0123456789abcdef") for _ in range(6)) for _ in range(200)]
    got = node("return input.map((c) => lib.labelColor(c));", colors)
    assert got == [label_color(c) for c in colors]


def _flat(value, path: str = "") -> dict:
    """Nested dicts and lists as {path: leaf}."""
    if isinstance(value, dict):
        return {
            k: v for key, item in value.items() for k, v in _flat(item, f"{path}.{key}").items()
        }
    if isinstance(value, (list, tuple)):
        return {
            k: v for i, item in enumerate(value) for k, v in _flat(item, f"{path}[{i}]").items()
        }
    return {path: value}


#: A display for the session driver in node: no page, every problem solved by the
#: shortest path, every copy made as shown, every input at the clock's now.
SCRIPTED_DISPLAY = """
const ev = (clock) => ({ kind: "press", t: clock.now(), x: 0, y: 0, source: "mouse" });
const display = {
  abort: new Promise(() => {}),
  async prepare() {},
  start(driver) { this.clock = driver.clock; this.rows = driver.rows; },
  describe() { return { user_agent: "node", screen: null, window: null, refresh_rate_hz: null, layout: null }; },
  async instructions(pages) {
    pages.forEach((_, k) => {
      this.rows.pageShown(`page-${k + 1}`, this.clock.now());
      this.rows.pageLeft(`page-${k + 1}`, this.clock.now(), "key");
    });
  },
  async readyToContinue() {},
  async message() {},
  async problem(run, { feedback }) {
    run.onset(this.clock.now());
    const s = run.trial.spec;
    for (const [a, b] of lib.shortestPath(run.puzzle, s.start, s.goal)) {
      run.act("pick", a, ev(this.clock));
      run.act("drop", b, ev(this.clock));
    }
    const result = run.end({ intervals: [], work: [] });
    if (feedback) run.feedback(input.proto.languages.en.messages, input.proto.feedback);
    return result;
  },
  async copy(run) {
    run.onset(this.clock.now());
    for (const [a, b] of run.trial.sequence) {
      run.cue(this.clock.now());
      run.act("toggle", a, ev(this.clock));
      run.act("toggle", b, ev(this.clock));
    }
    return run.end({ intervals: [], work: [] });
  },
  close() { return { input_delay_ms: { n: 0 }, frame_work: [], page: { hidden: [], fullscreen_exits: [] } }; },
  async leave() {},
};
"""


@pytest.mark.parametrize("name", ["demo", "london-tol-dx", "tests/data/copies/copies.yaml"])
def test_the_session_driver_runs_a_protocol_without_a_display(name, tmp_path):
    """Any front plugs into the driver: a scripted one in node gives a log tol-score reads."""
    from tol_tasks.protocol_format.load import load_protocol
    from tol_tasks.session_data.eventlog import check_cells, read_event_log
    from tol_tasks.session_data.sidecar import Sidecar

    lp = load_protocol(ROOT / name if name.endswith(".yaml") else name)
    out = node(
        SCRIPTED_DISPLAY
        + """
        const who = { participant: "N001", session: 1, language: "en", fields: {}, params: {} };
        const rows = [];
        const driver = new lib.SessionDriver(input.proto, who, { onRow: (line, row) => rows.push(row) });
        const r = await driver.run(display);
        return { csv: r.log.text(), meta: r.meta, status: r.status, rows };
        """,
        {"proto": compile_protocol(lp)},
    )
    assert out["status"] == "completed"
    log = tmp_path / out["meta"]["event_log"]
    log.write_text(out["csv"])
    log.with_suffix(".json").write_text(json.dumps(out["meta"]))
    data = read_event_log(log)
    check_cells(data)
    rows = data.rows
    assert out["rows"] == list(range(1, len(rows) + 1))  # every row handed over, in order
    assert rows[0]["event"] == "session_start"
    assert rows[-1]["event"] == "session_end"
    assert rows[-1]["reason"] == "completed"
    assert Sidecar.from_dict(out["meta"]).rows_written == len(rows)
    ends = [r for r in rows if r["event"] == "trial_end"]
    onsets = [r for r in rows if r["event"] == "trial_onset"]
    assert ends
    assert len(ends) == len(onsets)
    assert {r["reason"] for r in ends} == {"solved"}
    # Each problem solved in exactly its minimum (the solver's, compiled into the plan).
    plan = compile_protocol(lp)["plan"]
    blocks = [plan["practice"] | {"name": "practice"}, *plan["blocks"]]
    minimum = {(b["name"], p["id"]): p["min_moves"] for b in blocks for p in b["problems"]}
    for r in ends:
        assert int(r["moves"]) == minimum[(r["block"], r["problem_id"])]
    copies = [r for r in rows if r["event"] == "copy_end"]
    assert all(r["reason"] == "copied" for r in copies)
    if name.endswith("copies.yaml"):
        assert copies
