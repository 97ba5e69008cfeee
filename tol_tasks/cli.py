"""Command-line entry points. Each parses its arguments and calls library functions.

Bad input never shows a traceback: a :class:`~tol_tasks.errors.TolTasksError`
is printed as it is (it names the file, line, field, value and fix) and the
command exits with status 2.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Sequence
from pathlib import Path

import tol_tasks.blas  # noqa: F401 - first: before anything imports numpy

from . import __version__
from .errors import TolTasksError, path_errors_said, quiet_on_closed_pipe

EXIT_OK, EXIT_FAULT, EXIT_USAGE = 0, 1, 2


def _range(text: str) -> tuple[int, int]:
    try:
        lo, _, hi = text.partition("-")
        return (int(lo), int(hi or lo))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a range such as 3-7, or one number"
        ) from None


def _protocol_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tol-protocol", description="Check, describe and generate tol-tasks protocol files."
    )
    ap.add_argument("--version", action="version", version=f"tol-tasks {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = sub.add_parser("check", help="check protocol files and report every fault")
    check.add_argument("files", nargs="+", metavar="FILE", help="protocol files or bundled names")

    describe = sub.add_parser("describe", help="print a table of a protocol's problems")
    describe.add_argument("file", metavar="FILE", help="a protocol file or bundled name")
    describe.add_argument("--csv", action="store_true", help="write CSV instead of a table")

    sub.add_parser("list", help="list the bundled protocols")

    gen = sub.add_parser("generate", help="build a protocol from constraints")
    gen.add_argument("--task", choices=("hanoi", "london"), default="hanoi")
    gen.add_argument("--disks", type=int, default=3, help="Hanoi: number of disks (3)")
    gen.add_argument("--pegs", type=int, default=3, help="Hanoi: number of pegs (3)")
    gen.add_argument("--adjacent-only", action="store_true", help="Hanoi: neighbouring pegs only")
    gen.add_argument("--balls", default="RGB", help="London: ball letters (RGB)")
    gen.add_argument(
        "--capacities", default="3,2,1", help="London: peg capacities, comma-separated (3,2,1)"
    )
    gen.add_argument("--min-moves", type=_range, default=(2, 7), metavar="LO-HI", help="(2-7)")
    gen.add_argument("--per-level", type=int, default=2, help="problems per minimum-move level (2)")
    gen.add_argument("--start-type", default="any", help="any, tower, 'partial tower' or flat")
    gen.add_argument("--goal-type", default="any", help="any, tower, 'partial tower' or flat")
    gen.add_argument("--paths", choices=("any", "unique", "multiple"), default="any")
    gen.add_argument("--start", help="a fixed start state for every problem, e.g. 'GR|B|'")
    gen.add_argument("--time-limit", type=float, help="seconds per problem")
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--name", default="generated", help="the protocol's name")
    gen.add_argument("--output", "-o", type=Path, help="write here instead of standard output")
    return ap


@quiet_on_closed_pipe
@path_errors_said("tol-protocol")
def protocol_main(argv: Sequence[str] | None = None) -> int:
    """``tol-protocol``: check, describe, list and generate protocols."""
    args = _protocol_parser().parse_args(argv)
    try:
        return _protocol_command(args, list(sys.argv[1:] if argv is None else argv))
    except TolTasksError as exc:
        print(f"tol-protocol: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _protocol_command(args: argparse.Namespace, argv: list[str]) -> int:
    from tol_tasks.protocol_format.describe import DESCRIBE_COLUMNS, describe_protocol, format_table
    from tol_tasks.protocol_format.issues import ProtocolError
    from tol_tasks.protocol_format.load import bundled_protocols, load_protocol

    if args.command == "check":
        failed = 0
        for f in args.files:
            try:
                lp = load_protocol(f)
            except ProtocolError as exc:
                failed += 1
                print(exc, file=sys.stderr)
                continue
            n = sum(1 for _ in lp.all_problems())
            print(f"{f}: OK ({lp.name}, {n} problems, sha256 {lp.sha256[:12]})")
            for warning in lp.warnings:  # the protocol runs; these should be seen to
                print(warning, file=sys.stderr)
        return EXIT_FAULT if failed else EXIT_OK

    if args.command == "describe":
        lp = load_protocol(args.file)
        rows = describe_protocol(lp)
        if args.csv:
            w = csv.DictWriter(sys.stdout, fieldnames=DESCRIBE_COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        else:
            m = lp.model
            print(f"{m.name} {m.version}: {m.description.strip()}")
            if m.citation:
                print(f"Source: {m.citation.strip()}")
            print()
            print(format_table(rows))
        return EXIT_OK

    if args.command == "list":
        for name, path in bundled_protocols().items():
            lp = load_protocol(path)
            print(f"{name:<20} {lp.model.description.strip()[:70]}")
        return EXIT_OK

    from tol_tasks.protocol_format.generate import GeneratorSpec, generate_protocol

    try:
        caps = tuple(int(c) for c in args.capacities.split(","))
    except ValueError:
        print(
            f"tol-protocol: --capacities {args.capacities!r}: give whole numbers such as 3,2,1",
            file=sys.stderr,
        )
        return EXIT_USAGE
    spec = GeneratorSpec(
        task=args.task, disks=args.disks, pegs=args.pegs, adjacent_only=args.adjacent_only,
        balls=args.balls, capacities=caps, min_moves=args.min_moves, per_level=args.per_level,
        start_type=args.start_type, goal_type=args.goal_type, paths=args.paths,
        start=args.start, seed=args.seed, name=args.name, time_limit=args.time_limit,
    )  # fmt: skip
    text = generate_protocol(spec, ["tol-protocol", *argv])
    if args.output:
        if args.output.exists():
            print(
                f"tol-protocol: {args.output} exists; choose another --output (nothing was overwritten).",
                file=sys.stderr,
            )
            return EXIT_USAGE
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _timing_parser() -> argparse.ArgumentParser:
    from tol_tasks.config import INPUT_TIMINGS

    ap = argparse.ArgumentParser(
        prog="tol-timing",
        description="Check this computer's timing before collecting data: open the task's "
        "window, start the input source tol-run would use, draw for a while; print how "
        "presses are stamped, the refresh rate and the dropped frames, as sentences for a "
        "methods section.",
    )
    ap.add_argument("--seconds", type=float, default=10.0,
                    help="how long frames are drawn and recorded (default 10)")  # fmt: skip
    ap.add_argument("--windowed", action="store_true",
                    help="a window, not the full screen (sessions use the full screen)")  # fmt: skip
    ap.add_argument("--screen", type=int, default=0, help="which screen (0: the first)")
    ap.add_argument("--input-timing", default="auto",
                    choices=[t for t in INPUT_TIMINGS if t != "polled"],
                    help="the on-arrival source to try, as tol-run's (default auto)")  # fmt: skip
    return ap


@quiet_on_closed_pipe
@path_errors_said("tol-timing")
def timing_main(argv: Sequence[str] | None = None) -> int:
    """``tol-timing``: the timing self-test of this computer (stamp method, refresh, drops)."""
    args = _timing_parser().parse_args(argv)
    if args.seconds <= 0:
        print(f"tol-timing: --seconds {args.seconds}: must be more than 0. Suggested fix: "
              "give a duration such as 10.", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    from tol_tasks.runner import import_psychopy_part

    try:
        selftest = import_psychopy_part("selftest")
        found = selftest.timing_self_test(args.seconds, windowed=args.windowed,
                                          screen=args.screen, input_timing=args.input_timing)  # fmt: skip
    except TolTasksError as exc:
        print(f"tol-timing: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(
        f"input method:    {found.input_method}"
        + (f" (polled because: {found.polled_reason})" if found.polled_reason else "")
    )
    refresh = f"{found.refresh_rate_hz:.2f} Hz" if found.refresh_rate_hz else "not measurable"
    print(f"refresh rate:    {refresh}")
    print(f"frames:          {found.frames}, dropped {found.dropped_frames} (period "
          f"{found.frame_period_ms} ms from the {found.period_source}; longest interval "
          f"{found.frame_interval_max_ms} ms)")  # fmt: skip
    print(f"window:          {found.window}")
    print()
    print("For a methods section:")
    print(found.methods_text())
    return EXIT_OK


def _run_parser() -> argparse.ArgumentParser:
    from tol_tasks.runner.settings import add_cli_options

    ap = argparse.ArgumentParser(
        prog="tol-run", description="Run a participant session of a protocol in a PsychoPy window."
    )
    ap.add_argument("protocol", nargs="?", help="a protocol file, or a bundled name such as demo")
    add_cli_options(ap)  # one option per run setting (tol_tasks.runner.settings.RunSettings)
    return ap


@quiet_on_closed_pipe
@path_errors_said("tol-run")
def run_main(argv: Sequence[str] | None = None) -> int:
    """``tol-run``: run a session; print where the data went.

    Exit status: 0 completed; 1 ended otherwise (the quit key); 2 bad input, a session
    already running, or data that could not be written (the message says where they are
    and how to resume); 3 the display lost; 128 + N a signal N (130 Ctrl-C, 143 SIGTERM,
    129 SIGHUP), the session interrupted (or never started).
    """
    args = _run_parser().parse_args(argv)
    from tol_tasks.runner.interrupt import (
        Interrupts,
        SessionInterrupted,
        exit_status,
        handling_signals,
    )

    interrupts = Interrupts()
    try:
        with handling_signals(interrupts):
            return _run(args, interrupts)
    except SessionInterrupted as sig:
        print(f"tol-run: interrupted ({sig.name}) before the session started; nothing was "
              "written.", file=sys.stderr)  # fmt: skip
        return exit_status(sig.name)


def _run(args: argparse.Namespace, interrupts) -> int:
    from tol_tasks.protocol_format.load import load_protocol
    from tol_tasks.runner.settings import RunSettings, settings_from_cli
    from tol_tasks.session_data.identity import check_participant_id, session_from_text

    if args.resume is not None:
        return _resume(args, interrupts)
    if args.protocol is None:
        print(
            "tol-run: give a protocol (a file or a bundled name), or --resume LOG.", file=sys.stderr
        )
        return EXIT_USAGE
    try:
        settings_from_cli(args)  # every option checked (and every combination) before a dialog
        lp = load_protocol(args.protocol)  # read and checked once; passed down to the session
        for warning in lp.warnings:
            print(f"tol-run: {warning}", file=sys.stderr)
        participant = args.participant
        session = args.session if args.session is not None else RunSettings.session
        extra = _fields(args.extra_fields or [], lp)
        if participant is None:
            if args.simulate:
                participant = "sim"
            else:
                from tol_tasks.runner.dialog import participant_dialog

                def checked(answers: dict[str, str]) -> RunSettings:
                    pid, text = answers.pop("participant"), answers.pop("session")
                    return settings_from_cli(args, participant=check_participant_id(pid),
                                             session=session_from_text(text),
                                             extra_fields=_dialog_fields(answers, lp))  # fmt: skip

                settings = participant_dialog(lp, session, checked)
                if settings is None:
                    print("tol-run: cancelled; nothing was written.")
                    return EXIT_OK
                return _run_and_report(settings, lp, "session", interrupts)
        settings = settings_from_cli(args, participant=participant, session=session,
                                     extra_fields=extra)  # fmt: skip
    except TolTasksError as exc:
        print(f"tol-run: {_run_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    return _run_and_report(settings, lp, "session", interrupts)


def _fields(pairs: list[str], lp) -> dict[str, str]:
    """``--field NAME=VALUE`` pairs, checked against the protocol's participant fields."""
    known = lp.model.participant_fields
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in known:
            names = ", ".join(known) or "none"
            raise TolTasksError(
                f"--field {pair!r}: {'no NAME=VALUE' if not sep else f'{name!r} is not a participant field of {lp.name!r}'}.",
                field="--field",
                value=pair,
                fix=f"give NAME=VALUE with NAME one of the protocol's participant_fields ({names}).",
            )
        out[name] = _field_value(lp, name, value, f"--field {pair!r}", "--field",
                                 f"{name}=VALUE with VALUE")  # fmt: skip
    return out


