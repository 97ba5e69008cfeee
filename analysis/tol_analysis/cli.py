"""``tol-score``: score session logs and export tidy tables. Parses arguments, calls the library."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import tol_tasks.blas  # noqa: F401 - first: before anything imports numpy
from tol_analysis.columns import WHEN_PRESENT
from tol_analysis.conventions import Conventions
from tol_analysis.export import manifest as outputs
from tol_analysis.export.write import export
from tol_analysis.read.duplicates import sort_out_found
from tol_analysis.read.find import NEVER_STARTED_NOTE, scan
from tol_analysis.read.logs import read_sessions
from tol_analysis.read.sidecar import may_have_planning
from tol_analysis.read.spill import Sidecars
from tol_analysis.score.scores import score_sessions
from tol_tasks.errors import TolTasksError, path_errors_said
from tol_tasks.options import Idle, given_flags, idle_option

#: What --verify leaves undone: every option that scores or writes does nothing with it.
_SCORING_OPTIONS = ("--output", "--plots", "--bids", "--spss", "--report", "--language",
                    "--same-peg-counts", "--violations-count", "--planning-ends",
                    "--include-practice", "--skip-bad", "--replace",
                    "--bids-include-simulated")  # fmt: skip

#: Options that do nothing in some combinations (see tol_tasks.options), declared once.
IDLE = (
    *(Idle(flag, "--verify checks the logs and writes nothing; it reports every problem",
           not_with="--verify") for flag in _SCORING_OPTIONS),
    Idle("--language", "it is the language of the reports", needs="--report"),
    Idle("--bids-include-simulated", "it puts simulated sessions in the BIDS dataset",
         needs="--bids"),
)  # fmt: skip


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
    ap.add_argument(
        outputs.REPLACE_OPTION,
        action="store_true",
        help="replace the outputs of an earlier scoring in the --output folder: only what its "
        "manifest (tol-score-manifest.json) lists; anything else there is left alone and "
        "named. Without it such a folder is refused",
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
        "task-<name>_beh.json, one _beh.tsv per session); simulated sessions are left out",
    )
    ap.add_argument(
        "--bids-include-simulated",
        action="store_true",
        help="with --bids: put simulated sessions in the BIDS dataset too (marked in "
        "participants.tsv and the _beh.tsv files)",
    )
    ap.add_argument(
        "--spss",
        action="store_true",
        help="also write wide.sav and trials.sav with variable and value labels; needs pyreadstat",
    )
    ap.add_argument(
        "--report",
        action="store_true",
        help="also write reports/: one HTML report per session, every number explained "
        "(prints on A4 or Letter), and index.html, a study overview; needs jinja2 and matplotlib",
    )
    ap.add_argument("--language",
                    help="language of the reports (en, fr; default en); with --report")  # fmt: skip
    ap.add_argument(
        "--same-peg-counts", action="store_true", help="count a drop back on the same peg as a move"
    )
    ap.add_argument(
        "--violations-count", action="store_true", help="count each rule violation as a move too"
    )
    ap.add_argument("--planning-ends", choices=("pick_up", "move"),
                    help="planning time ends at the first pick-up (default) or the first completed move")  # fmt: skip
    ap.add_argument(
        "--include-practice",
        action="store_true",
        help="include practice in sessions.csv and wide.csv",
    )
    return ap


@path_errors_said("tol-score")
def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tol-score``: exit 0 when done (with ``--skip-bad``, skipped logs are reported on
    standard error), 2 on a bad log without ``--skip-bad`` or on a usage error, 1 when
    ``--verify`` finds a problem."""
    parser = _parser()
    args = parser.parse_args(argv)
    idle = idle_option(IDLE, given_flags(parser, args))
    if idle is not None:
        return _fail(idle)
    if args.verify:
        return _verify(args.inputs)
    if args.output is None:
        parser.error("--output is required (or use --verify)")
    out = outputs.OutputFolder(
        args.output,
        args.inputs,
        args.replace,
        outputs.writes(args.plots, args.report, args.bids, args.spss),
    )
    try:
        return _score(args, out)
    finally:
        out.release()


