"""Importers: tower data collected with other tools, turned into tol-tasks event logs.

Each foreign file is read once (:func:`read_source`), its format recognised from
its header (or given), and each participant session in it rebuilt as event-log
rows on one session clock (the source's own times) by the format's importer;
every placement is checked against the puzzle's rules, minimums come from the
solver (a minimum the source states is kept and compared), and what the source
does not record stays empty and is listed in the sidecar. ``tol-score`` then
scores the logs like any session.

Formats (:data:`FORMATS`): ``expfactory-tol``, ``jspsych-tol``, ``pebl-tol``,
``pebl-toh``; ``psytoolkit-toh`` is recognised and refused (its data cannot
give the moves). ``jatos`` (:mod:`tol_tasks.importers.jatos`) reads the
result export of a study built with ``tol-web build --jatos``: its own logs,
in pieces, put back together. The importers never import PsychoPy.

The extension API (what a new format is written on, public and documented):
:class:`Format` (what a format declares: its name, title, how its header is recognised,
the options it takes, its ``read``), :class:`Source` (the file read once: columns, rows,
row numbers, :func:`fault` for an error that names the file, row, column, value and fix),
:func:`group_sessions` (rows into participant sessions), :class:`SessionBuilder` (a
session's events on its clock, each placement checked against the rules, with
:class:`Unavailable` for what the source does not record) and :class:`ImportedSession`
(what the writer writes). Each format's module (``jspsych.py`` is the shortest whole
example) reads its rows, groups them, and builds each session with a SessionBuilder.

>>> sorted(FORMATS)
['expfactory-tol', 'jspsych-tol', 'pebl-toh', 'pebl-tol', 'psytoolkit-toh']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from tol_tasks.session_data import gc_paused

from . import expfactory, jatos, jspsych, pebl, pool, psytoolkit
from .format import PARTICIPANT_COLUMNS, SESSION_COLUMNS, Format, ImportOptions
from .people import group_sessions
from .session import ImportedSession, SessionBuilder, Unavailable
from .source import ImportSourceError, Source, fault, read_source
from .stream import stream_source
from .write import Folder, Writer, log_name

#: Every format, by name (the ``--format`` values), in the order they are tried.
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        expfactory.FORMAT,
        jspsych.FORMAT,
        pebl.TOL_FORMAT,
        pebl.TOH_FORMAT,
        psytoolkit.FORMAT,
    )
}


def detect_format(source: Source) -> Format:
    """The format of a file, from its header (or, for headerless text, its lines).

    Raises
    ------
    ImportSourceError
        When no format (or more than one) matches, naming what each needs.
    """
    found = [f for f in FORMATS.values() if f.matches(source)]
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(f.name for f in found)
        raise ImportSourceError(
            f"{source.path}: its header fits several formats ({names}). Suggested fix: name "
            "the format with --format."
        )
    head = ", ".join(source.columns[:8]) + (", ..." if len(source.columns) > 8 else "")
    needs = "; ".join(
        f"{f.name} ({f.title}): {', '.join(f.signature)}" for f in FORMATS.values() if f.signature
    )
    what = f"its columns ({head})" if source.columns else "its first line"
    raise ImportSourceError(
        f"{source.path}: row 1: {what} match no format tol-import reads ({needs}). "
        "Suggested fix: give the data file the tool itself wrote, or name its format with "
        "--format (tol-import --list-formats lists them)."
    )


@dataclass
class ImportReport:
    """What :func:`import_files` did.

    Attributes
    ----------
    written : list of Path
        Event logs written (each with its sidecar).
    already : list of Path
        Sessions already in the folder from the same source file, participant and
        session: not written again.
    skipped : list of str
        With ``skip_bad``: each file or session left out, with its error.
    warnings : list of str
        Stated minimums that disagree with the solver, defaults used for
        settings the source does not record, notes.
    trials : int
        Problem attempts in the sessions written.
    events : int
        Event-log rows written.
    """

    written: list[Path] = field(default_factory=list)
    already: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    trials: int = 0
    events: int = 0

    def text(self, output: Path) -> str:
        """The closing summary ``tol-import`` prints."""
        return (
            f"tol-import: {len(self.written)} session(s) written ({self.trials} trial(s)), "
            f"{len(self.already)} already imported, {len(self.skipped)} skipped; in {output}"
        )


def import_files(
    paths: Iterable[str | Path],
    output: str | Path,
    fmt: str | None = None,
    options: ImportOptions | None = None,
    *,
    skip_bad: bool = False,
    progress: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> ImportReport:
    """Import foreign data files into event logs and sidecars in ``output``.

    Parameters
    ----------
    paths : iterable of path
        The files (each may hold many participants).
    output : path
        The folder (made if missing). Nothing in it is overwritten; a session
        imported before from the same file is recognised and not written again.
    fmt : str, optional
        A name of :data:`FORMATS`; by default each file's format is recognised
        from its header.
    options : ImportOptions, optional
        Settings the sources do not record; an option the format does not take
        is an error.
    skip_bad : bool
        Go on past a bad file or session (listed in ``report.skipped``) instead
        of stopping at the first. Sessions written before an error are kept
        either way.
    progress : callable, optional
        Called with a short line per file.
    workers : int, optional
        Processes that build the sessions of a file of
        :data:`~tol_tasks.importers.pool.MIN_SESSIONS` sessions or more, of a format that
        allows it (:mod:`~tol_tasks.importers.pool`): this one and ``workers - 1`` forked
        copies of it; by default one per core (at most 2), 1 for this process alone. The
        files written are the same either way.

    Raises
    ------
    ImportSourceError
        Without ``skip_bad``, at the first fault: naming the file, row, column,
        value and fix.
    """
    options = options or ImportOptions()
    if fmt is not None and fmt not in FORMATS and fmt != jatos.NAME:
        raise ImportSourceError(
            f"--format {fmt!r} is not a format tol-import reads. Suggested fix: use one of "
            f"{', '.join([*FORMATS, jatos.NAME])}."
        )
    if workers is not None and (type(workers) is not int or workers < 1):
        raise ImportSourceError(
            f"workers={workers!r} is not a number of processes. Suggested fix: give a whole "
            "number of 1 or more, or leave it out (both cores for a large file)."
        )
    paths = [Path(p) for p in paths]
    report = ImportReport()
    writer = Writer(Folder.open(output))
    try:
        with gc_paused():  # millions of short-lived rows and records, no cycles among them
            _import(paths, fmt, options, skip_bad, progress, report, writer, workers)
    finally:
        writer.close()  # what was written before an error is completed, never lost
    return report


def _import(paths, fmt, options, skip_bad, progress, report, writer, workers) -> None:
    given = {p.resolve() for p in paths}

    def bad(exc: ImportSourceError) -> None:
        if not skip_bad:
            raise exc
        report.skipped.append(str(exc))

    for path in paths:
        if progress:
            progress(f"importing {path}")
        if fmt == jatos.NAME or (fmt is None and jatos.is_results(path)):
            try:
                _import_jatos(path, options, report, writer)
            except ImportSourceError as exc:
                bad(exc)
            continue
        try:
            source = stream_source(path, _index_columns(options))
            format_ = FORMATS[fmt] if fmt else detect_format(source)
            if source.streamed and not format_.streams:
                source = read_source(path)  # a format that reads its rows whole
            if format_.refused:
                raise ImportSourceError(f"{path}: {format_.refused}")
            _check_options(format_, options)
            if pebl.is_summary(source):
                log = pebl.log_of(source.path)
                if log.resolve() in given:
                    continue  # read with its log
                raise ImportSourceError(
                    f"{path}: a PEBL summary file has no moves. Suggested fix: give the log "
                    f"{log.name} (the summary beside it is read with it)."
                )
            sessions = _sessions(format_, source, options, workers)
        except ImportSourceError as exc:
            bad(exc)
            continue
        with closing(sessions):
            for made in sessions:
                try:
                    if isinstance(made, ImportSourceError):
                        raise made
                    session, texts = made
                    status, where = writer.add(session, texts)
                except ImportSourceError as exc:
                    bad(exc)
                    continue
                if status == "written":
                    report.written.append(where)
                    report.trials += session.trials
                    report.events += texts[1] if texts else len(session.rows)
                    report.warnings.extend(session.warnings)
                else:
                    report.already.append(where)


def _sessions(format_: Format, source: Source, options: ImportOptions, workers: int | None):
    """The file's sessions, in order, each (session, its texts or None) or the error that
    stopped it: built here one by one, or here and in forked copies (:mod:`.pool`) for a
    file of many (its file-level faults raised here, at once)."""
    if format_.groups is not None and format_.session is not None and workers != 1:
        groups = format_.groups(source, options)
        n = pool.workers_for(len(groups), workers)
        if n > 1:
            return pool.build(format_, source, options, groups, n)
        units = [(None, lambda g=g: format_.session(source, options, g)) for g in groups]
    else:
        units = list(format_.read(source, options))
    return _one_by_one(units)


def _one_by_one(units):
    for _label, build in units:
        try:
            yield build(), None
        except ImportSourceError as exc:
            yield exc


def _import_jatos(path: Path, options: ImportOptions, report: ImportReport, writer: Writer) -> None:
    """A JATOS result export of a tol-web study: its sessions, as tol-web serve keeps them."""
    if options.given():
        flags = ", ".join(map(ImportOptions.flag, options.given()))
        raise ImportSourceError(
            f"{flags} does not apply to {jatos.NAME} ({jatos.TITLE}), which takes none: its "
            "pieces carry everything. Suggested fix: leave it out (tol-import never ignores "
            "an option)."
        )
    written, already, rows, others = jatos.import_results(path, writer.folder.path)
    report.written.extend(written)
    report.already.extend(already)
    report.events += rows
    report.trials += sum(log.read_text(encoding="utf-8").count(",trial_end,") for log in written)
    if others:
        report.warnings.append(
            f"{path}: {others} line(s) of other components' result data passed over."
        )


def _index_columns(options: ImportOptions) -> tuple[str, ...]:
    """The columns a streamed source keeps in its rows: those that name participants and
    sessions, and those the streaming formats look at in every row."""
    given = (options.participant_column, options.session_column)
    indexed = (c for f in FORMATS.values() if f.streams for c in f.index_columns)
    return (*PARTICIPANT_COLUMNS, *SESSION_COLUMNS, *(c for c in given if c), *indexed)


def _check_options(format_: Format, options: ImportOptions) -> None:
    extra = [name for name in options.given() if name not in format_.options]
    if extra:
        flags = ", ".join(map(ImportOptions.flag, extra))
        takes = ", ".join(map(ImportOptions.flag, sorted(format_.options))) or "none"
        raise ImportSourceError(
            f"{flags} does not apply to {format_.name} ({format_.title}), which takes: {takes}. "
            "Suggested fix: leave it out (tol-import never ignores an option)."
        )


__all__ = [
    "FORMATS",
    "Format",
    "ImportOptions",
    "ImportReport",
    "ImportSourceError",
    "ImportedSession",
    "SessionBuilder",
    "Source",
    "Unavailable",
    "detect_format",
    "fault",
    "group_sessions",
    "import_files",
    "log_name",
    "read_source",
    "stream_source",
]
