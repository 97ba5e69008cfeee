"""``tol-web build``: what it writes, what it refuses, and the wheel that carries the bundle."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.system_tools import web_bundle
from tests.web_tools import apply, broken_rule, distances_to, read_state, write_state
from tol_tasks.protocol_format import bundled_protocols, load_protocol
from tol_tasks.protocol_format.issues import ProtocolError
from tol_tasks.web import WebBuildError, WebSettings, build_experiment, compile_protocol
from tol_tasks.web.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(bundled_protocols()))
def test_every_bundled_protocol_compiles_with_exact_minimums(name):
    lp = load_protocol(name)
    compiled = compile_protocol(lp)
    plan = compiled["plan"]
    problems = plan["practice"]["problems"] + [p for b in plan["blocks"] for p in b["problems"]]
    assert len(problems) == len(lp.model.practice.problems) + sum(
        len(b.problems) for b in lp.model.blocks
    )
    for p in problems:
        assert p["min_moves"] == distances_to(p["puzzle"], p["goal"])[p["start"]], p["id"]
    assert plan["protocol"]["sha256"] == lp.sha256
    assert compiled["sidecar"]["protocol"]["text"] == lp.text
    assert compiled["sidecar"]["protocol"]["path"] == f"{name}.yaml"  # the name only: it is public
    assert compiled["sidecar"]["recorder"]["runtime"] == "browser"
    assert set(compiled["languages"]) == set(lp.languages())


def test_optimal_copies_carry_a_shortest_solution():
    text = (ROOT / "tests/data/copies/copies.yaml").read_text()
    lp = load_protocol(ROOT / "tests/data/copies/copies.yaml")
    compiled = compile_protocol(lp)
    blocks = compiled["plan"]["blocks"]
    optimal = [b for b in blocks if b["copies"] and b["copies"]["moves"] == "optimal"]
    assert optimal, text
    for block in optimal:
        for p in block["problems"]:
            state = read_state(p["puzzle"], p["start"])
            for a, b in p["optimal"]:
                assert broken_rule(p["puzzle"], state, a, b) is None
                state = apply(state, a, b)
            assert write_state(p["puzzle"], state) == p["goal"]
            assert len(p["optimal"]) == p["min_moves"]


def test_the_build_writes_the_page_the_bundle_the_protocol_and_images(tmp_path):
    web_bundle()
    proto = tmp_path / "p.yaml"
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "board.png").write_bytes(b"\x89PNG fake")
    proto.write_text(
        (ROOT / "protocols/demo.yaml")
        .read_text()
        .replace(
            "  pages:\n    en:\n      - text: |",
            "  pages:\n    en:\n      - image: pics/board.png\n        text: Look.\n      - text: |",
        )
    )
    out = tmp_path / "site"
    settings = WebSettings(participant_param="PROLIFIC_PID", server="/save</script>", study="s1")
    result = build_experiment(proto, out, settings)
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert names == [
        "images/1-board.png",
        "index.html",
        "protocol.json",
        "study.json",
        "tol-tasks.js",
    ]
    assert sorted(result.files) == sorted(out / n for n in names)
    compiled = json.loads((out / "protocol.json").read_text())
    assert compiled["languages"]["en"]["pages"][0]["image"] == "images/1-board.png"
    page = (out / "index.html").read_text()
    assert '"participant_param": "PROLIFIC_PID"' in page
    assert "/save<\\/script>/api/s1/upload" in page
    assert page.count("</script>") == 2
    assert (out / "tol-tasks.js").read_bytes().startswith(b"var TolTasks")


REFUSED = [  # what a browser cannot do (a planning-only block it can: see below)
    ("display:\n  screen: 1\n", "display.screen", "a web page cannot choose the screen"),
    ("input:\n  quit_key: f11\n", "input.quit_key", "full screen"),
    ("input:\n  quit_key: space\n", "input.quit_key", "instruction pages"),
    ("input:\n  quit_key: hyper\n", "input.quit_key", "not a key name"),
    ("input:\n  mode: keys\n  keys: ['1', tab, '3']\n", "input.keys.1", "keyboard focus"),
    ("scanner: {trigger: key, key: '5', tr: 2.0}\n", "scanner", "cannot reach that hardware"),
    ("markers: {lsl: true}\n", "markers", "Lab Streaming Layer"),
    ("eyetracking: {calibrate: false}\n", "eyetracking", "ioHub eye tracker"),
]


MINIMAL = """format: 1
name: web-check
task: {type: hanoi, disks: 2}
blocks:
  - {name: test, problems: [{id: a, start: AA, goal: CC}]}
