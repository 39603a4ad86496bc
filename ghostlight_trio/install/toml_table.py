"""Set or remove one ``[a.b]`` table in a TOML file, leaving every other line untouched.

Values and keys are written by ``tomlkit``. The splice itself stays line-wise: a ``tomlkit``
document keeps comments, but adding or removing a table through it mixes ``\n`` into a CRLF
file and leaves the separator lines behind, so install followed by uninstall would no longer
give back the user's file byte for byte. The table is located by its header lines; the result
is parsed again and must equal the intended data, otherwise the edit is refused and shown as a
manual step.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from typing import Any

import tomlkit
from tomlkit.items import Item

_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]#]*?)\s*\]\]?\s*(?:#.*)?$")


class TomlEditError(ValueError):
    """The table cannot be edited line-wise; the caller offers a manual step instead."""


def _key(name: str) -> str:
    return tomlkit.key(name).as_string()


def _item(value: Any) -> Item:
    """``value`` as a TOML item, maps as inline tables (the entry's nested maps stay on its
    key's line, as clients' own documentation writes them)."""
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, inner in value.items():
            table.append(key, _item(inner))
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        for inner in value:
            array.append(_item(inner))
        return array
    if isinstance(value, bool | int | float | str):
        return tomlkit.item(value)
    raise TomlEditError(f"cannot write {type(value).__name__} values")


def _value(value: Any) -> str:
    return _item(value).as_string()


def inline_value(name: str, value: Any) -> str:
    """``name = value`` on one line, as it goes inside an inline table."""
    return f"{_key(name)} = {_value(value)}"


def render_table(path: list[str], table: dict[str, Any], newline: str = "\n") -> str:
    """``[path]`` followed by one ``key = value`` line per item (nested maps inline)."""
    lines = ["[" + ".".join(_key(p) for p in path) + "]"]
    lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
    return newline.join(lines) + newline


def _lines(text: str) -> list[str]:
    """Lines split at ``\\n`` only, each keeping its ending (``\\r\\n`` stays whole)."""
    return re.findall(r"[^\n]*\n|[^\n]+", text)


def _newline(text: str) -> str:
    match = re.search(r"\r?\n", text)
    return match.group(0) if match else "\n"


def _split_name(name: str) -> list[str]:
    parts: list[str] = []
    for raw in re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^.]+', name):
        raw = raw.strip()
        if raw.startswith('"'):
            parts.append(json.loads(raw))
        elif raw.startswith("'"):
            parts.append(raw[1:-1])
        elif raw:
            parts.append(raw)
    return parts


def _span(lines: list[str], path: list[str]) -> tuple[int, int] | None:
    """Line range of the table ``path`` and its sub-tables, without trailing blanks/comments."""
    start = None
    end = len(lines)
    for index, line in enumerate(lines):
        match = _HEADER.match(line)
        if not match:
            continue
        name = _split_name(match.group("name"))
        ours = name[: len(path)] == path
        if start is None and name == path:
            start = index
        elif start is not None and not ours:
            end = index
            break
    if start is None:
        return None
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return start, end


def _expected(data: dict[str, Any], path: list[str], table: dict[str, Any] | None) -> dict[str, Any]:
    result = copy.deepcopy(data)
    node = result
    for name in path[:-1]:
        node = node.setdefault(name, {})
    if table is None:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = table
    return _prune(result)


def _prune(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _prune(v) if isinstance(v, dict) else v for k, v in data.items() if v != {}}


def set_table(text: str, path: list[str], table: dict[str, Any] | None) -> str:
    """Return ``text`` with table ``path`` replaced by ``table`` (None removes it)."""
    data = _load(text)
    lines = _lines(text)
    nl = _newline(text)
    span = _span(lines, path)
    if span is None:
        _check_not_inline(data, lines, path)
        if table is None:
            return text
        prefix = text if not text or text.endswith("\n") else text + nl
        result = prefix + (nl if prefix.strip() else "") + render_table(path, table, nl)
        # A container made of dotted keys (``a.b.c = 1``) takes a [header] below it; an
        # inline one does not, and then the result fails to parse.
        _check_result(result, _expected(data, path, table), path, _container_problem(lines, path))
        return result
    start, end = span
    block = render_table(path, table, nl) if table is not None else ""
    before, after = lines[:start], lines[end:]
    if table is None and before and not before[-1].strip() and (not after):
        before = before[:-1]  # the separator an append added
    result = "".join(before) + block + "".join(after)
    _check_result(result, _expected(data, path, table), path)
    return result


def set_keys(text: str, path: list[str], values: dict[str, Any]) -> str:
    """Return ``text`` with only the given keys of table ``path`` set (a value of None removes
    its key); every other line, the table's other keys and their comments included, stays.

    A key is written where it was: one ``key = value`` line (keeping its indentation and
    trailing comment) in place of its lines, or a [path.key] sub-table in place of its own."""
    data = _load(text)
    lines = _lines(text)
    nl = _newline(text)
    span = _span(lines, path)
    if span is None:
        raise TomlEditError(f"{'.'.join(path)} {_written_as(lines, path)}, not as a [table]")
    edits: list[tuple[int, int, str]] = []  # (first line, end line, replacement)
    added = []  # keys written nowhere before: new lines after the table's last statement
    start, end = span
    subtables = [i for i in range(start + 1, end) if _HEADER.match(lines[i])]
    body_end = subtables[0] if subtables else end
    statements = _statements(lines, start + 1, body_end)
    for key, value in values.items():
        found = [(first, stop) for name, first, stop in statements if name[0] == key]
        blocks = _blocks(lines, subtables, end, [*path, key])
        for first, stop in found[1:] + blocks[1:]:
            edits.append((first, stop, ""))
        if value is None:
            edits += [(first, stop, "") for first, stop in found[:1] + blocks[:1]]
        elif found:
            first, stop = found[0]
            edits.append((first, stop, _assignment(lines, first, stop, key, value)))
            edits += [(first, stop, "") for first, stop in blocks[:1]]
        elif blocks and isinstance(value, dict):
            first, stop = blocks[0]
            edits.append((first, stop, render_table([*path, key], value, nl)))
        else:
            edits += [(first, stop, "") for first, stop in blocks[:1]]
            added.append(f"{_key(key)} = {_value(value)}{nl}")
    if added:
        after = statements[-1][2] if statements else start + 1
        ending = "" if lines[after - 1].endswith("\n") else nl
        edits.append((after, after, ending + "".join(added)))
    for first, stop, replacement in sorted(edits, reverse=True):
        lines[first:stop] = [replacement]
    result = "".join(lines)
    expected = copy.deepcopy(data)
    node = expected
    for name in path:
        node = node[name]
    for key, value in values.items():
        if value is None:
            node.pop(key, None)
        else:
            node[key] = value
    _check_result(result, _prune(expected), path)
    return result


def _load(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"not valid TOML: {exc}") from None
    except RecursionError:  # tomllib follows nested arrays by recursion
        raise TomlEditError("arrays nest too deeply to edit safely") from None


def _check_result(result: str, expected: dict[str, Any], path: list[str], why: str = "") -> None:
    """The edit parses and changed exactly what was meant, else it is refused (``why``: the
    reason to give when it does not parse)."""
    refused = why or f"could not edit [{'.'.join(path)}] without touching other data"
    try:
        edited = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        raise TomlEditError(refused) from None
    if _prune(edited) != expected:
        raise TomlEditError(f"could not edit [{'.'.join(path)}] without touching other data")


_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_ASSIGNMENT = re.compile(rf"^\s*(?P<key>{_PART}(?:\s*\.\s*{_PART})*)\s*=")


def _statements(lines: list[str], start: int, end: int) -> list[tuple[list[str], int, int]]:
    """The ``key = value`` statements in ``lines[start:end]``: (dotted key, first line, end
    line). A value may span lines (an array, a multi-line string): it ends at the first line
    with which the statement parses."""
    found = []
    index = start
    while index < end:
        match = _ASSIGNMENT.match(lines[index])
        if match is None:  # a blank line or a comment
            index += 1
            continue
        stop = next((stop for stop in range(index + 1, end + 1) if _parses(lines[index:stop])), None)
        if stop is None:
            raise TomlEditError(f"could not read the value on line {index + 1}")
        found.append((_split_name(match.group("key")), index, stop))
        index = stop
    return found


def _parses(lines: list[str]) -> bool:
    try:
        tomllib.loads("".join(lines))
    except tomllib.TOMLDecodeError:
        return False
    return True


def _blocks(lines: list[str], headers: list[int], end: int, path: list[str]) -> list[tuple[int, int]]:
    """Line ranges of the sub-tables ``path`` and below among ``headers`` (which all lie in a
    span ending at ``end``), without the blanks and comments that lead to the next header."""
    found = []
    for position, index in enumerate(headers):
        match = _HEADER.match(lines[index])
        assert match is not None
        if _split_name(match.group("name"))[: len(path)] != path:
            continue
        stop = headers[position + 1] if position + 1 < len(headers) else end
        while stop > index + 1 and (not lines[stop - 1].strip() or lines[stop - 1].lstrip().startswith("#")):
            stop -= 1
        found.append((index, stop))
    return found


def _assignment(lines: list[str], first: int, stop: int, key: str, value: Any) -> str:
    """``key = value`` in place of a statement's lines: its indentation, its line ending, and
    its trailing comment when it was one line, kept."""
    line = lines[first]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    comment = _trailing_comment(line) if stop == first + 1 else ""
    last = lines[stop - 1]
    ending = last[len(last.rstrip("\r\n")) :]
    return f"{indent}{_key(key)} = {_value(value)}{comment}{ending}"


def _trailing_comment(line: str) -> str:
    """The ``  # ...`` ending a one-line statement (with the spaces before it), or ""."""
    body = line.rstrip("\r\n")
    for index in (i for i, char in enumerate(body) if char == "#"):
        head = body[:index]
        if _parses([head]):
            return body[len(head.rstrip()) :]
    return ""


