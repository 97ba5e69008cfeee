"""The warm interpreter of the tests (tests/warm.py): a program it plays behaves as the same
program started as a process of its own (exit code, output, signals, kills, environment)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests import warm as warm_module
from tests.runner_tools import exe
from tests.warm import warm

#: A program that shows what it was given: its arguments, working folder, an environment
#: variable, what it reads, and what SIGHUP is set to; writes to both outputs; exits 3.
_SHOW = textwrap.dedent("""\
    import os, signal, sys
    print("argv", sys.argv[1:], "cwd", os.getcwd(), "var", os.environ.get("WARM_TEST_VAR"))
    print("stdin", sys.stdin.read().strip(), "hup", signal.getsignal(signal.SIGHUP))
    print("to stderr", file=sys.stderr)
    sys.exit(3)
""")


def _both(argv: list[str], env: dict, **kwargs) -> tuple:
    """``argv`` run as a process of its own, then played warm: both finished processes."""
    warmed = warm(argv, env)
    assert warmed != argv
    assert "warm_client.py" in warmed[3]
    real = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, **kwargs)
    played = subprocess.run(warmed, env=env, capture_output=True, text=True, timeout=120,
                            **kwargs)  # fmt: skip
    return real, played


def test_code_and_scripts_give_the_same_exit_code_output_and_environment(xdisplay, tmp_path):
    env = {**xdisplay, "WARM_TEST_VAR": "été"}
    script = tmp_path / "show.py"
    script.write_text(_SHOW, encoding="utf-8")
    for argv in ([sys.executable, "-c", _SHOW, "a b", "--x"], [sys.executable, str(script), "1"]):
        real, played = _both(argv, env, cwd=tmp_path, input="hello\n")
        assert real.returncode == played.returncode == 3
        assert played.stdout == real.stdout
        assert played.stderr == real.stderr == "to stderr\n"
        assert "var été" in played.stdout
        assert f"cwd {tmp_path}" in played.stdout


def test_an_uncaught_exception_prints_the_same_traceback(xdisplay, tmp_path):
    code = "def f():\n    raise ValueError('no good')\nf()\n"
    real, played = _both([sys.executable, "-c", code], xdisplay)
    assert real.returncode == played.returncode == 1
    assert played.stderr == real.stderr
    assert played.stderr.endswith("ValueError: no good\n")


def test_the_entry_point_gives_the_same_exit_code_and_messages(xdisplay, tmp_path):
    broken = Path(__file__).parent / "data" / "broken" / "wrong-min.yaml"
    argv = [exe("tol-run"), str(broken), "--participant", "P1", "--output", str(tmp_path / "d")]
    real, played = _both(argv, xdisplay)
    assert real.returncode == played.returncode == 2
    assert played.stderr == real.stderr
    assert "min_moves" in played.stderr
    real, played = _both([exe("tol-run"), "--help"], xdisplay)
    assert real.returncode == played.returncode == 0
    assert played.stdout == real.stdout
    assert "--simulate" in played.stdout


def test_signals_reach_the_program_and_its_end_is_the_same(xdisplay, tmp_path):
    handled = textwrap.dedent("""\
        import signal, sys, time
        signal.signal(signal.SIGTERM, lambda *_: (print("terminated"), sys.exit(5)))
        signal.signal(signal.SIGUSR1, lambda *_: print("usr1", flush=True))
        print("ready", flush=True)
        while True:
            time.sleep(0.05)
    """)
    default = "import time\nprint('ready', flush=True)\ntime.sleep(60)\n"
    for code, sent, expected in ((handled, signal.SIGTERM, 5), (default, signal.SIGTERM, -15),
                                 (default, signal.SIGINT, -2), (default, signal.SIGHUP, -1)):  # fmt: skip
        ends = []
        for argv in ([sys.executable, "-c", code], warm([sys.executable, "-c", code], xdisplay)):
            # every signal at its default, as from a terminal (a suite started in the
            # background of a script has SIGINT ignored, and a program inherits it)
            proc = subprocess.Popen(["env", "--default-signal", *argv], env=xdisplay, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)  # fmt: skip
            assert proc.stdout.readline() == "ready\n"
            if code is handled:
                proc.send_signal(signal.SIGUSR1)
                assert proc.stdout.readline() == "usr1\n"
            proc.send_signal(sent)
            out, err = proc.communicate(timeout=60)
            ends.append((proc.returncode, out, err.splitlines()[-1:]))
        assert ends[0] == ends[1]
        assert ends[0][0] == expected


def test_a_signal_ignored_by_the_starter_stays_ignored(xdisplay, tmp_path):
    code = "import signal\nprint(signal.getsignal(signal.SIGHUP) == signal.SIG_IGN)\n"
    ignoring = ["env", "--ignore-signal=HUP"]
    real = subprocess.run([*ignoring, sys.executable, "-c", code], env=xdisplay,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    played = subprocess.run([*ignoring, *warm([sys.executable, "-c", code], xdisplay)],
                            env=xdisplay, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert real.stdout == played.stdout == "True\n"


def test_killing_the_stand_in_kills_the_program_and_its_children(xdisplay, tmp_path):
    pids = tmp_path / "pids"
    code = textwrap.dedent(f"""\
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(120)
    """)
    stand_in = subprocess.Popen(warm([sys.executable, "-c", code], xdisplay), env=xdisplay)
    deadline = time.monotonic() + 120
    while not (pids.exists() and len(pids.read_text().split()) == 2):
        assert time.monotonic() < deadline, "the program never started"
        time.sleep(0.05)
    stand_in.kill()  # SIGKILL, as a subprocess timeout sends it: to the stand-in only
    assert stand_in.wait(timeout=30) == -signal.SIGKILL
    deadline = time.monotonic() + 30
    alive = [int(p) for p in pids.read_text().split()]
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if Path(f"/proc/{p}").exists() and not _zombie(p)]
        time.sleep(0.05)
    assert alive == []


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def test_each_program_draws_its_own_random_numbers_and_starts_its_clocks(xdisplay):
    code = textwrap.dedent("""\
        import random, numpy, psychopy.clock
        print(random.random(), numpy.random.random(), psychopy.clock.monotonicClock.getTime())
    """)
    warm_module.server()  # (its clock started at its imports, before this)
    draws = []
    for _ in range(2):
        started = time.monotonic()
        done = subprocess.run(warm([sys.executable, "-c", code], xdisplay), env=xdisplay,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        lasted = time.monotonic() - started
        assert done.returncode == 0, done.stderr  # (its output was once empty, in a full suite)
        assert done.stdout, done.stderr
        draw, numpy_draw, clock = done.stdout.split()
        assert 0 <= float(clock) < lasted  # started in this program, not in the server
        draws.append((draw, numpy_draw))
    assert draws[0][0] != draws[1][0]
    assert draws[0][1] != draws[1][1]


_FLIPS = textwrap.dedent("""\
    import statistics, time
    from psychopy import visual
    win = visual.Window((200, 150), winType="pyglet")
    stamps = []
    for _ in range(41):
        win.flip()
        stamps.append(time.perf_counter())
    print(statistics.median(b - a for a, b in zip(stamps, stamps[1:])) * 1000)
