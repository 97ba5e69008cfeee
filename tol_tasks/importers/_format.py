"""What an importer declares (one structure per format) and the options they share."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

from ._source import Source

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


@dataclass(frozen=True)
class ImportOptions:
    """Settings a source may not record, given by the person importing (``tol-import`` options).

    Each format accepts only some of them (:attr:`Format.options`); giving
    another is an error, never ignored.

    Attributes
    ----------
    participant : str, optional
        The participant of a file that names none (``--participant``).
    session : int, optional
        The session number (``--session``; default 1). A participant who
        appears twice in one file (the tool's clock starts again) gets the next
        numbers.
    participant_column, session_column : str, optional
        The columns naming them, when not one of the usual names.
    capacities : tuple of int, optional
        Each peg's capacity, left to right (``--capacities 3,2,1``), when the
        source does not record it.
    time_limit : float, optional
        Seconds per problem, when the source does not record it.
    move_limit : int, optional
        Moves per problem, when the source does not record it.
    end_delay : float, optional
        jsPsych-contrib's ``end_delay`` in milliseconds (default 1000), to place
        trials on the session clock.
    """

    participant: str | None = None
    session: int | None = None
    participant_column: str | None = None
    session_column: str | None = None
    capacities: tuple[int, ...] | None = None
    time_limit: float | None = None
    move_limit: int | None = None
    end_delay: float | None = None

    def given(self) -> list[str]:
        """The names of the options that were given."""
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]


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

    def matches(self, source: Source) -> bool:
        """Whether ``source`` looks like this format (its header, or its lines)."""
        if self.recognise is not None:
            return self.recognise(source)
        return bool(self.signature) and set(self.signature) <= set(source.columns)