def _check_not_inline(data: dict[str, Any], lines: list[str], path: list[str]) -> None:
    """A table on ``path`` that has no [header] is written inline or as dotted keys: a header
    would define it again. (A container without one may still take a new [header] below it.)"""
    node: Any = data
    for depth, name in enumerate(path, 1):
        node = node.get(name) if isinstance(node, dict) else None
        if node is None:
            return
        where = ".".join(path[:depth])
        if not isinstance(node, dict):
            raise TomlEditError(f"{where} is a value, not a [table]")
        if depth == len(path):
            raise TomlEditError(f"{where} {_written_as(lines, path)}, not as a [table]")


def _container_problem(lines: list[str], path: list[str]) -> str:
    """Why a [header] for ``path`` cannot be added: the container written inline ("" when
    none is)."""
    for depth in range(1, len(path)):
        prefix = path[:depth]
        if not _has_header(lines, prefix) and _assigned(lines, prefix):
            return f"{'.'.join(prefix)} is written inline, not as a [table]"
    return ""


def _written_as(lines: list[str], path: list[str]) -> str:
    """How a table without a [header] is written, in words: inline, or as dotted keys."""
    return "is written inline" if _assigned(lines, path) else "is written as dotted keys"


def _assigned(lines: list[str], path: list[str]) -> bool:
    """Some line assigns ``path`` a value whole (``a.b = { ... }``), rather than keys below it."""
    table: list[str] = []
    for line in lines:
        header = _HEADER.match(line)
        if header:
            table = _split_name(header.group("name"))
            continue
        match = _ASSIGNMENT.match(line)
        if match and [*table, *_split_name(match.group("key"))] == path:
            return True
    return False


def without_header(text: str, path: list[str]) -> tuple[list[str], bool] | None:
    """Where a [header] for ``path`` cannot go: the first container along it written inline
    (``a = { ... }``), or ``path`` itself when it exists without its own header; with whether
    that table is written inline (else as dotted keys). None: a header can go (or ``text``
    does not parse)."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    lines = _lines(text)
    node: Any = data
    for depth, name in enumerate(path, 1):
        node = node.get(name) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return None
        prefix = path[:depth]
        if depth == len(path) and _span(lines, path) is None:
            return prefix, _assigned(lines, prefix)
        if depth < len(path) and not _has_header(lines, prefix) and _assigned(lines, prefix):
            return prefix, True
    return None


def _has_header(lines: list[str], path: list[str]) -> bool:
    """Some [header] opens ``path`` or a table below it."""
    for line in lines:
        match = _HEADER.match(line)
        if match and _split_name(match.group("name"))[: len(path)] == path:
            return True
    return False
