"""YAML reading that remembers where every value came from.

PyYAML's composed node tree carries line numbers; the plain ``safe_load``
result does not. :func:`load_with_lines` returns both the data and a map from
each value's path (keys and list indices) to its 1-based line, and reports
duplicate keys, which ``safe_load`` silently drops.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from tol_tasks.config import MAX_PROTOCOL_BYTES, MAX_PROTOCOL_DEPTH, MAX_PROTOCOL_VALUES

Path = tuple[str | int, ...]

_BOOL = "tag:yaml.org,2002:bool"


class YamlLimitError(Exception):
    """The text goes past a bound of :func:`load_with_lines` (named in the message, with the
    fix); ``line`` is 1-based (0 if unknown)."""

    def __init__(self, message: str, line: int, fix: str) -> None:
        super().__init__(message)
        self.line = line
        self.fix = fix


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans: only true/false, so that ``no`` (Norwegian)
    or ``on`` stay strings; and values nested at most :data:`MAX_PROTOCOL_DEPTH` deep."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_PROTOCOL_DEPTH:
                mark = self.peek_event().start_mark
                raise YamlLimitError(
                    f"values are nested more than {MAX_PROTOCOL_DEPTH} deep here (the limit "
                    "on a protocol's nesting).", mark.line + 1,
                    "a protocol nests a few levels (blocks, problems, their fields): check the "
                    "brackets and the indentation.",
                )  # fmt: skip
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _BOOL]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class YamlSyntaxError(Exception):
    """The text is not valid YAML; ``line`` is 1-based (0 if unknown)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def load_with_lines(text: str) -> tuple[Any, dict[Path, int], list[tuple[Path, int, str]]]:
    """Parse YAML text.

    Returns
    -------
    data : object
        As ``yaml.safe_load`` would return it.
    lines : dict
        Path of every mapping key and value and sequence item -> 1-based line.
    duplicates : list of (path, line, key)
        Keys that appear twice in one mapping (the later value wins).
    """
    if len(text) > MAX_PROTOCOL_BYTES:
        raise YamlLimitError(
            f"the text is {len(text):,} characters long, more than the {MAX_PROTOCOL_BYTES:,} a "
            "protocol may have.", 0,
            "a protocol of thousands of problems is a few hundred kilobytes: check that this is "
            "the protocol file, or split it.",
        )  # fmt: skip
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                _check_size(node)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = exc.problem or str(exc)
        raise YamlSyntaxError(f"not valid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"not valid YAML: {exc}", 0) from None
    lines: dict[Path, int] = {}
    duplicates: list[tuple[Path, int, str]] = []
    if node is not None:
        _walk(node, (), lines, duplicates)
    return data, lines, duplicates


def _check_size(root: yaml.Node) -> None:
    """Refuse a document of more than :data:`MAX_PROTOCOL_VALUES` values once its aliases are
    expanded (an alias repeats the value it names, which may itself repeat others)."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node) -> int:
        if id(node) not in sizes:
            if isinstance(node, yaml.MappingNode):
                inner = sum(size(k) + size(v) for k, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                inner = sum(size(v) for v in node.value)
            else:
                inner = 0
            sizes[id(node)] = min(1 + inner, MAX_PROTOCOL_VALUES + 1)
        return sizes[id(node)]

    if size(root) > MAX_PROTOCOL_VALUES:
        raise YamlLimitError(
            f"the file holds more than {MAX_PROTOCOL_VALUES:,} values once its aliases (*name) "
            "are expanded (the limit on a protocol's size).", 0,
            "write the values out, or use fewer aliases of aliases: a protocol of thousands of "
            "problems holds far fewer values.",
        )  # fmt: skip


def _walk(node: yaml.Node, path: Path, lines: dict, duplicates: list) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set = set()
        for key_node, value_node in node.value:
            key = key_node.value
            if key in seen:
                duplicates.append((path, key_node.start_mark.line + 1, key))
            seen.add(key)
            lines[(*path, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*path, key), lines, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*path, i), lines, duplicates)


def line_of(lines: dict[Path, int], path: Path) -> int:
    """Line of ``path``, or of its nearest ancestor that has one (0 if none)."""
    p = tuple(path)
    while p:
        if p in lines:
            return lines[p]
        p = p[:-1]
    return lines.get((), 0)


#: A value that starts with '|' and holds only letters and bars: a Tower of London state left
#: unquoted (``goal: |RB|G``), which YAML reads as the start of a block of text and refuses.
_BARE_STATE = re.compile(
    r"(?P<lead>(?:^|[\s{,])(?:-\s+)?)(?P<key>[A-Za-z_][\w-]*)(?P<colon>\s*:\s+)"
    r"(?P<value>\|[A-Za-z|]*[A-Za-z|])(?=\s*(?:[,}\]]|\s#|$))"
)


def quote_bare_states(text: str) -> tuple[str, list[tuple[int, str, str]]]:
    """``text`` with every unquoted value that starts with '|' quoted (``goal: |RB|G`` becomes
    ``goal: "|RB|G"``), and where each was: (1-based line, key, value).

    Used when the text is not valid YAML, to tell the author to quote those states
    (and to go on checking the rest of the file as if they had).
    """
    found: list[tuple[int, str, str]] = []
    out = []
    for number, line in enumerate(text.split("\n"), start=1):

        def quote(m: re.Match, number: int = number) -> str:
            found.append((number, m["key"], m["value"]))
            return f'{m["lead"]}{m["key"]}{m["colon"]}"{m["value"]}"'

        out.append(_BARE_STATE.sub(quote, line))
    return "\n".join(out), found
