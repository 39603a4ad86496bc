"""Edit one member of a JSON (or JSON-with-comments) document without touching anything else.

Clients keep their own files; rewriting them through ``json.dumps`` would reorder keys, change
indentation and drop comments. Instead the document is scanned for byte spans and only our
member's text is inserted, replaced or cut, so every other byte stays as the user left it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs


class JsoncError(ValueError):
    """The text is not a JSON object we can edit safely."""


@attrs.define
class Member:
    key: str
    key_start: int
    value_start: int
    value_end: int
    value: Node


@attrs.define
class Node:
    start: int
    end: int
    members: list[Member] | None = None  # set for objects only

    def member(self, key: str) -> Member | None:
        for member in self.members or ():
            if member.key == key:
                return member
        return None


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text

    def skip(self, i: int) -> int:
        text = self.text
        while i < len(text):
            ch = text[i]
            if ch in " \t\r\n\ufeff":
                i += 1
            elif text.startswith("//", i):
                end = text.find("\n", i)
                i = len(text) if end < 0 else end + 1
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    raise JsoncError("unterminated comment")
                i = end + 2
            else:
                break
        return i

    def value(self, i: int) -> Node:
        i = self.skip(i)
        if i >= len(self.text):
            raise JsoncError("unexpected end of document")
        ch = self.text[i]
        if ch == "{":
            return self.obj(i)
        if ch == "[":
            return self.array(i)
        if ch == '"':
            return Node(i, self.string_end(i))
        for word in ("true", "false", "null"):
            if self.text.startswith(word, i):
                return Node(i, i + len(word))
        match = _NUMBER.match(self.text, i)
        if match:
            return Node(i, match.end())
        raise JsoncError(f"unexpected {ch!r} at offset {i}")

    def string_end(self, i: int) -> int:
        j = i + 1
        text = self.text
        while j < len(text):
            if text[j] == "\\":
                j += 2
            elif text[j] == '"':
                return j + 1
            elif text[j] == "\n":
                break
            else:
                j += 1
        raise JsoncError(f"unterminated string at offset {i}")

    def obj(self, i: int) -> Node:
        members: list[Member] = []
        j = self.skip(i + 1)
        while True:
            if j >= len(self.text):
                raise JsoncError("unterminated object")
            if self.text[j] == "}":
                return Node(i, j + 1, members)
            if self.text[j] != '"':
                raise JsoncError(f"expected a key at offset {j}")
            key_end = self.string_end(j)
            key = json.loads(self.text[j:key_end])
            colon = self.skip(key_end)
            if colon >= len(self.text) or self.text[colon] != ":":
                raise JsoncError(f"expected ':' at offset {colon}")
            value = self.value(colon + 1)
            members.append(Member(key, j, value.start, value.end, value))
            j = self.skip(value.end)
            if j < len(self.text) and self.text[j] == ",":
                j = self.skip(j + 1)
            elif j < len(self.text) and self.text[j] != "}":
                raise JsoncError(f"expected ',' or '}}' at offset {j}")

    def array(self, i: int) -> Node:
        j = self.skip(i + 1)
        while True:
            if j >= len(self.text):
                raise JsoncError("unterminated array")
            if self.text[j] == "]":
                return Node(i, j + 1)
            item = self.value(j)
            j = self.skip(item.end)
            if j < len(self.text) and self.text[j] == ",":
                j = self.skip(j + 1)
            elif j < len(self.text) and self.text[j] != "]":
                raise JsoncError(f"expected ',' or ']' at offset {j}")


_TOO_DEEP = "arrays and objects nest too deeply to edit safely"


def scan(text: str) -> Node:
    """The span tree of a document whose top level is an object."""
    scanner = _Scanner(text)
    try:
        root = scanner.value(0)
    except RecursionError:
        raise JsoncError(_TOO_DEEP) from None
    if root.members is None:
        raise JsoncError("the top level is not an object")
    if scanner.skip(root.end) != len(text):
        raise JsoncError("trailing content after the top-level object")
    return root


def loads(text: str) -> dict[str, Any]:
    """Parse JSON that may carry comments and trailing commas."""
    scan(text)  # validates the shape and the comment syntax
    try:
        value: dict[str, Any] = json.loads(_strip(text))
    except RecursionError:
        raise JsoncError(_TOO_DEEP) from None
    return value


def _strip(text: str) -> str:
    """Drop comments and trailing commas outside strings (the scan already validated them)."""
    out: list[str] = []
    i = 0
    scanner = _Scanner(text)
    while i < len(text):
        ch = text[i]
        if ch == '"':
            end = scanner.string_end(i)
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i) or text.startswith("/*", i):
            i = scanner.skip(i)
            out.append(" ")
        elif ch == ",":
            nxt = scanner.skip(i + 1)
            if nxt < len(text) and text[nxt] in "}]":
                out.append(" ")
            else:
                out.append(",")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out).lstrip("\ufeff")


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    match = re.match(r"[ \t]*", text[line_start:position])
    return match.group(0) if match else ""


def _render(value: Any, unit: str, base: str) -> str:
    dumped = json.dumps(value, indent=len(unit.expandtabs(4)), ensure_ascii=False)
    if "\t" in unit:
        dumped = re.sub(r"(?m)^( {4})+", lambda m: "\t" * (len(m.group(0)) // 4), dumped)
    return dumped.replace("\n", "\n" + base)


def _member_indent(text: str, node: Node, unit: str) -> str:
    if node.members:
        first = node.members[0].key_start
        if "\n" in text[node.start : first]:
            return _line_indent(text, first)
    return _line_indent(text, node.start) + unit


def _find(root: Node, path: list[str]) -> tuple[Node, list[str]]:
    """The deepest existing object along ``path`` and the keys still missing below it."""
    node = root
    for index, key in enumerate(path):
        member = node.member(key)
        if member is None:
            return node, path[index:]
        if member.value.members is None:
            raise JsoncError(f"{'.'.join(path[: index + 1])} is not an object")
        node = member.value
    return node, []


def set_member(text: str, path: list[str], key: str, value: Any) -> str:
    """Return ``text`` with ``path...key`` set to ``value``; other bytes unchanged."""
    root = scan(text)
    unit = _indent_unit(text)
    node, missing = _find(root, path)
    if not missing:
        existing = node.member(key)
        if existing is not None:
            base = _line_indent(text, existing.key_start)
            rendered = _render(value, unit, base)
            return text[: existing.value_start] + rendered + text[existing.value_end :]
    if missing:
        new_key, new_value = missing[0], _wrap(missing[1:], key, value)
    else:
        new_key, new_value = key, value
    indent = _member_indent(text, node, unit)
    member_text = json.dumps(new_key, ensure_ascii=False) + ": " + _render(new_value, unit, indent)
    if node.members:
        last = node.members[-1]
        return text[: last.value_end] + ",\n" + indent + member_text + text[last.value_end :]
    close = node.end - 1
    interior = text[node.start + 1 : close]
    if interior.strip() == "":
        closing = _line_indent(text, node.start)
        return text[: node.start + 1] + "\n" + indent + member_text + "\n" + closing + text[close:]
    return text[: node.start + 1] + "\n" + indent + member_text + text[node.start + 1 :]


def _wrap(path: list[str], key: str, value: Any) -> dict[str, Any]:
    result: dict[str, Any] = {key: value}
    for name in reversed(path):
        result = {name: result}
    return result


def remove_member(text: str, path: list[str], key: str, *, prune: bool = True) -> str:
    """Return ``text`` without ``path...key``; with ``prune``, containers left empty go too."""
    root = scan(text)
    node, missing = _find(root, path)
    if missing or node.member(key) is None:
        return text
    result = _cut(text, node, key)
    if prune and path and not (_find(scan(result), path)[0].members or []):
        return remove_member(result, path[:-1], path[-1], prune=True)
    return result


def _cut(text: str, node: Node, key: str) -> str:
    members = node.members or []
    index = next(i for i, m in enumerate(members) if m.key == key)
    member = members[index]
    if index > 0:
        # Exact inverse of an insertion after the previous member.
        return text[: members[index - 1].value_end] + text[member.value_end :]
    if len(members) > 1:
        return text[: member.key_start] + text[members[1].key_start :]
    return text[: node.start + 1] + text[node.end - 1 :]  # the only member: an empty object