def _dialog_fields(answers: dict[str, str], lp) -> dict[str, str]:
    """The participant dialog's answers for the protocol's fields, each checked by its type."""
    return {name: _field_value(lp, name, value, f"{name} {value!r}", name, name)
            for name, value in answers.items()}  # fmt: skip


def _field_value(lp, name: str, value: str, said: str, field: str, give: str) -> str:
    """``value`` for the participant field ``name``, or an error naming what it must be."""
    spec = lp.model.participant_fields[name]
    fault = spec.check(value)
    if fault:
        raise TolTasksError(
            f"{said}: {fault} (the protocol {lp.name!r} declares {name!r} a {spec.type} field).",
            field=field, value=value, fix=f"give {give} {_allowed(spec)}.",
        )  # fmt: skip
    return value


def _allowed(spec) -> str:
    """What a participant field accepts, in words."""
    if spec.type == "choice":
        return f"one of {', '.join(spec.choices)}"
    if spec.type == "text":
        return "one line of text"
    bounds = (f" from {spec.min:g}" if spec.min is not None else "") + (
        f" to {spec.max:g}" if spec.max is not None else ""
    )
    return ("a whole number" if spec.type == "integer" else "a number") + bounds


def _run_error(exc: TolTasksError) -> str:
    """An error as tol-run says it: settings by their option, a lost write with how to go on."""
    from tol_tasks.runner.prepare import SessionExistsError
    from tol_tasks.runner.rescue import SessionNotStartedError, SessionStoppedError
    from tol_tasks.runner.settings import CLI, SettingsError, cli_flag
    from tol_tasks.session_data.eventlog import EventLogWriteError

    if isinstance(exc, SettingsError) and (flag := cli_flag(exc.field)) is not None:
        problem, fix = exc.worded(lambda name: cli_flag(name) or name)
        fix = f" Suggested fix: {fix}" if fix else ""
        value = exc.value
        if isinstance(value, dict):  # --field pairs, as given
            value = " ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, Path):
            value = str(value)
        value = "" if value is True else f" {value!r}"  # a switch is named alone
        return f"{flag}{value} {problem}{fix}"
    if isinstance(exc, (SessionStoppedError, SessionNotStartedError)):
        return str(exc)
    if isinstance(exc, EventLogWriteError):
        return f"{exc} Continue with: {CLI} --resume {exc.where}"
    if isinstance(exc, SessionExistsError):
        fixes = []
        if exc.resumable is not None:
            fixes.append(f"continue it with: {CLI} --resume {exc.resumable.log}")
        fixes += [f"give another {cli_flag('session')}",
                  f"add {cli_flag('new_attempt')} to start session {exc.value} again on purpose "
                  "(its sidecar records it as session_attempt)"]  # fmt: skip
        return f"{exc.head} Suggested fix: {'; or '.join(fixes)}."
    return str(exc)


