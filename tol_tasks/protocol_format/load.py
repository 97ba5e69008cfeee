"""Finding, reading and checking protocol files."""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path

import yaml
from pydantic import ValidationError

from tol_tasks.config import MAX_PROTOCOL_BYTES
from tol_tasks.errors import path_fix

from ._checks import _dotted, _semantic_issues, _structural_issues, language_warnings
from .issues import Issue, ProtocolError
from .loaded import LoadedProtocol
from .model import Protocol
from .yaml_lines import YamlLimitError, YamlSyntaxError, load_with_lines, quote_bare_states

# ------------------------------------------------------------------ loading


def bundled_protocols_dir() -> Path:
    """The folder of protocols shipped with tol-tasks."""
    package = Path(__file__).resolve().parents[1]
    # Installed from a wheel: tol_tasks/protocols; from a checkout: ./protocols.
    for candidate in (package / "protocols", package.parent / "protocols"):
        if candidate.is_dir():
            return candidate
    return package.parent / "protocols"


def bundled_protocols() -> dict[str, Path]:
    """Names of the bundled protocols and their files."""
    return {p.stem: p for p in sorted(bundled_protocols_dir().glob("*.yaml"))}


def resolve_protocol_path(name_or_path: str | Path) -> Path:
    """A protocol file from a path, or from the name of a bundled protocol (``demo``)."""
    p = Path(name_or_path)
    try:
        if p.exists():
            return p
    except OSError as exc:  # a path the system refuses to look at (a name too long, ...)
        raise ProtocolError(
            [Issue(str(p), 0, "", f"cannot be read: {exc.strerror}.", path_fix(exc))]
        ) from None
    bundled = bundled_protocols()
    if str(name_or_path) in bundled:
        return bundled[str(name_or_path)]
    known = ", ".join(bundled) or "none"
    close = difflib.get_close_matches(str(name_or_path), list(bundled), n=1)
    hint = f"Did you mean '{close[0]}'? " if close else ""
    raise ProtocolError(
        [
            Issue(
                str(name_or_path),
                0,
                "",
                "no such file, and no bundled protocol has that name.",
                f"{hint}Give the path of a protocol file, or one of the bundled protocols: "
                f"{known}.",
            )
        ]
    )


def load_protocol(path: str | Path) -> LoadedProtocol:
    """Read and check a protocol file (or a bundled protocol's name).

    Raises
    ------
    ProtocolError
        Listing every fault, each with file, line, field, bad value and fix.
    """
    p = resolve_protocol_path(path)
    try:
        with open(p, "rb") as f:  # never more than the limit into memory
            raw = f.read(MAX_PROTOCOL_BYTES + 1)
    except OSError as exc:
        raise ProtocolError(
            [Issue(str(p), 0, "", f"cannot be read: {exc.strerror}.", path_fix(exc))]
        ) from None
    if len(raw) > MAX_PROTOCOL_BYTES:
        raise ProtocolError([Issue(
            str(p), 0, "", f"is larger than the {MAX_PROTOCOL_BYTES:,} bytes a protocol may have.",
            "a protocol of thousands of problems is a few hundred kilobytes: check that this is "
            "the protocol file, or split it.",
        )])  # fmt: skip
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            [Issue(str(p), 0, "", f"is not UTF-8 text ({exc.reason}).", "save it as UTF-8.")]
        ) from None
    return load_protocol_text(text, str(p), base_dir=p.parent)


def load_protocol_text(text: str, source: str = "<protocol>", base_dir: Path | None = None):
    """Check protocol ``text``; ``source`` names it in messages."""
    issues: list[Issue] = []
    try:
        data, lines, duplicates = load_with_lines(text)
    except YamlLimitError as exc:
        raise ProtocolError([Issue(source, exc.line, "", str(exc), exc.fix)]) from None
    except YamlSyntaxError as exc:
        data, lines, duplicates = _with_states_quoted(text, source, exc, issues)
    for path, line, key in duplicates:
        issues.append(
            Issue(
                source,
                line,
                _dotted((*path, key)),
                f"the key '{key}' appears twice.",
                "keep one of them; the last one would silently win.",
            )
        )
    return _checked(data, text, lines, issues, source, base_dir,
                    None if source.startswith("<") else Path(source))  # fmt: skip


def _with_states_quoted(text: str, source: str, exc: YamlSyntaxError, issues: list[Issue]):
    """Not YAML: if unquoted states starting with '|' are why, say so for each (its field and
    the fix) and read the file with them quoted, so that every other fault is found too."""
    quoted, bare = quote_bare_states(text)
    try:
        if not bare:
            raise exc
        data, lines, duplicates = load_with_lines(quoted)
    except YamlSyntaxError:
        raise ProtocolError(
            [Issue(source, exc.line, "", str(exc), "check the indentation and brackets near it.")]
        ) from None
    where = {(line, path[-1]): path for path, line in lines.items() if path}
    for line, key, value in bare:
        field = _dotted(where.get((line, key), (key,)))
        issues.append(Issue(
            source, line, field,
            f"{value} must be quoted: YAML reads a value that starts with '|' as the start of a "
            "block of text.",
            f'write {key}: "{value}" (quoting every Tower of London state is safest, e.g. '
            'start: "GR|B|").',
        ))  # fmt: skip
    return data, lines, duplicates


def protocol_from_data(data: dict, source: str) -> LoadedProtocol:
    """Check a protocol given as data (what a protocol file holds, e.g. built by a program).

    The data go through the same checks as a file; the protocol's text (kept in
    each session's sidecar, hashed for its SHA-256) is the data written as YAML.
    ``source`` names it in messages (it has no lines).

    Raises
    ------
    ProtocolError
        Listing every fault, each with the field, the bad value and the fix.
    """
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None)
    return _checked(data, text, {}, [], source, None, None)


def _checked(data, text: str, lines: dict, issues: list[Issue], source: str,
             base_dir: Path | None, path: Path | None) -> LoadedProtocol:  # fmt: skip
    if not isinstance(data, dict):
        raise ProtocolError(
            [
                *issues,
                Issue(
                    source,
                    1,
                    "",
                    "the file is not a mapping of keys to values.",
                    "start from the commented example in docs/protocols.md.",
                ),
            ]
        )
    model = None
    try:
        model = Protocol.model_validate(data)
    except ValidationError as exc:
        issues.extend(_structural_issues(exc, data, lines, source))
    issues.extend(_semantic_issues(model, data, lines, source, base_dir))
    if issues:
        issues.sort(key=lambda i: (i.line, i.field))
        raise ProtocolError(issues)
    if model is None:  # pragma: no cover - a failed validation always leaves an issue
        raise ProtocolError([Issue(source, 0, "", "the protocol did not validate.")])
    puzzle = model.task.puzzle()
    warnings = tuple(sorted(language_warnings(model.instructions, lines, source),
                            key=lambda i: (i.line, i.field)))  # fmt: skip
    return LoadedProtocol(model, puzzle, text, hashlib.sha256(text.encode()).hexdigest(), path,
                          warnings)  # fmt: skip
