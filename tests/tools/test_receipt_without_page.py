"""An input delivered while the page is between documents for the whole settling bound is
reported as done, without a receipt, never as a failure of the tool."""

from __future__ import annotations

from typing import Any

from .fakes import handler, tool_call

TARGET = {"ref": "ref_1", "role": "textbox", "name": "Name", "tag": "input", "x": 5, "y": 5,
          "box": {"x": 0, "y": 0, "width": 10, "height": 10}, "visible": True, "enabled": True,
          "renderSerial": 1, "inViewport": True}  # fmt: skip


class LeavingPage:
    """Answers the first observation; after the input, the page is gone (no observation)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def request(self, ws: Any, op: str, args: dict[str, Any], **bounds: Any) -> dict[str, Any]:
        if op == "observed":  # the page observed, then the request carried out, in one
            observed = await self.request(ws, "content", {"fn": "observe"})
            then = args["then"]
            return {"observed": observed, "answer": await self.request(ws, then["op"], then["args"])}
        fn = args.get("fn", op)
        self.sent.append(fn)
        if fn in ("observe", "settle"):
            if len(self.sent) > 1:
                return {"value": None}
            return {"value": {"url": "http://a.test/", "title": "A", "renderSerial": 1,
                              "mutations": 0, "target": TARGET}}  # fmt: skip
        return {"value": {"ref": "ref_1", "kind": "input", "value": "Ada", "files": [{"name": "a.txt"}]}}


async def test_form_input_and_file_upload_report_the_delivered_input_without_a_receipt(
    autojump_clock,
) -> None:
    form_input = handler("form_input", LeavingPage())
    result = await form_input(tool_call("form_input", ref="ref_1", value="Ada"))
    assert result.kind == "ok" and result.content[0].text == 'Set ref_1 = "Ada".'  # type: ignore[union-attr]
    upload = handler("file_upload", LeavingPage())
    result = await upload(tool_call("file_upload", ref="ref_1", files=[{"data": "YQ==", "name": "a.txt"}]))
    assert result.kind == "ok", result
    assert result.content[0].text.startswith("Uploaded 1 file(s) to file input ref_1: a.txt")  # type: ignore[union-attr]