""")


def test_the_windows_of_programs_played_warm_flip_at_a_screens_refresh(xdisplay):
    """Xvfb has no vertical blank: a played program's window flips on a clock of the tests'
    refresh rate (warm.REFRESH, or ``TOL_TESTS_REFRESH``), as on a lab's screen, not as fast
    as the processor lets it; ``TOL_TESTS_REFRESH=0`` leaves it unpaced."""
    argv = [sys.executable, "-c", _FLIPS]
    medians = {}
    for rate in (None, "60", "0"):
        env = {k: v for k, v in xdisplay.items() if k != "TOL_TESTS_REFRESH"}
        if rate is not None:
            env["TOL_TESTS_REFRESH"] = rate
        done = subprocess.run(warm(argv, env), env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        medians[rate] = float(done.stdout.split()[-1])
    period = 1000 / warm_module.REFRESH
    assert period - 1 < medians[None] < period + 1.5, medians
    assert 15.6 < medians["60"] < 18.2, medians
    assert medians["0"] < period - 2, medians


def test_what_cannot_be_played_the_same_is_started_as_is(xdisplay, monkeypatch):
    code = [sys.executable, "-c", "pass"]
    assert warm(code, xdisplay) != code
    unchanged = (
        ([sys.executable, "-X", "importtime", "-c", "pass"], xdisplay),  # interpreter options
        (["/usr/bin/python3", "-c", "pass"], xdisplay),  # another interpreter
        ([exe("tol-web"), "--help"], xdisplay),  # a command it does not play
        (code, {**xdisplay, "PYTHONPATH": "/elsewhere"}),  # import-time settings differ
        (code, {**xdisplay, "LD_PRELOAD": "libfaketime.so.1"}),  # a library preloaded
        (code, {**xdisplay, "PYTHONMALLOC": "debug"}),  # start-time settings differ
        (code, {**xdisplay, "DISPLAY": ":999"}),  # no X server there
        (code, {k: v for k, v in xdisplay.items() if k != "DISPLAY"}),
    )
    for argv, env in unchanged:
        assert warm(argv, env) == argv, argv
    monkeypatch.setenv("TOL_TESTS_COLD", "1")
    assert warm(code, xdisplay) == code


def test_the_commands_without_psychopy_are_played_the_same_by_a_server_without_it(tmp_path):
    # No display: tol-score, tol-import and tol-protocol need none (the plain server).
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    broken = Path(__file__).parent / "data" / "broken" / "wrong-min.yaml"
    golden = Path(__file__).parent / "data" / "golden" / "sessions"
    cases = (
        [exe("tol-score"), str(golden), "--verify"],
        [exe("tol-score"), str(tmp_path / "no-such-folder"), "--output", str(tmp_path / "x")],
        [exe("tol-protocol"), "check", "demo", str(broken)],
        [exe("tol-import"), "--list-formats"],
        [exe("tol-import"), str(broken), "--output", str(tmp_path / "imported")],
    )
    for argv in cases:
        real, played = _both(argv, env)
        assert warm_module.server("plain").path in warm(argv, env)
        assert played.returncode == real.returncode, argv
        assert played.stdout == real.stdout, argv
        assert played.stderr == real.stderr, argv
    assert real.returncode == 2  # (the checks can fail)
    # Its children import no PsychoPy (nor pyglet): what the commands import is theirs.
    code = (
        "import sys; print(sorted({m.split('.')[0] for m in sys.modules} & {'psychopy', 'pyglet'}))"
    )
    stand_in = [sys.executable, "-I", "-S", str(warm_module.CLIENT), warm_module.server("plain").path,
                "code", code]  # fmt: skip
    done = subprocess.run(stand_in, env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


def test_the_modules_of_real_processes_are_never_played_warm(xdisplay, monkeypatch):
    code = [sys.executable, "-c", "pass"]
    for module in warm_module.REAL_PROCESS_MODULES:
        assert (Path(__file__).parent / f"{module}.py").is_file(), module
        monkeypatch.setenv("PYTEST_CURRENT_TEST", f"tests/{module}.py::test_x (call)")
        assert warm(code, xdisplay) == code
