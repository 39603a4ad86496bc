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
    """The span of one value; an object's members are scanned only when asked for."""

    start: int
    end: int
    kind: str = "scalar"  # "object", "array" or "scalar"
    _scanner: _Scanner | None = attrs.field(default=None, repr=False)
    _members: list[Member] | None = attrs.field(default=None, repr=False)

    @property
    def members(self) -> list[Member] | None:
        if self.kind != "object":
            return None
        if self._members is None:
            assert self._scanner is not None
            self._members = self._scanner.obj(self.start)._members
        return self._members

    def member(self, key: str) -> Member | None:
        """The member named ``key``; a key given twice is refused, as clients read only the last."""
        found = [m for m in self.members or () if m.key == key]
        if len(found) > 1:
            raise JsoncError(
                f"{key!r} appears {len(found)} times in one object; clients read only the last,"
                " so it is not safe to edit"
            )
        return found[0] if found else None


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SKIP = re.compile(r"(?:[ \t\r\n\ufeff]+|//[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.S)
_STRING = re.compile(r'"(?:[^"\\\n]|\\(?s:.))*"')
_KINDS = {"{": "object", "[": "array"}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text

    def skip(self, i: int) -> int:
        """Past whitespace and comments (matched by one regex: large files stay fast)."""
        end = _SKIP.match(self.text, i).end()  # type: ignore[union-attr]
        if self.text.startswith("/*", end):
            raise JsoncError("unterminated comment")
        return end

    def item(self, i: int) -> Node:
        """A value, skipped at C speed when it is plain JSON; else scanned here."""
        i = self.skip(i)
        if i < len(self.text):
            try:
                _, end = _DECODER.raw_decode(self.text, i)
            except (ValueError, RecursionError):
                pass
            else:
                return Node(i, end, _KINDS.get(self.text[i], "scalar"), self)
        return self.value(i)

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
        match = _STRING.match(self.text, i)
        if match is None:
            raise JsoncError(f"unterminated string at offset {i}")
        return match.end()

    def obj(self, i: int) -> Node:
        members: list[Member] = []
        j = self.skip(i + 1)
        while True:
            if j >= len(self.text):
                raise JsoncError("unterminated object")
            if self.text[j] == "}":
                return Node(i, j + 1, "object", self, members)
            if self.text[j] != '"':
                raise JsoncError(f"expected a key at offset {j}")
            key_end = self.string_end(j)
            key = json.loads(self.text[j:key_end])
            colon = self.skip(key_end)
            if colon >= len(self.text) or self.text[colon] != ":":
                raise JsoncError(f"expected ':' at offset {colon}")
            value = self.item(colon + 1)
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
                return Node(i, j + 1, "array")
            item = self.item(j)
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
        start = scanner.skip(0)
        if not text.startswith("{", start):
            scanner.value(start)  # the error for a malformed document, if it is one
            raise JsoncError("the top level is not an object")
        root = scanner.obj(start)
    except RecursionError:
        raise JsoncError(_TOO_DEEP) from None
    if scanner.skip(root.end) != len(text):
        raise JsoncError("trailing content after the top-level object")
    return root


def loads(text: str) -> dict[str, Any]:
    """Parse JSON that may carry comments and trailing commas."""
    try:
        value: Any = json.loads(text.removeprefix("\ufeff"), parse_constant=_reject_constant)
    except RecursionError:
        raise JsoncError(_TOO_DEEP) from None
    except ValueError:  # comments, trailing commas, or not JSON at all: the scan says which
        scan(text)
        try:
            value = json.loads(_strip(text), parse_constant=_reject_constant)
        except RecursionError:
            raise JsoncError(_TOO_DEEP) from None
    if not isinstance(value, dict):
        raise JsoncError("the top level is not an object")
    return value


_STRIPPABLE = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\(?s:.))*")|//[^\n]*|/\*.*?\*/'
    r"|,(?=(?:[ \t\r\n\ufeff]|//[^\n]*|/\*.*?\*/)*[}\]])",
    re.S,
)


def _strip(text: str) -> str:
    """Drop comments and trailing commas outside strings (the scan already validated them)."""

    def keep_strings(match: re.Match[str]) -> str:
        return match.group("string") or " "

    return _STRIPPABLE.sub(keep_strings, text).lstrip("\ufeff")


def _newline(text: str) -> str:
    """The line ending the file already uses, so inserted lines match it."""
    match = re.search(r"\r?\n", text)
    return match.group(0) if match else "\n"


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    match = re.match(r"[ \t]*", text[line_start:position])
    return match.group(0) if match else ""