def _score(args, out: outputs.OutputFolder) -> int:
    """Score into the output folder ``out`` (checked here, before anything is read)."""
    found = None
    try:
        # The logs found kept on disk (a million paths are never a million objects).
        found = scan(args.inputs, exclude=args.output, on_disk=True)
        earlier = out.check()
        _check_extras(args)
    except (TolTasksError, FileNotFoundError, ImportError, ValueError) as exc:
        if found is not None:
            found.files.close()
        return _fail(str(exc))
    try:
        return _score_found(args, out, found, earlier)
    finally:
        found.files.close()


def _score_found(args, out: outputs.OutputFolder, found, earlier: list[str]) -> int:
    """Score the logs ``found`` (:func:`~tol_analysis.read.find.scan` kept on disk) into ``out``."""
    for other in found.left_out:
        print(f"left out: {other}: not an event log (another CSV file in the folder)",
              file=sys.stderr)  # fmt: skip
    for cut in found.never_started:
        print(f"left out: {cut}: {NEVER_STARTED_NOTE}", file=sys.stderr)
    if not found.files.count():
        return _fail(
            f"no event logs (.csv) found in {', '.join(args.inputs)}"
            + (" but logs that never started" if found.never_started else "")
            + ". Suggested fix: give the folders (or files) that hold the logs tol-run wrote "
            "(its --output folder: data/ by default)."
        )
    one = sort_out_found(found.files)
    skipped: list[str] = []
    for note in one.left_out:
        print(f"left out: {note}.", file=sys.stderr)
    if one.conflicts:
        if not args.skip_bad:
            return _fail("\n".join(str(c) for c in one.conflicts))
        skipped += [str(c) for c in one.conflicts]
    paths = one.logs  # read back from disk as they are scored
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

    conv = Conventions(
        same_peg_drop_counts=args.same_peg_counts, violations_count=args.violations_count,
        planning_ends=args.planning_ends or "pick_up", include_practice=args.include_practice,
    )  # fmt: skip
    # Without plots, reports, BIDS or SPSS files (which need whole tables), the moves and
    # trials are written as they are scored: memory does not grow with them.
    run = out.staging()
    whole = args.plots or args.report or args.bids or args.spss
    try:
        scores = score_sessions(logs(), conv, on_error=skip, write_to=None if whole else run)
    except TolTasksError as exc:
        out.abandon(run)
        text = str(exc)
        if "--skip-bad" in text:
            fix = ""
        elif "Suggested fix" in text:
            fix = "\nOr pass --skip-bad to leave the file out and score the others."
        else:
            fix = "\nSuggested fix: repair or remove the file, or pass --skip-bad."
        print(file=sys.stderr)
        return _fail(f"{text}{fix}")
    except BaseException:
        out.abandon(run)
        raise
    if show:
        print(file=sys.stderr)
    try:
        written = _write(scores, run, args)
        done = out.commit(run, written, args.inputs)
    except BaseException:
        out.discard(run)
        raise
    written = [out.visible(run, p) for p in written]
    if earlier:
        print(f"replaced: the earlier outputs in {args.output} ({', '.join(done.replaced)})",
              file=sys.stderr)  # fmt: skip
    if done.kept:
        print(f"kept: {', '.join(done.kept)} (not tol-score's: carried into the new outputs)",
              file=sys.stderr)  # fmt: skip
    if done.left_alone and earlier:
        print(f"left alone: {', '.join(done.left_alone)} (not tol-score's)", file=sys.stderr)
    for note in bids_notes(scores, args):
        print(note, file=sys.stderr)
    for w in scores.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for s in skipped:
        print(f"skipped: {s}", file=sys.stderr)
    print(
        f"tol-score: {scores.rows('sessions')} session(s), {scores.rows('trials')} trial(s), {scores.rows('moves')} "
        f"move(s) scored; {len(skipped)} file(s) skipped; {len(written)} file(s) written to {args.output}"
        + (f"; {len(found.left_out)} other CSV file(s) left out" if found.left_out else "")
        + (
            f"; {len(found.never_started)} log(s) that never started left out"
            if found.never_started
            else ""
        )
        + (f"; {len(one.left_out)} copy or earlier attempt(s) left out" if one.left_out else "")
    )
    return 0


