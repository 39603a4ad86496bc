"""Reading and editing our entry in an MCP client's config file (the clients: ``client_table``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from . import jsonc, ledger
from .changes import (
    FileChange,
    UnreadableFile,
    dangling_link,
    read_only,
    read_text,
    real_path,
)
from .client_table import CLIENT_IDS, CLIENTS, ClientTarget, client
from .places import Place
from .toml_table import (
    TomlEditError,
    inline_value,
    render_table,
    set_keys,
    set_table,
    without_header,
)

__all__ = ["CLIENTS", "CLIENT_IDS", "ClientTarget", "EditRefused", "client"]


class EditRefused(RuntimeError):
    """The file cannot be edited safely; ``manual`` is the step to take instead, if special."""

    def __init__(self, message: str, manual: str = "") -> None:
        super().__init__(message)
        self.manual = manual


def read_entry(target: ClientTarget, place: Place, name: str) -> tuple[bool, Any]:
    """(file read and parsed, our entry or None). A missing file parses as empty."""
    try:
        return True, current_entry(target, place, name)
    except EditRefused:
        return False, None


def read_problem(target: ClientTarget, place: Place) -> str | None:
    """Why the client's config cannot be read or parsed (None: it can, or it is absent)."""
    try:
        current_entry(target, place, "")
    except EditRefused as exc:
        return str(exc)
    return None


def current_entry(target: ClientTarget, place: Place, name: str) -> Any:
    """Our entry as the client reads it (None: absent); EditRefused says why it cannot tell."""
    path = target.path(place)
    text = _read(path)
    if text is None or not text.strip():
        return None
    try:
        data: Any = _parse(target, text)
    except (ValueError, TomlEditError) as exc:
        raise EditRefused(f"{path}: {exc}") from None
    for key in target.container:
        data = data.get(key) if isinstance(data, dict) else None
    return data.get(name) if isinstance(data, dict) else None


def _read(path: Path) -> str | None:
    try:
        return read_text(path)
    except UnreadableFile as exc:
        raise EditRefused(str(exc)) from None


def _parse(target: ClientTarget, text: str) -> dict[str, Any]:
    return _parsed(target.fmt, text)


@functools.lru_cache(maxsize=2)
def _parsed(fmt: str, text: str) -> dict[str, Any]:
    """Parsed once per content: planning looks at a file several times, and some are huge."""
    if fmt == "toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except RecursionError:  # tomllib follows nested arrays by recursion
            raise ValueError("arrays nest too deeply to edit safely") from None
    return jsonc.loads(text)


def snippet(target: ClientTarget, name: str, entry: Any) -> str:
    """Our entry as the exact text to paste into the client's file by hand."""
    if target.fmt == "toml":
        return render_table([*target.container, name], entry).rstrip("\n")
    wrapped: Any = {name: entry}
    for key in reversed(target.container):
        wrapped = {key: wrapped}
    return json.dumps(wrapped, ensure_ascii=False)


def manual_step(target: ClientTarget, place: Place, name: str, entry: dict[str, Any]) -> str:
    """What to do by hand when install cannot edit the file: our entry as text to paste where
    it fits the file as it stands, or first what to mend in it."""
    path = target.path(place)
    try:
        text = read_text(path)
    except UnreadableFile:
        text = None
    if text is not None and text.strip():
        fit = _toml_step if target.fmt == "toml" else _json_step
        step = fit(target, text, path, name, entry)
        if step:
            return step
    return f"add this to {path} by hand: {snippet(target, name, entry)}"


