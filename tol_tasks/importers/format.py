"""What an importer declares (one structure per format) and the options they share."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

from .source import Source

#: Columns that name the participant, tried in this order when no column is given.
PARTICIPANT_COLUMNS = (
    "worker_id",
    "workerId",
    "participant",
    "participant_id",
    "subject",
    "subject_id",
    "PROLIFIC_PID",
    "sub",
)

#: Columns that give the session number, tried in this order.
SESSION_COLUMNS = ("session", "session_id", "ses")


def _option(kind: str, metavar: str, group: str, help: str):
    """An :class:`ImportOptions` field, with what ``tol-import`` needs to offer it as a flag."""
    return field(default=None, metadata={"kind": kind, "metavar": metavar, "group": group,
                                         "help": help})  # fmt: skip


WHO, TASK = "participants and sessions", "settings the source does not record"


@dataclass(frozen=True)
class ImportOptions:
    """Settings a source may not record, given by the person importing.

    Each field is declared once here, with the ``tol-import`` flag it becomes
    (``--`` and its name with dashes) and that flag's help. Each format accepts
    only some of them (:attr:`Format.options`); giving another is an error,
    never ignored. A participant who appears twice in one file (the tool's
    clock starts again) gets the session numbers after ``session``.
    """

    participant: str | None = _option("participant", "ID", WHO,
                                      "the participant of a file that names none")  # fmt: skip
    session: int | None = _option("session", "N", WHO,
                                  "session number for files that give none (default 1)")  # fmt: skip
    participant_column: str | None = _option(
        "text", "NAME", WHO, "the column naming participants (default: worker_id, participant, "
        "subject, ... whichever the file has)")  # fmt: skip
    session_column: str | None = _option("text", "NAME", WHO, "the column giving sessions")
    capacities: tuple[int, ...] | None = _option(
        "capacities", "3,2,1", TASK, "each peg's capacity, left to right (jspsych-tol, pebl-tol)")  # fmt: skip
    time_limit: float | None = _option(
        "seconds", "SECONDS", TASK, "time per problem (jspsych-tol; pebl-tol and pebl-toh: "
        "default 120)")  # fmt: skip
    move_limit: int | None = _option("count", "N", TASK, "moves per problem (jspsych-tol)")
    end_delay: float | None = _option(
        "seconds", "MS", TASK, "the trials' end_delay in milliseconds (jspsych-tol; default 1000)")  # fmt: skip

    def given(self) -> list[str]:
        """The names of the options that were given."""
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]

    @staticmethod
    def flag(name: str) -> str:
        """The command-line flag of the option ``name``."""
        return "--" + name.replace("_", "-")


#: One participant session to build: a label for messages, and the function that builds it.
Unit = tuple[str, Callable[[], object]]


@dataclass(frozen=True)
class Format:
    """An importer's declaration.

    Attributes
    ----------
    name : str
        The ``--format`` value, e.g. ``expfactory-tol``.
    title : str
        The tool, in words.
    signature : tuple of str
        Columns that together recognise the format from a file's header.
    required : tuple of str
        Columns it cannot do without (a missing one is an error naming it).
    options : frozenset of str
        The :class:`ImportOptions` it accepts.
    read : callable
        ``read(source, options) -> iterator of Unit``: one unit per participant
        session (file-level faults raise at once).
    doc : str
        Its documentation page, relative to the repository.
    refused : str, optional
        For a format that is recognised but cannot be imported: why.
    recognise : callable, optional
        ``recognise(source) -> bool``, for a format not recognised by its header alone.
    streams : bool
        Whether its ``read`` takes a streamed source (:func:`~tol_tasks.importers.stream.stream_source`): it groups
        sessions from ``source.rows``, which then hold only the participant's and
        session's columns and :attr:`index_columns`, and its builders read each whole
        row once with :meth:`~tol_tasks.importers.source.Source.row`, so that memory
        holds the sessions being built, not the file.
    index_columns : tuple of str
        With ``streams``: the columns its ``read`` looks at in every row, beside the
        participant's and session's.
    groups, session : callable, optional
        ``read`` in two steps, for a format whose sessions may be built in other
        processes (:mod:`~tol_tasks.importers.pool`): ``groups(source, options) -> list of
        Group`` (file-level faults raise at once) and ``session(source, options, group) ->
        ImportedSession``, which must read only ``source``'s path, SHA-256, kind, columns
        and the group's rows (:meth:`~tol_tasks.importers.source.Source.row`, ``numbers``).
    """

    name: str
    title: str
    signature: tuple[str, ...]
    required: tuple[str, ...]
    options: frozenset[str]
    read: Callable[[Source, ImportOptions], Iterator[Unit]] | None
    doc: str
    refused: str | None = None
    recognise: Callable[[Source], bool] | None = field(default=None, compare=False)
    streams: bool = False
    index_columns: tuple[str, ...] = ()
    groups: Callable[[Source, ImportOptions], list] | None = field(default=None, compare=False)
    session: Callable[[Source, ImportOptions, object], object] | None = field(
        default=None, compare=False
    )

    def matches(self, source: Source) -> bool:
        """Whether ``source`` looks like this format (its header, or its lines)."""
        if self.recognise is not None:
            return self.recognise(source)
        return bool(self.signature) and set(self.signature) <= set(source.columns)
