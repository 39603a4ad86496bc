"""The one strict manifest parser and hot reload that keeps the last good policy."""

from __future__ import annotations

import json

import pytest

from ghostlight_trio.catalog.registry import Catalog, load_specs
from ghostlight_trio.governance.assembly import advertise
from ghostlight_trio.governance.governor import Governor
from ghostlight_trio.governance.manifest import ManifestError, parse_manifest_text
from ghostlight_trio.governance.sources import PolicyFiles, PolicySources

from .harness import grant, manifest

GOOD = manifest(grant("g", ["*.example.com"], ["read"]))


def test_a_good_manifest_parses_and_its_hash_ignores_formatting() -> None:
    compact = parse_manifest_text(json.dumps(GOOD))
    pretty = parse_manifest_text(json.dumps(GOOD, indent=4))
    assert compact.hash == pretty.hash and compact.grants[0].allow[0].host == "example.com"
    assert compact.mode == "enforce"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"schema": 3,\n "name": "x",\n "version": "1", "grants": [}', "line 3 column 29"),
        (json.dumps({**GOOD, "extra": 1}), "extra: unknown field"),
        (json.dumps({**GOOD, "schema": 2}), "schema: must be 3"),
        (json.dumps({**GOOD, "mode": "loud"}), "mode: must be 'observe' or 'enforce'"),
        ('{"schema": 3, "schema": 3}', "duplicate key 'schema'"),
        (json.dumps(manifest(grant("g", ["https://x.com"], ["read"]))), "grants[0].hosts.allow[0]"),
        (json.dumps(manifest(grant("g", ["x.com:443"], ["read"]))), "names a port"),
        (json.dumps(manifest(grant("g", ["x.com"], ["fly"]))), "grants[0].allowed[0]: unknown capability"),
        (json.dumps(manifest(grant("g", ["a.com"], ["read"]), grant("g", ["b.com"], ["read"]))), "duplicate grant id 'g'"),
        (json.dumps(manifest({"id": "g", "allowed": ["read"], "hosts": {"allow": [], "maybe": []}})), "grants[0].hosts.maybe: unknown field"),
        (json.dumps({"schema": 3}), "name: is required"),
        ('{"schema": 3, "name": "x", "version": "1", "grants": %s}' % ("[" * 3000 + "]" * 3000),
         "arrays and objects nest too deeply to read"),
        (json.dumps({**GOOD, "name": "x\ud800"}), "names half a surrogate pair"),
        (json.dumps(manifest(grant("g\udc00", ["a.com"], ["read"]))), "names half a surrogate pair"),
    ],
)
def test_bad_manifests_are_rejected_with_where(text: str, problem: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest_text(text, source="policy.json")
    assert any(problem in item for item in caught.value.problems), caught.value.problems


def test_hot_reload_keeps_the_last_good_policy_and_republishes(tmp_path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(GOOD))
    governor = Governor(PolicySources(PolicyFiles(org=None, user=path, settings=None)))
    specs = load_specs()
    names = [spec.name for spec in specs]
    catalog = Catalog(specs, available=names)
    advertise(governor, catalog, names)
    assert "javascript_tool" not in {s.name for s in catalog.advertised()}  # nothing grants execute
    assert "explain" in {s.name for s in catalog.advertised()}
    first = governor.state.tiers[0][1].manifest.hash
    generation = catalog.generation

    path.write_text('{"schema": 3, "name": ')  # a bad edit
    assert governor.reload_if_changed()
    assert governor.state.tiers[0][1].manifest.hash == first
    assert governor.state.problems and "line 1" in governor.state.problems[0]

    path.write_text(json.dumps(manifest(grant("g", ["*"], ["read", "execute"]))))
    assert governor.reload_if_changed()
    advertise(governor, catalog, names)
    assert governor.state.tiers[0][1].manifest.hash != first and not governor.state.problems
    assert catalog.generation > generation
    assert "javascript_tool" in {s.name for s in catalog.advertised()}
    before = catalog.generation
    advertise(governor, catalog, names)  # same list: the generation still moves
    assert catalog.generation == before + 1


def test_a_configured_manifest_that_never_loaded_fails_closed(tmp_path) -> None:
    path = tmp_path / "missing.json"
    governor = Governor(PolicySources(PolicyFiles(org=None, user=path, settings=None)))
    [(tier, policy)] = governor.state.tiers
    assert tier == "user" and policy.manifest.grants == ()


def test_bad_edits_of_any_kind_keep_the_last_good_policy_and_settings(tmp_path) -> None:
    """Whatever a hand edit leaves in the files (nesting past what the parser follows, half a
    surrogate pair), a reload reports it and keeps what was good; it never raises into the
    service's policy watcher."""
    path, settings = tmp_path / "policy.json", tmp_path / "config.json"
    path.write_text(json.dumps(GOOD))
    settings.write_text(json.dumps({"sacred_domains": ["bank.example"]}))
    governor = Governor(PolicySources(PolicyFiles(org=None, user=path, settings=settings)))
    first = governor.state.tiers[0][1].manifest.hash
    for policy_text, settings_text in (
        ('{"grants":' + "[" * 3000 + "]" * 3000 + "}", '{"sacred_domains":' + "[" * 3000 + "]" * 3000 + "}"),
        ('{"schema": 3, "name": "\\udfff"}', '{"sacred_domains": ["a\\udc00.com"]}'),
    ):
        path.write_text(policy_text)
        settings.write_text(settings_text)
        assert governor.reload_if_changed()
        assert governor.state.tiers[0][1].manifest.hash == first
        assert len(governor.state.problems) == 2  # the manifest's and the settings'
        assert governor.sources is not None
        assert len(governor.sources.current.settings.warnings) == 1
        # The never-touch list is kept: a broken edit must not open what it closed.
        assert [p.text for p in governor.state.never_touch] == ["bank.example"]


def test_settings_that_never_read_close_everything_until_they_do(tmp_path) -> None:
    settings = tmp_path / "config.json"
    settings.write_text('{"sacred_domains": ["bank.example"')  # cut short by an editor
    governor = Governor(PolicySources(PolicyFiles(org=None, user=None, settings=settings)))
    assert [p.text for p in governor.state.never_touch] == ["*"]
    assert any("every site is never-touch until it reads" in p for p in governor.state.problems)
    settings.write_text('{"sacred_domains": ["bank.example"]}')
    assert governor.reload_if_changed()
    assert [p.text for p in governor.state.never_touch] == ["bank.example"]