def _toml_step(target: ClientTarget, text: str, path: Path, name: str, entry: dict[str, Any]) -> str:
    """A Codex file where a [table] for our entry cannot go: a container written inline takes
    our entry inline; our own entry written without a header is mended where it is."""
    found = without_header(text, [*target.container, name])
    if found is None:
        return ""
    table, inline = found
    where = ".".join(table)
    if len(table) <= len(target.container):
        return (
            f"set `{inline_value(name, entry)}` inside the inline table `{where} = {{ ... }}` in"
            f" {path} by hand (a [{where}.{name}] table cannot be added to an inline one), or"
            f" rewrite {where} as [{where}.NAME] tables and run it again"
        )
    if not inline:
        return (
            f"move the dotted keys {where}.* in {path} into a [{where}] table by hand, then run"
            " it again"
        )
    owned = ", ".join(inline_value(key, entry[key]) for key in owned_keys(target, entry) if key in entry)
    return f"set these keys of the inline table {where} in {path} by hand: `{owned}`"


def _json_step(target: ClientTarget, text: str, path: Path, name: str, entry: dict[str, Any]) -> str:
    """A JSON file whose container (or entry) is there but unusable: say what to mend in it,
    not to add another."""
    try:
        node = jsonc.scan(text)
    except jsonc.JsoncError:
        return ""
    keys = [*target.container, name]
    for depth, key in enumerate(keys, 1):
        found = [member for member in node.members or () if member.key == key]
        where = ".".join(keys[:depth])
        if len(found) > 1:
            what = "objects" if depth < len(keys) else "entries"
            return (
                f'merge the {len(found)} "{where}" {what} in {path} into one by hand (clients'
                " read only the last), then run it again"
            )
        if not found or depth == len(keys):
            return ""
        value = found[0].value
        if value.kind != "object":
            inner: Any = entry
            for below in reversed(keys[depth:]):
                inner = {below: inner}
            return (
                f'"{where}" in {path} is {jsonc.describe(text, value)}, not an object: replace'
                f" that value by hand with {json.dumps(inner, ensure_ascii=False)}"
            )
        node = value
    return ""


def plan_entry(
    target: ClientTarget, place: Place, name: str, entry: dict[str, Any] | None,
    store: Path | None = None,
) -> FileChange:
    """The change that sets (or with None removes) our entry; unchanged when already so.

    ``store`` is the install record: install notes there what it created, and uninstall
    removes a container or the whole file only when the record says install made it."""
    path = target.path(place)
    before = _read(path)
    if entry is None and before is None:
        return FileChange(path, before, before)
    created = ledger.lookup(store, path)
    try:
        if entry is None:
            after = _removed(target, before or "", name, created)
        else:
            after = _added(target, before, name, entry)
    except (ValueError, TomlEditError) as exc:
        raise EditRefused(f"{path}: {exc}") from None
    if after == before:
        return FileChange(path, before, after)
    _check_writable(path)
    record = None
    if store is not None and entry is None:
        tidy = tuple(Path(d) for d in created.dirs) if created and after is None else ()
        record = ledger.Update(store, path, None, tidy)
    elif store is not None and _added_ours(target, before, name):
        record = ledger.Update(store, path, _what_install_adds(target, before))
    backup = not (after is None and created is not None and created.file)
    return FileChange(path, before, after, backup=backup, record=record)


def _check_writable(path: Path) -> None:
    missing = dangling_link(path)
    if missing is not None:
        raise EditRefused(
            f"{path} is a symlink to {missing}, which does not exist",
            manual=f"create {missing} (or remove the link {path}), then run it again",
        )
    if read_only(path):
        raise EditRefused(
            f"{path} is read-only",
            manual=f"make it writable (chmod u+w {real_path(path)}), then run it again",
        )


def _blank(text: str | None) -> bool:
    return text is None or not text.strip()


_SET_ONCE = frozenset({"enabled", "tools"})
"""Keys install writes only into a new entry: from then on they are the user's (opencode's and
Kilo Code's ``enabled`` switch, Copilot CLI's ``tools`` allow-list)."""


def _env_key(target: ClientTarget) -> str:
    return "environment" if target.dialect == "opencode" else "env"


