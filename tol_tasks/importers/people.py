"""Who each row belongs to: splitting a file into participant sessions."""

from __future__ import annotations

from dataclasses import dataclass, field

from tol_tasks.session_data.identity import (
    MAX_SESSION,
    PARTICIPANT_FIX,
    participant_fault,
    session_fault,
)

from .format import PARTICIPANT_COLUMNS, SESSION_COLUMNS, ImportOptions
from .source import Source, fault, text_cell


@dataclass
class Group:
    """The rows of one participant session, in file order (indices into ``source.rows``)."""

    participant: str
    session: int
    indices: list[int] = field(default_factory=list)


def find_column(
    source: Source, given: str | None, usual: tuple[str, ...], what: str, option: str
) -> str | None:
    """The column naming ``what``: the one given (which must exist), else the first usual one."""
    if given is not None:
        if given not in source.columns:
            raise fault(
                source.path,
                f"{option} names column {given!r}, which the file does not have "
                f"(its columns: {', '.join(source.columns[:12])}"
                f"{', ...' if len(source.columns) > 12 else ''})",
                f"give one of the file's columns to {option}",
                row=1,
            )
        return given
    return next((c for c in usual if c in source.columns), None)


def group_sessions(
    source: Source,
    options: ImportOptions,
    rows: list[int] | None = None,
    *,
    clock: str | None = None,
) -> list[Group]:
    """Split ``rows`` (default: all) into participant sessions, in order of first appearance.

    The participant comes from a participant column (``--participant-column``,
    else the first of :data:`PARTICIPANT_COLUMNS`), or from ``--participant``
    for a file without one. The session comes from a session column, else
    ``--session`` (default 1); when the ``clock`` column goes back within one
    participant's rows (the tool was started again), the rows after it are the
    next session.
    """
    pcol = find_column(
        source,
        options.participant_column,
        PARTICIPANT_COLUMNS,
        "participant",
        "--participant-column",
    )
    scol = find_column(
        source, options.session_column, SESSION_COLUMNS, "session", "--session-column"
    )
    if pcol is not None and options.participant is not None:
        raise fault(
            source.path,
            f"the file names its participants (column {pcol!r}); "
            "--participant is for a file that names none",
            "leave out --participant, or choose the column with --participant-column",
            row=1,
        )
    if pcol is None and options.participant is None:
        raise fault(
            source.path,
            f"no column names the participant (looked for {', '.join(PARTICIPANT_COLUMNS)})",
            "pass --participant ID for a file of one participant, or --participant-column NAME",
            row=1 if source.kind == "csv" else None,
        )
    if scol is not None and options.session is not None:
        raise fault(
            source.path,
            f"the file gives sessions (column {scol!r}); --session is for a file that gives none",
            "leave out --session",
            row=1,
        )
    if pcol is None:
        check_participant(source, options.participant, row=None, column="--participant")
    base = options.session if options.session is not None else 1
    groups: dict[tuple[str, int], Group] = {}
    last_clock: dict[str, float] = {}
    bump: dict[str, int] = {}
    for i in rows if rows is not None else range(len(source.rows)):
        row = source.rows[i]
        n = source.numbers[i]
        who = options.participant if pcol is None else text_cell(source, row, pcol, n=n).strip()
        if pcol is not None:
            check_participant(source, who, row=n, column=pcol)
        if scol is not None:
            text = text_cell(source, row, scol, n=n).strip()
            try:
                session = int(float(text))
            except (ValueError, OverflowError):
                session = None
            if session is None or session != float(text) or session_fault(session) is not None:
                raise fault(
                    source.path,
                    f"expected a session number (a whole number from 1 to {MAX_SESSION})",
                    "fix the session column, or name another with --session-column",
                    row=n,
                    column=scol,
                    value=text,
                )
        else:
            session = base + bump.get(who, 0)
            if clock is not None:
                try:
                    t = float(text_cell(source, row, clock, n=n))
                except ValueError:
                    t = None
                if t is not None:
                    if t < last_clock.get(who, -1.0):
                        bump[who] = bump.get(who, 0) + 1
                        session = base + bump[who]
                    last_clock[who] = t
        group = groups.get((who, session))
        if group is None:
            group = groups[(who, session)] = Group(who, session)
        group.indices.append(i)
    return list(groups.values())


def check_participant(source: Source, who: str, *, row: int | None, column: str) -> None:
    """A participant id, by the one rule every command uses (:mod:`tol_tasks.session_data.identity`)."""
    problem = participant_fault(who)
    if problem is not None:
        raise fault(
            source.path,
            f"cannot be a participant id: it {problem.rstrip('.')}",
            f"{PARTICIPANT_FIX[:-1]}; name another column with --participant-column, or give "
            "--participant for a file of one participant",
            row=row,
            column=column,
            value=who,
        )
