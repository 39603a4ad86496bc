"""Stable denial ids and the words of a denial.

``D-`` + the first 8 hex digits of SHA-256 over ``manifest_hash LF grant_id LF rule``: the same
policy denying the same way always yields the same id (so simulate can reproduce it), and the id
reveals nothing of the rule.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache


@lru_cache(maxsize=1024)
def denial_id(manifest_hash: str, grant_id: str, rule: str) -> str:
    digest = hashlib.sha256(f"{manifest_hash}\n{grant_id}\n{rule}".encode()).hexdigest()
    return f"D-{digest[:8]}"


NEXT_STEP = "Do not retry or work around this; tell the user what you were trying to do."


def never_touch_text(ident: str, host: str) -> str:
    return (
        f"Denied ({ident}): {host} is on the user's never-touch list. Do not retry or work"
        " around this."
    )


def protected_text(ident: str, scheme: str) -> str:
    if scheme == "file":
        return (
            f"Denied ({ident}): {scheme}: URLs (the computer's own files) are never opened for an"
            " agent; nothing was opened. Do not retry; if a file is needed, ask the user for its"
            " contents."
        )
    return (
        f"Denied ({ident}): {scheme}: pages (the browser's own pages and its extensions') are"
        " never opened, read or driven for an agent, under any policy: script there would act"
        " with the browser's own powers. Nothing was opened. Do not retry or work around this;"
        " if something must be done there, ask the user to do it."
    )


def protected_page_text(ident: str, message: str) -> str:
    """A tab found on such a page (the user took it there, or history did): nothing was sent."""
    return (
        f"Denied ({ident}): {message.rstrip('.')}. Agents are never let into the browser's own"
        " pages or its extensions'. Navigate the tab to a web page, or ask the user."
    )


_TIER_NAMES = {
    "org": "the organisation's policy",
    "user": "the user's policy",
    "restriction": "the restriction your client sent with this request (its own setting, not"
    " the user's policy)",
}
"""Whose rule denied, as the denial names it."""


def policy_text(
    ident: str,
    label: str,
    host: str | None,
    rule: str,
    grant: str,
    missing: list[str],
    tier: str = "",
) -> str:
    where = f" on {host}" if host else ""
    if rule == "capability":
        who = f"grant {grant!r} does not allow" if grant else "no grant allows"
        reason = f"{label}{where} needs {', '.join(missing)}, which {who}"
    elif rule == "unknown_action":
        reason = f"{label} is not a classified action, so the policy cannot allow it"
    elif rule == "denied_domain":
        reason = f"{label}{where}: the host is excluded by grant {grant!r}"
    elif rule == "unmatched_domain":
        reason = f"{label}{where}: no grant covers this host"
    elif rule.startswith("scheme/"):
        reason = f"{label}: {rule.split('/', 1)[1]}: URLs are outside what the policy grants"
    elif rule == "indeterminate_host":
        reason = f"{label}: the page's host could not be determined, so the policy cannot allow it"
    elif rule == "restriction_invalid":
        reason = f"{label}: this session's restriction is not a valid manifest, so nothing is allowed"
    else:
        reason = f"{label}{where} is not allowed ({rule})"
    whose = _TIER_NAMES.get(tier)
    by = f" by {whose}" if whose is not None and rule != "restriction_invalid" else ""
    return f"Denied ({ident}){by}: {reason}. {NEXT_STEP}"


def moved_on_text(ident: str, tool: str, host: str | None, *, arriving: bool = False) -> str:
    if arriving:
        return (
            f"Denied ({ident}): {tool} was carried out, and the page then started loading"
            f" {host or 'a host'}, which the policy does not allow (its request may already have"
            " been sent); the navigation was stopped and the tab was moved to about:blank. "
            + NEXT_STEP
        )
    return (
        f"Denied ({ident}): {tool} was carried out, and the page then went on to"
        f" {host or 'a host'}, which the policy does not allow; what that page showed is"
        " withheld and the tab was moved to about:blank. " + NEXT_STEP
    )


def closed_page_text(ident: str, tool: str, host: str) -> str:
    return (
        f"Denied ({ident}): {tool} was carried out, and the tab shows a page on {host}, which"
        " the policy does not let this workspace read; what this call saw there is withheld and"
        " the tab was moved to about:blank. " + NEXT_STEP
    )


def landing_text(ident: str, host: str | None) -> str:
    return (
        f"Denied ({ident}): the navigation landed on {host or 'a host'} (after redirects), which"
        " the policy does not allow; the tab was moved to about:blank. " + NEXT_STEP
    )
