"""The command line and profile preferences that keep a managed browser from making requests
of its own.

A managed browser loads what the agent's pages load and nothing else: no update checks, no
account lookups, no metrics, no Safe Browsing checks, no spell-check dictionaries. Each switch,
feature and preference below is Chromium's own, with what it stops; the user's own browser is
never started or changed with these. ``tests/egress`` runs the demo and a session of page
work (typing, a GIF export, a download) under ``strace -f`` and fails on any packet sent
beyond loopback, so a Chromium release that grows a new background request shows up there.
"""

from __future__ import annotations

from typing import Any

_NOWHERE = "http://127.0.0.1:9"
"""Where the services Chromium can only be pointed elsewhere go: the discard port on loopback,
which nothing listens on, so the attempt ends on this machine."""

QUIET_SWITCHES: tuple[tuple[str, str], ...] = (
    ("--no-first-run", "the first-run dialog and its default-browser and import steps"),
    ("--no-default-browser-check", "the default-browser check"),
    ("--disable-background-networking", "most background fetches (suggestions, promos, ...)"),
    ("--disable-component-update", "component downloads (CRLSet, Widevine, ...)"),
    (f"--component-updater=url-source={_NOWHERE}", "the component update check that runs anyway"),
    (f"--gaia-url={_NOWHERE}", "the account lookup at start (accounts.google.com/ListAccounts)"),
    ("--disable-sync", "Sync"),
    ("--disable-default-apps", "installing the default apps on a new profile"),
    ("--disable-domain-reliability", "Domain Reliability reports"),
    ("--disable-breakpad", "crash report uploads"),
    ("--metrics-recording-only", "metrics uploads (recorded locally, never sent)"),
    ("--no-pings", "hyperlink auditing pings"),
    ("--disable-field-trial-config", "the built-in field trial configuration"),
    ("--disable-component-extensions-with-background-pages", "built-in background extensions"),
    ("--disable-quic", "QUIC (pages load over TCP)"),
    ("--disable-gpu", "the GPU process (headless needs none)"),
)
"""(switch, what it stops), in the order they go on the command line."""

QUIET_FEATURES: tuple[tuple[str, str], ...] = (
    ("NetworkTimeServiceQuerying", "the network time query (clients2.google.com/time)"),
    ("OptimizationHints", "optimization guide hints"),
    ("OptimizationHintsFetching", "optimization guide fetches"),
    ("OptimizationGuideModelDownloading", "on-device model downloads"),
    ("AutofillServerCommunication", "autofill field-type queries"),
    ("Translate", "translation offers and their language model"),
    ("MediaRouter", "Cast discovery"),
    ("DialMediaRouteProvider", "DIAL discovery on the local network"),
    ("CertificateTransparencyComponentUpdater", "the CT log list download"),
    ("InterestFeedContentSuggestions", "the new tab page feed"),
)
"""Features switched off with one ``--disable-features`` (name, what it stops)."""


def quiet_arguments() -> list[str]:
    """The switches above, then the features as one ``--disable-features`` list."""
    features = ",".join(name for name, _ in QUIET_FEATURES)
    return [switch for switch, _ in QUIET_SWITCHES] + [f"--disable-features={features}"]


QUIET_PREFERENCES: dict[str, dict[str, Any]] = {
    # Safe Browsing: every download is sent for a check (sb-ssl.google.com/safebrowsing/
    # clientreport/download), and lists, phishing models and password pings follow. Chromium 156
    # has no switch left for any of it (--safebrowsing-disable-download-protection, -auto-update
    # and --disable-client-side-phishing-detection are gone); switched off, none of it runs.
    "safebrowsing": {"enabled": False, "enhanced": False},
    # Spell checking: its dictionary download (redirector.gvt1.com/edgedl/chrome/dict/...).
    "browser": {"enable_spellchecking": False},
    "spellcheck": {
        "use_spelling_service": False,  # the spelling service (text sent to Google)
        "dictionaries": [],
        # The old single-dictionary preference defaults to the interface language's; when the
        # spell checker starts (a field typed into) it moves that into an empty "dictionaries"
        # and downloads it, spell checking off or not. Empty, there is nothing to move.
        "dictionary": "",
    },
}
"""Profile preferences with no command-line switch, set before each launch."""


def with_quiet_preferences(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` (a profile's preferences) with ``QUIET_PREFERENCES`` set in them, every
    other preference kept."""
    merged = dict(settings)
    for section, values in QUIET_PREFERENCES.items():
        current = merged.get(section)
        merged[section] = {**(current if isinstance(current, dict) else {}), **values}
    return merged