def _run_and_report(settings, protocol, what: str, interrupts) -> int:
    """Run a configured session; say where the data went. Exit 0 only when completed."""
    from .runner import run_session
    from .runner.interrupt import exit_status

    try:
        result = run_session(settings, protocol, interrupts)
    except TolTasksError as exc:
        print(f"tol-run: {_run_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    how = f" ({result.signal})" if result.signal else ""
    print(f"tol-run: {what} {result.status}{how}: {result.rows} events in the log")
    print(f"  event log: {result.events}")
    print(f"  sidecar:   {result.sidecar}")
    print(f"  input:     {result.unmatched_presses} press(es) and {result.unmatched_keys} "
          f"key(s) only the window saw (stamped polled); {result.late_twins} late twin(s) "
          "dropped")  # fmt: skip
    for line in result.warnings:  # what the examiner should know about the recording
        print(f"tol-run: warning: {line}", file=sys.stderr)
    if result.status == "interrupted":
        print(f"tol-run: the session was interrupted by {result.signal}; every event is kept. "
              f"Continue with: {_cli_name()} --resume {result.events}", file=sys.stderr)  # fmt: skip
        return exit_status(result.signal)
    return EXIT_OK if result.status == "completed" else EXIT_FAULT


def _cli_name() -> str:
    from tol_tasks.runner.settings import CLI

    return CLI


def _resume(args: argparse.Namespace, interrupts) -> int:
    from tol_tasks.runner.settings import RunSettings, settings_from_cli
    from tol_tasks.session_data.resume import find_interrupted

    try:
        if args.protocol is not None:
            raise TolTasksError(
                f"the protocol {args.protocol!r} has no effect with --resume: a resumed session "
                "runs the protocol its sidecar names (the file, or the copy kept in the sidecar).",
                field="protocol", value=args.protocol,
                fix="leave the protocol out (add --force to go on with a changed protocol file).",
            )  # fmt: skip
        log = args.resume
        if log:
            # The participant, session and language come from the interrupted session's sidecar
            # (--participant, --session or --output given too are refused as having no effect).
            settings = settings_from_cli(args, resume=Path(log))
        elif args.participant is None:
            print("tol-run: --resume needs the session's .csv file, or --participant (and "
                  "--session, --output) to find it.", file=sys.stderr)  # fmt: skip
            return EXIT_USAGE
        else:
            session = args.session if args.session is not None else RunSettings.session
            log = find_interrupted(args.output or RunSettings.output, args.participant, session)
            settings = settings_from_cli(args, resume=Path(log), participant=None,
                                         session=RunSettings.session, output=RunSettings.output)  # fmt: skip
    except TolTasksError as exc:
        print(f"tol-run: {_run_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    return _run_and_report(settings, None, "resumed session", interrupts)