def owned_keys(target: ClientTarget, entry: dict[str, Any]) -> tuple[str, ...]:
    """The keys of an entry install keeps right: how the connector is launched. Others (the
    user's ``disabled``, opencode's ``enabled``, Codex's timeouts) are the user's; the env key
    is ours even when we write none, so a pin no longer wanted goes."""
    keys = [key for key in entry if key not in _SET_ONCE]
    env = _env_key(target)
    return (*keys, env) if env not in keys else tuple(keys)


def _changes(target: ClientTarget, existing: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """Each owned key whose value differs, with the value it needs (None: remove it). An
    absent env and an empty one are the same."""
    changes = {}
    for key in owned_keys(target, entry):
        wanted, held = entry.get(key), existing.get(key)
        if key == _env_key(target):
            same = isinstance(held or {}, dict) and (held or {}) == (wanted or {})
        else:
            same = key in existing and _same(held, wanted)
        if not same:
            changes[key] = wanted
    return changes


def _same(held: Any, wanted: Any) -> bool:
    """Equal and of the same JSON type (``true`` is not ``1``)."""
    return type(held) is type(wanted) and held == wanted


def _added(target: ClientTarget, before: str | None, name: str, entry: Any) -> str:
    """``before`` with our entry: a new one whole, an existing one with only its owned keys
    changed (its other keys and their bytes kept; unchanged when they already hold)."""
    text = None if _blank(before) else before
    path = [*target.container, name]
    existing = current_entry_in(target, text, name) if text is not None else None
    if isinstance(existing, dict) and text is not None:
        changes = _changes(target, existing, entry)
        if not changes:
            return text
        if target.fmt == "toml":
            return set_keys(text, path, changes)
        for key, value in changes.items():
            if value is None:
                text = jsonc.remove_member(text, path, key)
            else:
                text = jsonc.set_member(text, path, key, value)
        return text
    if target.fmt == "toml":
        return set_table(text or "", path, entry)
    return jsonc.set_member(text if text is not None else "{}\n", list(target.container), name, entry)


def _added_ours(target: ClientTarget, before: str | None, name: str) -> bool:
    """Install inserts our member now (rather than updating one already there)."""
    return _blank(before) or current_entry_in(target, before or "", name) is None


def current_entry_in(target: ClientTarget, text: str, name: str) -> Any:
    data: Any = _parse(target, text)
    for key in target.container:
        data = data.get(key) if isinstance(data, dict) else None
    return data.get(name) if isinstance(data, dict) else None


def _what_install_adds(target: ClientTarget, before: str | None) -> ledger.Created:
    if _blank(before):
        return ledger.Created(file=before is None, blank=before)
    assert before is not None
    if target.fmt == "toml":
        return ledger.Created(depth=len(target.container), newline=not before.endswith("\n"))
    data: Any = _parse(target, before)
    depth = 0
    for key in target.container:
        data = data.get(key) if isinstance(data, dict) else None
        if not isinstance(data, dict):
            break
        depth += 1
    return ledger.Created(depth=depth)


def _removed(
    target: ClientTarget, text: str, name: str, created: ledger.Created | None
) -> str | None:
    """``text`` without our member; containers and the file go only when install made them."""
    if _blank(text):
        return text
    path = list(target.container)
    if target.fmt == "toml":
        result = set_table(text, [*path, name], None)
        if created is not None and created.newline and result.endswith("\n"):
            result = result[:-2] if result.endswith("\r\n") else result[:-1]
        emptied = not result.strip()
    else:
        result = jsonc.remove_member(text, path, name)
        if created is not None and result != text:
            for depth in range(len(path), created.depth, -1):
                if not jsonc.is_empty(result, path[:depth]):
                    break
                result = jsonc.remove_member(result, path[: depth - 1], path[depth - 1])
        emptied = result.strip().lstrip("\ufeff") == "{}"
    if created is None or not emptied or result == text:
        return result
    if created.file:
        return None
    return created.blank if created.blank is not None else result