def _render(value: Any, unit: str, base: str, newline: str = "\n") -> str:
    dumped = json.dumps(value, indent=len(unit.expandtabs(4)), ensure_ascii=False)
    if "\t" in unit:
        dumped = re.sub(r"(?m)^( {4})+", lambda m: "\t" * (len(m.group(0)) // 4), dumped)
    return dumped.replace("\n", newline + base)


def _one_line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _member_indent(text: str, node: Node, unit: str) -> str:
    if node.members:
        first = node.members[0].key_start
        if "\n" in text[node.start : first]:
            return _line_indent(text, first)
    return _line_indent(text, node.start) + unit


def _find(text: str, root: Node, path: list[str]) -> tuple[Node, list[str]]:
    """The deepest existing object along ``path`` and the keys still missing below it."""
    node = root
    for index, key in enumerate(path):
        member = node.member(key)
        if member is None:
            return node, path[index:]
        if member.value.members is None:
            where = ".".join(path[: index + 1])
            raise JsoncError(f"{where} is {describe(text, member.value)}, not an object")
        node = member.value
    return node, []


def describe(text: str, node: Node) -> str:
    """What a non-object value is, in words: ``null``, ``an array``, ``a string`` ..."""
    if node.kind == "array":
        return "an array"
    first = text[node.start : node.start + 1]
    return {"n": "null", "t": "true", "f": "false", '"': "a string"}.get(first, "a number")


def is_empty(text: str, path: list[str]) -> bool:
    """The object at ``path`` exists and has no members."""
    node, missing = _find(text, scan(text), path)
    return not missing and not node.members


def set_member(text: str, path: list[str], key: str, value: Any) -> str:
    """Return ``text`` with ``path...key`` set to ``value``; other bytes unchanged. In an
    object written on one line the value is written on one line too."""
    root = scan(text)
    unit = _indent_unit(text)
    nl = _newline(text)
    node, missing = _find(text, root, path)
    one_line = text.find("\n", node.start, node.end) < 0
    if not missing:
        existing = node.member(key)
        if existing is not None:
            base = _line_indent(text, existing.key_start)
            rendered = _one_line(value) if one_line else _render(value, unit, base, nl)
            return text[: existing.value_start] + rendered + text[existing.value_end :]
    if missing:
        new_key, new_value = missing[0], _wrap(missing[1:], key, value)
    else:
        new_key, new_value = key, value
    name = json.dumps(new_key, ensure_ascii=False) + ": "
    if node.members and one_line:
        last = node.members[-1]
        member_text = name + _one_line(new_value)
        return text[: last.value_end] + ", " + member_text + text[last.value_end :]
    indent = _member_indent(text, node, unit)
    member_text = name + _render(new_value, unit, indent, nl)
    if node.members:
        last = node.members[-1]
        return text[: last.value_end] + "," + nl + indent + member_text + text[last.value_end :]
    close = node.end - 1
    interior = text[node.start + 1 : close]
    if interior.strip() == "":
        closing = _line_indent(text, node.start)
        return text[: node.start + 1] + nl + indent + member_text + nl + closing + text[close:]
    return text[: node.start + 1] + nl + indent + member_text + text[node.start + 1 :]


def _wrap(path: list[str], key: str, value: Any) -> dict[str, Any]:
    result: dict[str, Any] = {key: value}
    for name in reversed(path):
        result = {name: result}
    return result


def remove_member(text: str, path: list[str], key: str) -> str:
    """Return ``text`` without ``path...key``: its key, value and separating comma only."""
    root = scan(text)
    node, missing = _find(text, root, path)
    if missing or node.member(key) is None:
        return text
    return _cut(text, node, key)


def _cut(text: str, node: Node, key: str) -> str:
    members = node.members or []
    index = next(i for i, m in enumerate(members) if m.key == key)
    member = members[index]
    opening, close = node.start + 1, node.end - 1
    if index > 0 and text[members[index - 1].value_end : member.key_start].strip() == ",":
        # Exact inverse of an insertion after the previous member; what follows stays.
        return text[: members[index - 1].value_end] + text[member.value_end :]
    rest = text[opening : member.key_start] + text[member.value_end : close]
    if len(members) == 1 and rest.strip() in ("", ","):
        return text[:opening] + text[close:]  # the only member: an empty object again
    edits = []
    scanner = _Scanner(text)
    comma = scanner.skip(member.value_end)
    if text.startswith(",", comma):
        edits.append(_whole_lines(text, member.key_start, comma + 1))
    else:  # the last member: the comma that separates it is the previous member's
        if index > 0:
            before = scanner.skip(members[index - 1].value_end)
            edits.append((before, before + 1))
        edits.append(_whole_lines(text, member.key_start, member.value_end))
    for start, end in sorted(edits, reverse=True):
        text = text[:start] + text[end:]
    return text


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a cut to the lines it fills, or over the blanks after it when it shares a line."""
    line_start = text.rfind("\n", 0, start) + 1
    after = re.compile(r"[ \t]*(?:\r?\n|\Z)").match(text, end)
    if after and not text[line_start:start].strip(" \t"):
        return line_start, after.end()
    return start, re.compile(r"[ \t]*").match(text, end).end()  # type: ignore[union-attr]