def bids_notes(scores, args) -> list[str]:
    """What --bids left out, said after writing."""
    if not args.bids:
        return []
    from tol_analysis.export.bids import bids_sessions, simulated_sessions

    out = []
    left = [] if args.bids_include_simulated else simulated_sessions(scores)
    if left:
        shown = ", ".join(f"{p} session {s}" for p, s in left[:5])
        out.append(f"left out of bids/: {len(left)} simulated session(s) ({shown}"
                   f"{', ...' if len(left) > 5 else ''}): not a person's data; pass "
                   "--bids-include-simulated to put them in, marked.")  # fmt: skip
    if bids_sessions(scores, args.bids_include_simulated).empty:
        out.append("bids/ not written: no session to put in it (a BIDS dataset needs one "
                   "participant at least); pass --bids-include-simulated to put simulated "
                   "sessions in, marked.")  # fmt: skip
    return out


def _fail(text: str) -> int:
    print(f"tol-score: {text}", file=sys.stderr)
    return 2


def _verify(inputs: list[str]) -> int:
    from tol_analysis.score.verify import verify

    try:
        report = verify(inputs)
    except FileNotFoundError as exc:
        return _fail(str(exc))
    if not report.checked:
        return _fail(f"--verify: no event logs (.csv) found in {', '.join(inputs)}. Suggested "
                     "fix: give the folders (or files) that hold the logs tol-run wrote.")  # fmt: skip
    print(report.text())
    return 1 if report.problems else 0


def _check_extras(args) -> None:
    """The optional packages and the report language asked for, checked before scoring.

    Raises
    ------
    ImportError, ValueError
        Saying what to install, or which languages there are.
    """
    if args.plots or args.report:
        import tol_analysis.report.plots  # noqa: F401 - raises with the install hint
    if args.report:
        from tol_analysis.report.html import jinja_environment, messages

        jinja_environment()
        messages(args.language or "en")
    if args.spss:
        from tol_analysis.export.spss import pyreadstat_module

        pyreadstat_module()


def _any_sidecar(scores, noted: str, test) -> bool:
    """Whether a scored session's sidecar passes ``test``: as noted when the sidecars were
    read (:class:`~tol_analysis.read.spill.Sidecars`' ``noted`` list), else by reading them."""
    sidecars = scores.sidecars
    if isinstance(sidecars, Sidecars):
        return bool(getattr(sidecars, noted))
    return any((m := sidecars[k]) is not None and test(m) for k in sidecars)


def _write(scores, folder: Path, args) -> list[Path]:
    """Every output asked for, in ``folder`` (and the planning-only measures when there are
    planning-only problems)."""
    folder.mkdir(parents=True, exist_ok=True)
    # Planning-only problems and gaze: read (with pandas) only where a session has them;
    # written first, so that the codebook describes them.
    present: list[Path] = []
    if _any_sidecar(scores, "with_planning", may_have_planning):
        from tol_analysis.score.planning import write_planning

        present += write_planning(scores, folder)
    if _any_sidecar(scores, "with_eyetracking",
                    lambda m: getattr(m, "eyetracking", None) is not None):  # fmt: skip
        from tol_analysis.score.gaze import write_gaze

        present += write_gaze(scores, folder)
    also = [WHEN_PRESENT[p.stem] for p in present]
    written = export(scores, folder, bids=args.bids, spss=args.spss,
                     bids_simulated=args.bids_include_simulated, also=also)  # fmt: skip
    written += present
    if args.plots:
        from tol_analysis.report.plots import write_plots

        written += write_plots(scores, folder / "plots")
    if args.report:
        from tol_analysis.report.html import write_reports

        written += write_reports(scores, folder / "reports", language=args.language or "en")
    return written
