"""Which control of a form each key the agent gives names.

The page's content script lists its forms and their visible controls (``form_fields``). Each
key is matched to one control by its label, placeholder, name or id, or aria-label (in that
order of trust), exactly before by prefix before by substring; the tier counts more than the
source, and longer keys are matched first. A control is used once. When the best match is
shared by several controls the key is left unmatched with them as candidates, so no field is
guessed. A radio group is called by the legend over it as by a label.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

SOURCES = ("label", "placeholder", "name", "aria")
"""Where a control's name may come from, most trusted first (``name`` covers name and id)."""
EXACT, PREFIX, SUBSTRING = 0, 1, 2


def words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


@attrs.frozen
class Control:
    """One fillable thing: a field, or a radio group (``options`` holds its radios)."""

    ref: str
    kind: str
    names: tuple[tuple[str, str], ...]
    """(source, normalised text) pairs this control can be called by."""
    label: str
    enabled: bool = True
    secret: bool = False
    options: tuple[Mapping[str, Any], ...] = ()
    order: int = 0


@attrs.frozen
class Match:
    key: str
    control: Control
    tier: int


@attrs.frozen
class FillPlan:
    form: int
    matches: tuple[Match, ...]
    unmatched: tuple[dict[str, Any], ...]

    @property
    def score(self) -> tuple[int, int]:
        """2 per exact match, 1 per other; then how many keys fit anything there at all (a
        form where a key fits two fields beats one where it fits none)."""
        matched = sum(2 if match.tier == EXACT else 1 for match in self.matches)
        return matched, len(self.matches) + sum(1 for u in self.unmatched if u["candidates"])


def controls_of(fields: Sequence[Mapping[str, Any]]) -> list[Control]:
    """The form's controls, radios of one name merged into one group, in document order."""
    out: list[Control] = []
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for order, field in enumerate(fields):
        name = str(field.get("name", ""))
        if field.get("type") == "radio" and name:
            if name not in groups:
                groups[name] = []
                out.append(_radio_group(name, str(field.get("group", "")), order))
            groups[name].append(field)
            continue
        names = tuple(
            (source, words(str(field.get(key, ""))))
            for source, key in (("label", "label"), ("placeholder", "placeholder"),
                                ("name", "name"), ("name", "id"), ("aria", "aria"))
            if words(str(field.get(key, "")))
        )  # fmt: skip
        label = next((str(field[k]) for k in ("label", "aria", "placeholder", "name", "id")
                      if field.get(k)), str(field.get("ref", "")))  # fmt: skip
        out.append(
            Control(
                ref=str(field.get("ref", "")),
                kind=str(field.get("type", "text")),
                names=names,
                label=label,
                enabled=bool(field.get("enabled", True)),
                secret=bool(field.get("secret")),
                order=order,
            )
        )
    return [
        attrs.evolve(c, options=tuple(groups[c.ref])) if c.kind == "radio" and c.ref in groups
        else c
        for c in out
    ]  # fmt: skip


def _radio_group(name: str, legend: str, order: int) -> Control:
    """A radio group, called by what the page shows over it (its fieldset's legend, its
    radiogroup's name) as a label, and by its name attribute."""
    names = (("label", words(legend)),) if words(legend) else ()
    return Control(ref=name, kind="radio", names=(*names, ("name", words(name))),
                   label=legend or name, order=order)  # fmt: skip


def _rank(key: str, control: Control) -> tuple[int, int] | None:
    """(tier, source) of the best way ``key`` names ``control``; None when it does not. Keys
    match whole words (a key's last word may be the start of a word, from 3 letters), never a
    piece inside a word: "age" does not name "Message"."""
    best: tuple[int, int] | None = None
    wanted = key.split()
    for source, text in control.names:
        words = text.split()
        if text == key or text.replace(" ", "") == key.replace(" ", ""):
            tier = EXACT
        elif _starts(words, wanted) or (len(text) >= 3 and _starts(wanted, words)):
            tier = PREFIX
        elif _contains(words, wanted) or (len(text) >= 4 and _contains(wanted, words)):
            tier = SUBSTRING
        else:
            continue
        rank = (tier, SOURCES.index(source))
        if best is None or rank < best:
            best = rank
    return best


def _starts(words: list[str], start: list[str]) -> bool:
    """``words`` begin with the words ``start`` (its last one may be a word's first 3+ letters)."""
    if not start or len(start) > len(words):
        return False
    *whole, last = start
    here = words[len(whole)]
    return words[: len(whole)] == whole and (here == last or (len(last) >= 3 and here.startswith(last)))


def _contains(words: list[str], run: list[str]) -> bool:
    """``run`` occurs in ``words`` as consecutive whole words."""
    size = len(run)
    return size > 0 and any(words[i : i + size] == run for i in range(len(words) - size + 1))


def plan_form(index: int, fields: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> FillPlan:
    controls = controls_of(fields)
    matches: list[Match] = []
    unmatched: list[dict[str, Any]] = []
    order = {key: index for index, key in enumerate(keys)}
    taken_by: dict[int, str] = {}
    for key in sorted(keys, key=lambda k: (-len(words(k)), order[k])):
        wanted = words(key)
        ranked = [
            (rank, i) for i, control in enumerate(controls)
            if wanted and (rank := _rank(wanted, control)) is not None
        ]  # fmt: skip
        free = [(rank, i) for rank, i in ranked if i not in taken_by]
        if not free:
            entry: dict[str, Any] = {"key": key, "candidates": []}
            if ranked:  # it fits only fields another key already fills
                entry["taken_by"] = taken_by[min(ranked)[1]]
            unmatched.append(entry)
            continue
        best = min(rank for rank, _ in free)
        tied = [i for rank, i in free if rank == best]
        if len(tied) > 1:
            unmatched.append({
                "key": key,
                "candidates": [controls[i].label for i in tied][:5],
                "refs": [controls[i].ref for i in tied][:5],
            })  # fmt: skip
            continue
        taken_by[tied[0]] = key
        matches.append(Match(key=key, control=controls[tied[0]], tier=best[0]))
    matches.sort(key=lambda m: m.control.order)
    return FillPlan(form=index, matches=tuple(matches), unmatched=tuple(unmatched))


def best_plan(forms: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> FillPlan | None:
    """The form the keys name best (first on a tie); None when the page has no form. A key
    that fits no field there but one in another form says so (``elsewhere``)."""
    plans = [plan_form(i, form.get("fields", []), keys) for i, form in enumerate(forms)]
    best = max(plans, key=lambda plan: plan.score, default=None)
    if best is None:
        return None
    unmatched = []
    for entry in best.unmatched:
        if not entry["candidates"] and "taken_by" not in entry:
            other = next(
                (match.control.label for plan in plans if plan is not best
                 for match in plan.matches if match.key == entry["key"]),
                None,
            )  # fmt: skip
            if other is not None:
                entry = {**entry, "elsewhere": other}
        unmatched.append(entry)
    return attrs.evolve(best, unmatched=tuple(unmatched))


def pick_submit(submits: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The form's own submit control: a native one named like a submit, else the first native
    one, else a button named like a submit (the page names them: ``named``, ``native``)."""
    named = [s for s in submits if s.get("named")]
    native = [s for s in submits if s.get("native")]
    for choice in ([s for s in native if s in named], native, named):
        if choice:
            return choice[0]
    return None
