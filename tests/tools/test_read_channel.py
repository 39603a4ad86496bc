"""Reads never enter the effect path: an unanswered read is an error, not an uncertain effect."""

from __future__ import annotations

from typing import Any

import pytest

from ghostlight_trio.browser.errors import BrowserError, OutcomeUnknown
from ghostlight_trio.engine.contracts import ToolCall, UncertainEffect, WorkContext, WorkspaceId
from ghostlight_trio.tools.shared.channel import PageChannel

from .fakes import Effects


class _SilentBrowser:
    async def request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise OutcomeUnknown("no answer", proof="r1")


def _call(effects: Effects) -> ToolCall:
    context = WorkContext(work_id="w", operation="computer", workspace_id=WorkspaceId("ws"))
    return ToolCall(context, {"tabId": 1}, effects)  # type: ignore[arg-type]


async def test_an_unanswered_read_is_a_plain_error_outside_the_effect_path() -> None:
    effects = Effects()
    channel = PageChannel(_SilentBrowser())  # type: ignore[arg-type]
    with pytest.raises(BrowserError) as failure:
        await channel.cdp(_call(effects), 1, "Page.captureScreenshot", read=True)
    assert failure.value.code == "read_timeout"
    assert "nothing was changed" in str(failure.value)
    assert effects.atomic_calls == 0 and effects.checkpoints == 1


async def test_an_unanswered_effect_is_uncertain_for_the_engine() -> None:
    effects = Effects()
    channel = PageChannel(_SilentBrowser())  # type: ignore[arg-type]
    with pytest.raises(OutcomeUnknown):
        await channel.cdp(_call(effects), 1, "Input.dispatchMouseEvent")
    assert effects.atomic_calls == 1


async def test_the_effect_path_raises_uncertainty_inside_atomic() -> None:
    seen: list[BaseException] = []

    class _Recording(Effects):
        async def atomic(self, effect: Any) -> Any:
            try:
                return await effect()
            except UncertainEffect as uncertain:
                seen.append(uncertain)
                raise

    channel = PageChannel(_SilentBrowser())  # type: ignore[arg-type]
    with pytest.raises(OutcomeUnknown):
        await channel.cdp(_call(_Recording()), 1, "Input.dispatchMouseEvent")
    assert len(seen) == 1 and seen[0].proof == "r1"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_page_text", {}),
        ("find", {"query": "the button"}),
        ("read_page", {}),
        ("read_page", {"ref_id": "ref_1"}),
        ("read_console_messages", {}),
        ("read_network_requests", {"clear": True}),
    ],
)
async def test_the_reading_tools_leave_an_unanswering_tab_usable(tool: str, arguments: dict) -> None:
    """A page too busy to answer a read has changed nothing: the read fails plainly, and the
    tab is not quarantined (no effect was dispatched, so the engine has nothing uncertain)."""
    from .fakes import handler as registered

    effects = Effects()
    handler = registered(tool, _SilentBrowser())
    context = WorkContext(work_id="w", operation=tool, workspace_id=WorkspaceId("ws"))
    result = await handler(ToolCall(context, {"tabId": 1, **arguments}, effects))  # type: ignore[arg-type]
    said = "".join(getattr(block, "text", "") for block in result.content)
    assert result.kind == "tool_error" and "nothing was changed" in said, said
    assert effects.atomic_calls == 0


async def test_an_extension_answer_without_a_value_is_an_error_not_nothing_found() -> None:
    class _Empty:
        async def request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return {}

    channel = PageChannel(_Empty())  # type: ignore[arg-type]
    with pytest.raises(BrowserError) as failure:
        await channel.content(_call(Effects()), 1, "find_text", {"query": "x"}, read=True)
    assert failure.value.code == "bad_answer"


async def test_a_change_the_busy_page_took_but_did_not_answer_is_an_unknown_outcome() -> None:
    """A field value or a form submit handed to a page that then did not answer (busy with a
    script of its own) may still take effect: never reported as a plain failure to retry."""

    class _BusyPage:
        async def request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            raise BrowserError("The page did not answer within 15000 ms", hop="page", code="page_timeout")

    channel = PageChannel(_BusyPage())  # type: ignore[arg-type]
    with pytest.raises(OutcomeUnknown) as unknown:
        await channel.content(_call(Effects()), 1, "form_input", {"ref": "ref_1", "value": "x"})
    assert unknown.value.hop == "page" and "may still carry it out" in unknown.value.message
    with pytest.raises(BrowserError) as read_failure:  # a read changed nothing: a plain failure
        await channel.content(_call(Effects()), 1, "page_text", {}, read=True)
    assert read_failure.value.code == "page_timeout"
