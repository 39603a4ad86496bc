"""A recording as a self-contained Playwright Test file (TypeScript).

Targets are ``getByRole`` / ``getByLabel`` / ``getByText`` locators (a CSS path only when the
element had no name), inside ``frameLocator`` for a framed one; what the page showed after a
step becomes web-first assertions (``toHaveURL``, ``toHaveTitle``, ``toBeVisible``). Every
string in the file, page-chosen names above all, is written as a JSON string literal (all
non-ASCII escaped), which TypeScript reads as the same string: no name can end the literal.
A withheld value is read from the environment variable ``GHOSTLIGHT_SECRET_<NAME>``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .locator import Locator
from .steps import RecordedStep, Shown, replayed

MODIFIERS = {"ctrl": "Control", "control": "Control", "shift": "Shift", "alt": "Alt",
             "option": "Alt", "cmd": "Meta", "command": "Meta", "meta": "Meta", "super": "Meta",
             "win": "Meta"}  # fmt: skip
KEYS = {"return": "Enter", "enter": "Enter", "esc": "Escape", "escape": "Escape", "tab": "Tab",
        "space": "Space", "backspace": "Backspace", "delete": "Delete", "up": "ArrowUp",
        "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight", "home": "Home",
        "end": "End", "pageup": "PageUp", "pagedown": "PageDown"}  # fmt: skip
CLICK_CALLS = {"left": "click()", "right": "click({ button: 'right' })", "double": "dblclick()",
               "triple": "click({ clickCount: 3 })"}  # fmt: skip


def literal(text: str) -> str:
    """``text`` as a TypeScript string literal (JSON's quoting, ASCII only)."""
    return json.dumps(text, ensure_ascii=True)


def secret_env(name: str) -> str:
    return f"GHOSTLIGHT_SECRET_{name}"


def playwright_of(steps: Sequence[RecordedStep], title: str = "recorded flow") -> tuple[str, list[str]]:
    """The test file, and what it could not express (each said once)."""
    lines = ["import { test, expect } from '@playwright/test';", "",
             f"test({literal(title)}, async ({{ page }}) => {{"]  # fmt: skip
    warnings: list[str] = []
    before = Shown()
    kept = replayed(steps)
    for number, step in enumerate(kept, 1):
        if step.kind == "dialog" and number > 1:
            continue  # answered by the handler set before the step that opened it
        body = _action(step)
        following = kept[number] if number < len(kept) else None
        if body is not None and following is not None and following.kind == "dialog":
            # Playwright answers a dialog only through a handler set before it opens.
            body = [*(_action(following) or []), *body]
        if body is None:
            warnings.append(f"step {number} ({step.kind}) left out: nothing to find its target by")
            continue
        lines += [f"  {line}" for line in body]
        if step.after is not None:
            lines += [f"  {line}" for line in _assertions(before, step.after)]
            before = step.after
    lines += ["});", ""]
    return "\n".join(lines), warnings


def _action(step: RecordedStep) -> list[str] | None:
    kind = step.kind
    if kind == "goto":
        # navigate takes an address without a scheme; page.goto does not: where it landed does.
        url = step.value if "://" in step.value or step.after is None else step.after.url
        return [f"await page.goto({literal(url)});"]
    if kind in ("back", "forward"):
        return [f"await page.go{kind.capitalize()}();"]
    if kind == "reload":
        return ["await page.reload();"]
    if kind == "close":
        return ["await page.close();"]
    if kind == "dialog":
        answer = "d.dismiss()" if step.button == "dismiss" else (
            f"d.accept({literal(step.value)})" if step.button == "respond" else "d.accept()"
        )  # fmt: skip
        return [f"page.once('dialog', (d) => {answer});"]
    if kind == "fill_form":
        out = [f"await page.getByLabel({literal(label)}).fill({_value(value, secret)});"
               for label, value, secret in step.fields if not isinstance(value, bool)]  # fmt: skip
        out += [f"await page.getByLabel({literal(label)}).setChecked({str(value).lower()});"
                for label, value, _ in step.fields if isinstance(value, bool)]  # fmt: skip
        return out
    if kind == "press" and step.locator is None:
        return [f"await page.keyboard.press({literal(key)});" for key in keys_of(step.value)]
    target = _locator(step.locator)
    if target is None:
        return None
    if kind == "click":
        return [f"await {target}.{CLICK_CALLS.get(step.button, 'click()')};"]
    if kind == "check":
        return [f"await {target}.setChecked({str(step.checked).lower()});"]
    if kind == "select":
        return [f"await {target}.selectOption({literal(step.value)});"]
    if kind == "fill":
        return [f"await {target}.fill({_value(step.value, step.secret)});"]
    if kind == "press":
        return [f"await {target}.press({literal(key)});" for key in keys_of(step.value)]
    if kind == "scroll_to":
        return [f"await {target}.scrollIntoViewIfNeeded();"]
    if kind == "upload":
        names = [name.strip() for name in step.value.split(",") if name.strip()]
        return [f"await {target}.setInputFiles([{', '.join(literal(n) for n in names)}]);"]
    return None


def _locator(locator: Locator | None) -> str | None:
    """The Playwright locator expression for ``locator``, or None when it has nothing to go by."""
    if locator is None:
        return None
    base = "page" + "".join(f".frameLocator({literal(frame)})" for frame in locator.frames)
    by = locator.by
    if by == "role":
        return f"{base}.getByRole({literal(locator.role)}, {{ name: {literal(locator.name)}, exact: true }})"
    if by == "label":
        return f"{base}.getByLabel({literal(locator.label)}, {{ exact: true }})"
    if by == "text":
        text, whole = locator.shown_text
        return f"{base}.getByText({literal(text)}, {{ exact: {str(whole).lower()} }})"
    if by == "css":
        return f"{base}.locator({literal(locator.css)})"
    return None


def _value(value: object, secret: str) -> str:
    if secret:
        return f"process.env[{literal(secret_env(secret))}] ?? ''"
    return literal(str(value))


def _assertions(before: Shown, after: Shown) -> list[str]:
    """What changed on the page, asserted the web-first way (retried until it holds)."""
    out = []
    if after.url and after.url != before.url:
        out.append(f"await expect(page).toHaveURL({literal(after.url)});")
    if after.title != before.title:
        out.append(f"await expect(page).toHaveTitle({literal(after.title)});")
    if after.text and (after.text, after.role) != (before.text, before.role):
        clipped = after.text.endswith("\u2026")
        text = after.text.rstrip("\u2026") if clipped else after.text
        exact = "false" if clipped else "true"
        if after.role == "heading":
            found = f"page.getByRole('heading', {{ name: {literal(text)}, exact: {exact} }})"
        else:
            found = f"page.getByText({literal(text)}, {{ exact: {exact} }})"
        out.append(f"await expect({found}.first()).toBeVisible();")
    return out


def keys_of(chord: str) -> list[str]:
    """computer's key syntax (``ctrl+a Return``) as Playwright's presses (``Control+a``,
    ``Enter``)."""
    presses = []
    for press in chord.split():
        parts = press.split("+")
        named = [MODIFIERS.get(part.lower(), "") for part in parts[:-1]]
        last = parts[-1]
        key = KEYS.get(last.lower(), last if len(last) == 1 else last[:1].upper() + last[1:])
        presses.append("+".join([*(m or p for m, p in zip(named, parts[:-1], strict=True)), key]))
    return presses
