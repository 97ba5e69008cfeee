"""A JSON list of records read by msgspec: each record with its values still as JSON text.

The first reading of a streamed source (:func:`~tol_tasks.importers.stream.stream_source`)
needs each record's place in the file, its keys and a few short values; msgspec finds a
record's end and skips its lists and objects without making them, about a fifth of the CPU
of Python's json, which builds every move of every trial. It reads only what Python's json
reads the same way: where the two differ (``NaN``, ``Infinity``, a number too large for a
float, a lone surrogate), msgspec refuses, and :class:`NotFastError` has Python's json read
the file instead, so that a file gives the same rows, errors and numbers either way.
"""

from __future__ import annotations

import codecs
import re
from array import array
from collections.abc import Iterator
from pathlib import Path

import msgspec

#: The size of each read.
CHUNK = 1 << 20

#: The most bytes read ahead for a record to end (a record this long, or texts with braces
#: that are not closed, have Python's json read the file instead).
LONGEST = 8 * CHUNK

#: A record with each value as its JSON text.
RECORD = msgspec.json.Decoder(dict[str, msgspec.Raw])

#: One value, as Python's json reads it (or refused).
VALUE = msgspec.json.Decoder()

#: The first bytes of a JSON object, and of a list or an object.
OPEN = ord("{")
LIST_OR_OBJECT = frozenset(b"[{")

_PIECE = msgspec.json.Decoder(list[msgspec.Raw])
_SPACE = re.compile(rb"[ \t\n\r]*")


class NotFastError(Exception):
    """Not read here (not a list of records, not UTF-8, unreadable, or a value msgspec
    refuses): Python's json reads the file and decides."""


def raw_records(p: Path, digest, spans: array) -> Iterator[tuple[int, dict[str, msgspec.Raw]]]:
    """(number from 1, the record with each value as its JSON text) of the JSON list in
    ``p``; ``digest`` takes the file's bytes, ``spans`` each record's first byte in the file
    and the byte after its end.

    The file is read :data:`CHUNK` bytes at a time; the piece up to the last record that
    ends in what was read is given to msgspec whole. The bytes are checked as UTF-8 as they
    come. Anything else raises :class:`NotFastError` (possibly after some records).
    """
    utf8 = codecs.getincrementaldecoder("utf-8")()
    try:
        f = p.open("rb")
    except OSError:
        raise NotFastError from None
    buf, base, pos, n = b"", 0, 0, 0  # base: the file's byte at buf[0]; pos: the next record
    state = "["  # then "record" (after "[": a record or "]"), "more" (after a comma)
    with f:
        while True:
            raw = f.read(CHUNK)
            digest.update(raw)
            try:
                utf8.decode(raw, final=not raw)
            except UnicodeDecodeError:
                raise NotFastError from None
            buf, base, pos = buf[pos:] + raw, base + pos, 0
            if state == "[":
                bom = codecs.BOM_UTF8
                if raw and not buf.startswith(bom) and bom.startswith(buf):
                    continue  # the start of a byte-order mark: read more
                pos = _SPACE.match(buf, len(bom) if buf.startswith(bom) else 0).end()
                if pos == len(buf) and raw:
                    continue
                if buf[pos : pos + 1] != b"[":
                    raise NotFastError  # not a list: reading it whole says why
                state, pos = "record", pos + 1
            if raw:
                end = _piece_end(buf, pos)
                try:
                    if end is None:
                        raise msgspec.DecodeError  # no record ends in what was read
                    comma = buf.rindex(b",", pos, end)
                    records = _PIECE.decode(b"[" + buf[pos:comma] + b"]")
                except msgspec.MsgspecError:
                    if len(buf) - pos > LONGEST:
                        raise NotFastError from None  # a fault, or braces in texts
                    continue  # read more
                state = "more"
            else:
                try:
                    records = _PIECE.decode(b"[" + buf[pos:])
                except msgspec.MsgspecError:
                    raise NotFastError from None
                if state == "more" and not records:
                    raise NotFastError  # a comma before "]"
                end = len(buf)
            at = pos
            for record in records:
                if memoryview(record)[0] != OPEN:
                    raise NotFastError  # not a record
                first = buf.index(b"{", at)  # only spaces and a comma before it
                at = first + len(record)
                spans.append(base + first)
                spans.append(base + at)
                n += 1
                try:
                    yield n, RECORD.decode(record)
                except msgspec.MsgspecError:
                    raise NotFastError from None
            pos = end
            if not raw:
                return


def _piece_end(buf: bytes, pos: int) -> int | None:
    """The byte after the comma that follows the last record ending in ``buf[pos:]``, or
    None: the last closing brace followed by a comma where as many braces are open as
    closed (records are objects, so none is open between them; counted as bytes: a brace
    inside a text can mislead the count, and msgspec then refuses the piece)."""
    depth = buf.count(b"{", pos) - buf.count(b"}", pos)  # in buf[pos:hi]
    hi = search = len(buf)
    while (c := buf.rfind(b"}", pos, search)) >= 0:
        depth -= buf.count(b"{", c + 1, hi) - buf.count(b"}", c + 1, hi)
        hi, search = c + 1, c
        if depth == 0:
            comma = _SPACE.match(buf, hi).end()
            if buf[comma : comma + 1] == b",":
                return comma + 1
    return None
