"""read_console_messages shows what a page logged and threw, contents included: an object or
array as its one-level preview, a thrown string or object as itself."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from .conftest import Service, open_page, text

pytestmark = pytest.mark.e2e


async def test_logged_objects_and_thrown_values_keep_their_contents(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    first = await service.call("read_console_messages", ws, tabId=tab, clear=True)
    assert first.kind == "ok", text(first)
    script = (
        "console.log('obj', {a: 1, nested: {b: 'two'}}, [4, 5], new Map([[1, 'x']]));"
        " setTimeout(() => { throw 'thrown-string'; }, 0);"
        " setTimeout(() => { throw {code: 7}; }, 0); 1"
    )
    ran = await service.call(
        "javascript_tool", ws, tabId=tab, action="javascript_exec", text=script
    )
    assert ran.kind == "ok", text(ran)
    read = ""
    with trio.move_on_after(10):  # the throws come from timers, late on a loaded machine
        while "Uncaught {code: 7}" not in read:
            await trio.sleep(0.2)
            read = text(await service.call("read_console_messages", ws, tabId=tab))
    assert "obj {a: 1, nested: Object} [4, 5] Map(1) {1 => \"x\"}" in read, read  # one level, as DevTools
    assert "Uncaught thrown-string" in read, read
    assert "Uncaught {code: 7}" in read, read