"""


@pytest.mark.parametrize(("extra", "field", "why"), REFUSED)
def test_what_a_browser_cannot_do_is_refused_with_field_line_and_fix(tmp_path, extra, field, why):
    proto = tmp_path / "p.yaml"
    proto.write_text(MINIMAL + extra)
    bad_line = len(MINIMAL.splitlines()) + len(extra.splitlines())  # the last line added
    with pytest.raises(ProtocolError) as err:
        build_experiment(proto, tmp_path / "site", WebSettings(download=True))
    (issue,) = err.value.issues
    assert issue.field == field
    assert why in issue.message
    assert issue.fix
    assert (issue.file, issue.line) == (str(proto), bad_line)
    assert f"p.yaml:{bad_line}: {field}:" in str(err.value)
    assert not (tmp_path / "site").exists()


PLANNING = "  - {name: ots, planning: {choices: [1, 2, 3]KEYS}, problems: [{id: a, start: AA, goal: CC}]}\n"


@pytest.mark.parametrize(
    ("keys", "why"),
    [("['1', tab, '3']", "keyboard focus"), ("['1', space, '3']", "instruction pages"),
     ("['1', hyper, '3']", "not a key name")],
)  # fmt: skip
def test_a_planning_blocks_keys_are_checked_as_the_peg_keys_are(tmp_path, keys, why):
    proto = tmp_path / "p.yaml"
    block = PLANNING.replace("KEYS", f", keys: {keys}")
    proto.write_text(MINIMAL.replace(MINIMAL.splitlines()[-1] + "\n", block))
    with pytest.raises(ProtocolError) as err:
        build_experiment(proto, tmp_path / "site", WebSettings(download=True))
    (issue,) = err.value.issues
    assert issue.field == "blocks.0.planning.keys.1"
    assert why in issue.message
    assert "'1', '2', '3'" in issue.fix
    assert issue.line == len(MINIMAL.splitlines())
    assert not (tmp_path / "site").exists()


def test_a_planning_only_block_is_compiled_with_its_boxes_keys_and_screen(tmp_path):
    proto = tmp_path / "p.yaml"
    blocks = PLANNING.replace("KEYS", ", keys: [num_1, '2', '3'], until_correct: false")
    proto.write_text(MINIMAL.replace(MINIMAL.splitlines()[-1] + "\n", blocks + "  - {name: b, "
                     "planning: {choices: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
                     "17, 18, 19, 20]}, problems: [{id: c, start: AA, goal: CC}]}\n"))  # fmt: skip
    web_bundle()
    build_experiment(proto, tmp_path / "site", WebSettings(download=True))
    compiled = json.loads((tmp_path / "site" / "protocol.json").read_text())
    assert compiled["compiled_format"] == 4
    ots, many = (b["planning"] for b in compiled["plan"]["blocks"])
    assert ots["choices"] == [1, 2, 3]
    assert ots["keys"] == [{"code": "Numpad1"}, {"key": "2"}, {"key": "3"}]
    assert ots["key_names"] == ["num_1", "2", "3"]
    assert ots["until_correct"] is False
    assert many["keys"] is None
    assert many["until_correct"] is True
    for planning in (ots, many):
        (screen,) = planning["screens"].values()
        assert list(planning["screens"]) == ["hanoi:2:3:0"]
        view, box = screen["view"], screen["box"]
        xs = [x for x, _ in screen["boxes"]]
        assert len(xs) == len(planning["choices"])
        # Left to right, equally spaced, centred, apart, inside the 4:3 box; under the board.
        gaps = {round(b - a, 9) for a, b in itertools.pairwise(xs)}
        assert len(gaps) == 1
        assert min(gaps) > box
        assert xs[0] == pytest.approx(-xs[-1])
        assert xs[-1] + box / 2 < 2 / 3
        assert {y for _, y in screen["boxes"]} == {view["places"]["caption_y"]}
        board = view["board"]
        assert view["places"]["caption_y"] + box / 2 < board["base"][1] - board["base"][3] / 2
        assert min(p["y"] for p in view["goal"]["pegs"]) > max(p["y"] for p in board["pegs"])
        assert screen["text_height"] < box
    # The screen PsychoPy's PlanningTrial draws (the display model's), number for number.
    from tol_tasks.display.planning import planning_screen

    lp = load_protocol(proto)
    spec = lp.block_problems(0)[0]
    assert ots["screens"][spec.puzzle.code] == json.loads(
        json.dumps(planning_screen(spec.puzzle, lp.model.display, 2, 3).as_dict())
    )


def test_the_command_line_builds_and_refuses_without_a_traceback(tmp_path, capsys):
    web_bundle()
    assert main(["build", "demo", "--output", str(tmp_path / "a"), "--session", "2"]) == 2
    err = capsys.readouterr().err
    assert "needs one destination for its data, and none was given" in err
    assert "--server URL" in err
    assert "--download" in err
    assert not (tmp_path / "a").exists()
    pilot = ["build", "demo", "--output", str(tmp_path / "a"), "--session", "2", "--download"]
    assert main(pilot) == 0
    assert "PILOT BUILD: this page collects nothing" in capsys.readouterr().out
    settings = json.loads(
        (tmp_path / "a/index.html").read_text().split("startExperiment(")[1].split(");")[0]
    )["settings"]
    assert settings["session"] == 2
    assert main(["build", "demo", "--output", str(tmp_path / "a"), "--download"]) == 2
    assert "already holds files" in capsys.readouterr().err
    assert main(["build", "demo", "--output", str(tmp_path / "a"), "--force", "--jatos"]) == 0
    assert "JATOS archive" in capsys.readouterr().out
    cases = [
        (["--server", "ftp://x"], "is not a web address"),
        (["--download", "--jatos"], "--jatos and --download were given"),
        (["--download", "--study", "x"], "--study applies to a study on a collection server"),
        (["--server", "/", "--study", "Bad Name"], "cannot name a study"),
        (["--server", "/", "--token", "short"], "is not a study token"),
        (["--participant-param", "a b"], "is not a URL parameter name"),
        (["--language", "xx"], "has no texts in it"),
        (["--session", "0"], "is not a session number"),
    ]
    for args, text in cases:
        if not any(a in args for a in ("--server", "--jatos", "--download")):
            args = ["--download", *args]
        assert main(["build", "demo", "--output", str(tmp_path / "b"), *args]) == 2
        err = capsys.readouterr().err
        assert text in err
        assert "Suggested fix" in err
        assert "Traceback" not in err
    assert main(["build", "no-such", "--output", str(tmp_path / "c")]) == 2
    assert "no bundled protocol has that name" in capsys.readouterr().err
    assert main(["plugin", "--output", str(tmp_path / "p")]) == 0
    assert (tmp_path / "p/plugin-tower.js").read_bytes().startswith(b"var jsPsychTower")


def test_a_missing_bundle_says_how_to_build_it(tmp_path, monkeypatch):
    import tol_tasks.web.build as build

    monkeypatch.setattr(build.resources, "files", lambda package: tmp_path)
    with pytest.raises(WebBuildError, match=r"npm --prefix web ci && npm --prefix web run build"):
        build_experiment("demo", tmp_path / "site", WebSettings(download=True))


@pytest.mark.slow
def test_an_installed_wheel_builds_experiments_without_node(tmp_path):
    """uv build, a clean virtual environment, the wheel installed: tol-web build with no node on PATH."""
    web_bundle()
    uv = subprocess.run(["uv", "--version"], capture_output=True, text=True)
    assert uv.returncode == 0
    dist = tmp_path / "dist"
    done = subprocess.run(["uv", "build", "--out-dir", str(dist)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (wheel,) = dist.glob("*.whl")
    venv = tmp_path / "venv"
    for cmd in (["uv", "venv", "--python", sys.executable, str(venv)],
                ["uv", "pip", "install", "--python", str(venv / "bin/python"), str(wheel)]):  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = str(venv / "bin")  # no node, no npm
    out = tmp_path / "site"
    done = subprocess.run([str(venv / "bin/tol-web"), "build", "london-shallice", "--output",
                           str(out), "--download"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    built = (out / "tol-tasks.js").read_bytes()
    assert built == (ROOT / "tol_tasks/web/static/tol-tasks.js").read_bytes()
    assert json.loads((out / "protocol.json").read_text())["plan"]["protocol"]["name"] == (
        "london-shallice"
    )


def test_labelled_pieces_reach_the_browser_with_the_labs_label_colours():
    from tol_tasks.protocol_format.load import load_protocol_text

    text = load_protocol("london-shallice").text.replace(
        "task:\n", "display: {piece_labels: true, piece_colors: {B: navy}}\ntask:\n", 1
    )
    lp = load_protocol_text(text, "labelled.yaml")
    compiled = compile_protocol(lp)
    (puzzle,) = compiled["puzzles"].values()
    # The ball's letter, in black on the light defaults and in white on navy.
    assert puzzle["labels"] == {"R": ["R", "#000000"], "G": ["G", "#000000"],
                                "B": ["B", "#ffffff"]}  # fmt: skip
    assert all(
        p["labels"] is None for p in compile_protocol(load_protocol("demo"))["puzzles"].values()
    )
