"""``tol-score``: score session logs and export tidy tables. Parses arguments, calls the library."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tol_analysis.conventions import Conventions
from tol_analysis.export import export
from tol_analysis.read import read_sessions, scan
from tol_analysis.score import score_sessions
from tol_tasks.errors import TolTasksError


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tol-score", description="Score tol-tasks session logs into tidy tables."
    )
    ap.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="event logs (.csv) or folders (searched recursively)",
    )
    ap.add_argument(
        "--output", "-o", type=Path, help="folder for the tables (required unless --verify)"
    )
    ap.add_argument("--verify", action="store_true",
                    help="check the logs instead of scoring: sidecars, replay, duplicates, incomplete sessions")  # fmt: skip
    ap.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip bad logs (each reported with its row and reason) instead of stopping",
    )
    ap.add_argument(
        "--plots", action="store_true", help="also write figures (PNG and SVG); needs matplotlib"
    )
    ap.add_argument(
        "--bids",
        action="store_true",
        help="also write a BIDS dataset (bids/: dataset_description.json, participants.tsv, "
        "task-<name>_beh.json, one _beh.tsv per session); re-running adds new sessions",
    )
    ap.add_argument(
        "--spss",
        action="store_true",
        help="also write wide.sav and trials.sav with variable and value labels; needs pyreadstat",
    )
    ap.add_argument(
        "--report",
        action="store_true",
        help="also write reports/: one HTML report per session (prints on 1-2 A4 or Letter "
        "pages) and index.html, a study overview; needs jinja2 and matplotlib",
    )
    ap.add_argument("--language", default="en",
                    help="language of the reports (en, fr); with --report")  # fmt: skip
    ap.add_argument(
        "--same-peg-counts", action="store_true", help="count a drop back on the same peg as a move"
    )
    ap.add_argument(
        "--violations-count", action="store_true", help="count each rule violation as a move too"
    )
    ap.add_argument("--planning-ends", choices=("pick_up", "move"), default="pick_up",
                    help="planning time ends at the first pick-up (default) or the first completed move")  # fmt: skip
    ap.add_argument(
        "--include-practice",
        action="store_true",
        help="include practice in sessions.csv and wide.csv",
    )
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tol-score``: exit 0 when done (with ``--skip-bad``, skipped logs are reported on
    standard error), 2 on a bad log without ``--skip-bad`` or on a usage error."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.verify:
        from tol_analysis.verify import verify

        try:
            report = verify(args.inputs)
        except FileNotFoundError as exc:
            print(f"tol-score: {exc}", file=sys.stderr)
            return 2
        print(report.text())
        return 1 if report.problems else 0
    if args.output is None:
        parser.error("--output is required (or use --verify)")
    conv = Conventions(
        same_peg_drop_counts=args.same_peg_counts, violations_count=args.violations_count,
        planning_ends=args.planning_ends, include_practice=args.include_practice,
    )  # fmt: skip
    try:
        found = scan(args.inputs, exclude=args.output)
    except FileNotFoundError as exc:
        print(f"tol-score: {exc}", file=sys.stderr)
        return 2
    for other in found.left_out:
        print(f"left out: {other}: not an event log (another CSV file in the folder)",
              file=sys.stderr)  # fmt: skip
    paths = found.logs
    if not paths:
        print("tol-score: no event logs (.csv) found in the inputs.", file=sys.stderr)
        return 2
    skipped: list[str] = []
    show = sys.stderr.isatty() and len(paths) >= 10

    def logs():
        for i, (p, got) in enumerate(read_sessions(paths), start=1):
            if show:
                print(f"\rscoring {i}/{len(paths)} {p.name[:40]:<40}", end="", file=sys.stderr)
            if isinstance(got, TolTasksError):
                if not args.skip_bad:
                    raise got
                skipped.append(str(got))
                continue
            yield got

    def skip(log, exc) -> None:
        if not args.skip_bad:
            raise exc
        skipped.append(str(exc))

    try:
        scores = score_sessions(logs(), conv, on_error=skip)
    except TolTasksError as exc:
        text = str(exc)
        if "--skip-bad" in text:
            fix = ""
        elif "Suggested fix" in text:
            fix = "\nOr pass --skip-bad to leave the file out and score the others."
        else:
            fix = "\nSuggested fix: repair or remove the file, or pass --skip-bad."
        print(f"\ntol-score: {text}{fix}", file=sys.stderr)
        return 2
    if show:
        print(file=sys.stderr)
    try:
        written = export(scores, args.output, bids=args.bids, spss=args.spss)
    except ImportError as exc:
        print(f"tol-score: {exc}", file=sys.stderr)
        return 2
    if args.plots:
        try:
            from tol_analysis.plots import write_plots
        except ImportError as exc:
            print(f"tol-score: {exc}", file=sys.stderr)
            return 2
        written += write_plots(scores, args.output / "plots")
    if args.report:
        try:
            from tol_analysis.report import write_reports

            written += write_reports(scores, args.output / "reports", language=args.language)
        except (ImportError, ValueError) as exc:
            print(f"tol-score: {exc}", file=sys.stderr)
            return 2
    for w in scores.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for s in skipped:
        print(f"skipped: {s}", file=sys.stderr)
    print(
        f"tol-score: {scores.rows('sessions')} session(s), {scores.rows('trials')} trial(s), {scores.rows('moves')} "
        f"move(s) scored; {len(skipped)} file(s) skipped; {len(written)} file(s) written to {args.output}"
        + (f"; {len(found.left_out)} other CSV file(s) left out" if found.left_out else "")
    )
    return 0
