"""``tol-import``: turn tower data collected with other tools into tol-tasks event logs.

Parses the command line and calls :func:`tol_tasks.importers.import_files`.
A bad file never shows a traceback: the error names the file, row, column,
value and fix, and the command exits with status 2 (sessions written before
it are kept). With ``--skip-bad`` it goes on and lists what it skipped.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tol_tasks import __version__

from . import FORMATS, ImportOptions, import_files
from ._source import ImportSourceError

EXIT_OK, EXIT_FAULT = 0, 2


def _capacities(text: str) -> tuple[int, ...]:
    try:
        caps = tuple(int(x) for x in text.replace("-", ",").split(","))
    except ValueError:
        caps = ()
    if len(caps) < 2 or any(c < 1 for c in caps):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give each peg's capacity, left to right, e.g. 3,2,1"
        )
    return caps


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number greater than 0")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    formats = "\n".join(f"  {f.name:<15} {f.title}" for f in FORMATS.values())
    ap = argparse.ArgumentParser(
        prog="tol-import",
        description="Turn tower data collected with other tools into tol-tasks event logs and "
        "sidecars (one per participant session), which tol-score then scores.",
        epilog=f"formats:\n{formats}\n\nEach format's page in docs/import/ lists its field "
        "mapping and what it cannot recover.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("files", nargs="*", metavar="FILE", help="data files of the other tool")
    ap.add_argument("--output", "-o", type=Path, help="folder for the event logs (made if missing)")
    ap.add_argument(
        "--format",
        choices=list(FORMATS),
        metavar="NAME",
        help="the files' format (default: recognised from each file's header)",
    )
    ap.add_argument(
        "--skip-bad",
        action="store_true",
        help="go on past a bad file or participant, listing what was skipped",
    )
    ap.add_argument("--list-formats", action="store_true", help="list the formats and exit")
    ap.add_argument("--version", action="version", version=f"tol-tasks {__version__}")
    who = ap.add_argument_group("participants and sessions")
    who.add_argument("--participant", help="the participant of a file that names none")
    who.add_argument(
        "--session", type=_positive(int), help="session number for files that give none (default 1)"
    )
    who.add_argument(
        "--participant-column",
        metavar="NAME",
        help="the column naming participants (default: worker_id, participant, "
        "subject, ... whichever the file has)",
    )
    who.add_argument("--session-column", metavar="NAME", help="the column giving sessions")
    task = ap.add_argument_group("settings the source does not record")
    task.add_argument(
        "--capacities",
        type=_capacities,
        metavar="3,2,1",
        help="each peg's capacity, left to right (jspsych-tol, pebl-tol)",
    )
    task.add_argument(
        "--time-limit",
        type=_positive(float),
        metavar="SECONDS",
        help="time per problem (jspsych-tol; pebl-tol and pebl-toh: default 120)",
    )
    task.add_argument(
        "--move-limit", type=_positive(int), metavar="N", help="moves per problem (jspsych-tol)"
    )
    task.add_argument(
        "--end-delay",
        type=_positive(float),
        metavar="MS",
        help="the trials' end_delay in milliseconds (jspsych-tol; default 1000)",
    )
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tol-import``: 0 when done (with ``--skip-bad``, skipped files and participants are
    listed on standard error), 2 on a bad file or a usage error."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list_formats:
        for f in FORMATS.values():
            state = " (recognised, not importable)" if f.refused else ""
            print(f"{f.name:<15} {f.title}{state}; see {f.doc}")
        return EXIT_OK
    if not args.files:
        parser.error("give the data files to import")
    if args.output is None:
        parser.error("--output is required: the folder for the event logs")
    options = ImportOptions(
        participant=args.participant,
        session=args.session,
        participant_column=args.participant_column,
        session_column=args.session_column,
        capacities=args.capacities,
        time_limit=args.time_limit,
        move_limit=args.move_limit,
        end_delay=args.end_delay,
    )
    try:
        report = import_files(args.files, args.output, args.format, options, skip_bad=args.skip_bad)
    except ImportSourceError as exc:
        fix = (
            ""
            if "--skip-bad" in str(exc)
            else (
                "\nSessions written before this one are kept; pass --skip-bad to go on past bad "
                "files and participants."
            )
        )
        print(f"tol-import: {exc}{fix}", file=sys.stderr)
        return EXIT_FAULT
    for w in report.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for s in report.skipped:
        print(f"skipped: {s}", file=sys.stderr)
    print(report.text(args.output))
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
