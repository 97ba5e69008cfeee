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
from dataclasses import fields
from pathlib import Path

import tol_tasks.blas  # noqa: F401 - first: before anything imports numpy
from tol_tasks import __version__
from tol_tasks.errors import TolTasksError, path_errors_said
from tol_tasks.options import Idle, given_flags, idle_option
from tol_tasks.session_data.identity import check_participant_id, session_from_text

from . import FORMATS, ImportOptions, import_files, jatos
from .source import ImportSourceError

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


def _by_rule(check):
    """A parser of participants or sessions: the one rule every command uses."""

    def parse(text: str):
        try:
            return check(text)
        except TolTasksError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


#: How each kind of option is read from the command line.
_PARSERS = {"text": str, "count": _positive(int), "seconds": _positive(float),
            "capacities": _capacities, "participant": _by_rule(check_participant_id),
            "session": _by_rule(session_from_text)}  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    formats = "\n".join(f"  {f.name:<15} {f.title}" for f in FORMATS.values())
    formats += f"\n  {jatos.NAME:<15} {jatos.TITLE}"
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
        choices=[*FORMATS, jatos.NAME],
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
    groups: dict[str, argparse._ArgumentGroup] = {}
    for f in fields(ImportOptions):
        meta = f.metadata
        group = groups.get(meta["group"]) or groups.setdefault(
            meta["group"], ap.add_argument_group(meta["group"])
        )
        group.add_argument(ImportOptions.flag(f.name), dest=f.name, type=_PARSERS[meta["kind"]],
                           metavar=meta["metavar"], help=meta["help"])  # fmt: skip
    return ap


def _idle_rules() -> tuple[Idle, ...]:
    """Options that do nothing in some combinations (see tol_tasks.options), declared once."""
    listing = "--list-formats lists the formats and exits; nothing is imported"
    others = ("FILE", "--output", "--format", "--skip-bad",
              *(ImportOptions.flag(f.name) for f in fields(ImportOptions)))  # fmt: skip
    return tuple(Idle(flag, listing, not_with="--list-formats") for flag in others)


@path_errors_said("tol-import")
def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tol-import``: 0 when done (with ``--skip-bad``, skipped files and participants are
    listed on standard error), 2 on a bad file or a usage error."""
    parser = _parser()
    args = parser.parse_args(argv)
    given = given_flags(parser, args) | ({"FILE"} if args.files else set())
    idle = idle_option(_idle_rules(), given)
    if idle is not None:
        print(f"tol-import: {idle}", file=sys.stderr)
        return EXIT_FAULT
    if args.list_formats:
        for f in FORMATS.values():
            state = " (recognised, not importable)" if f.refused else ""
            print(f"{f.name:<15} {f.title}{state}; see {f.doc}")
        print(f"{jatos.NAME:<15} {jatos.TITLE}; see docs/online.md")
        return EXIT_OK
    if not args.files:
        parser.error("give the data files to import")
    if args.output is None:
        parser.error("--output is required: the folder for the event logs")
    options = ImportOptions(**{f.name: getattr(args, f.name) for f in fields(ImportOptions)})
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
