"""Set or remove one ``[a.b]`` table in a TOML file, leaving every other line untouched.

``tomllib`` reads but never writes, and a round trip through any writer would lose the user's
comments and layout. The table is located by its header lines; the result is parsed again and
must equal the intended data, otherwise the edit is refused and shown as a manual step.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from typing import Any

_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]#]*?)\s*\]\]?\s*(?:#.*)?$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class TomlEditError(ValueError):
    """The table cannot be edited line-wise; the caller offers a manual step instead."""


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TomlEditError(f"cannot write {type(value).__name__} values")


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
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"not valid TOML: {exc}") from None
    except RecursionError:  # tomllib follows nested arrays by recursion
        raise TomlEditError("arrays nest too deeply to edit safely") from None
    lines = _lines(text)
    nl = _newline(text)
    span = _span(lines, path)
    if span is None:
        _check_not_inline(data, lines, path)
        if table is None:
            return text
        prefix = text if not text or text.endswith("\n") else text + nl
        result = prefix + (nl if prefix.strip() else "") + render_table(path, table, nl)
    else:
        start, end = span
        block = render_table(path, table, nl) if table is not None else ""
        before, after = lines[:start], lines[end:]
        if table is None and before and not before[-1].strip() and (not after):
            before = before[:-1]  # the separator an append added
        result = "".join(before) + block + "".join(after)
    try:
        edited = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        raise TomlEditError(f"could not edit [{'.'.join(path)}] without touching other data") from None
    if _prune(edited) != _expected(data, path, table):
        raise TomlEditError(f"could not edit [{'.'.join(path)}] without touching other data")
    return result


def _check_not_inline(data: dict[str, Any], lines: list[str], path: list[str]) -> None:
    """A table on ``path`` that has no [header] is written inline: a header would redefine it."""
    node: Any = data
    for depth, name in enumerate(path, 1):
        node = node.get(name) if isinstance(node, dict) else None
        if node is None:
            return
        where = ".".join(path[:depth])
        if not isinstance(node, dict):
            raise TomlEditError(f"{where} is a value, not a [table]")
        if depth == len(path) or not _has_header(lines, path[:depth]):
            raise TomlEditError(f"{where} is written inline, not as a [table]")


def _has_header(lines: list[str], path: list[str]) -> bool:
    """Some [header] opens ``path`` or a table below it."""
    for line in lines:
        match = _HEADER.match(line)
        if match and _split_name(match.group("name"))[: len(path)] == path:
            return True
    return False
