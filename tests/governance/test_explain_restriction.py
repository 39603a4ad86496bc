"""explain tells a request that carries its own restriction the policy its calls meet."""

from __future__ import annotations

from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from ghostlight_trio.catalog.registry import load_specs
from ghostlight_trio.engine.contracts import ToolCall, WorkContext
from ghostlight_trio.governance.explain import explain_handler
from ghostlight_trio.governance.governor import Governor

from .harness import grant, manifest, state

USER = manifest(grant("docs", ["docs.example.com"], ["read", "action"]))
ONLY_READ = {**manifest(grant("r", ["docs.example.com"], ["read"])), "name": "agent-own"}


async def _explain(governor: Governor, restriction: dict | None) -> str:
    context = WorkContext(work_id="w", operation="explain", workspace_id=None, restriction=restriction)
    result = await explain_handler(governor, load_specs())(ToolCall(context, {}, None))  # type: ignore[arg-type]
    return text(result)


async def test_explain_names_the_request_s_own_restriction_as_a_tier() -> None:
    governor = Governor()
    governor.set_state(state(USER))
    plain = await _explain(governor, None)
    assert "restriction" not in plain.lower()
    narrowed = await _explain(governor, ONLY_READ)
    assert narrowed.startswith("This request carries its own restriction")
    assert "Restriction policy agent-own" in narrowed and "Grant 'r' allows read on docs.example.com." in narrowed
    assert "User policy" in narrowed  # the user's own tier still stands first


async def test_explain_says_an_invalid_restriction_denies_every_call() -> None:
    governor = Governor()
    narrowed = await _explain(governor, {"grants": "everything"})
    assert narrowed.startswith("This request's restriction is not a valid manifest")
    assert "every call made with it is denied" in narrowed
