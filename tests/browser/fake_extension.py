"""A scripted extension peer that speaks the browser wire over a real Unix socket."""

from __future__ import annotations

from typing import Any

import trio

from ghostlight_trio.browser import wire
from ghostlight_trio.transport.browser_link import SERVICE_FRAME_CEILING
from ghostlight_trio.transport.stream import BridgeClosed, MessageStream


class FakeExtension:
    """Plays relay + extension: sends the two hellos, then answers what the test tells it to."""

    def __init__(self, messages: MessageStream) -> None:
        self.messages = messages

    @classmethod
    async def connect(cls, socket_path: Any) -> FakeExtension:
        stream = await trio.open_unix_socket(str(socket_path))
        return cls(MessageStream(stream, ceiling=SERVICE_FRAME_CEILING))

    @classmethod
    async def attach(
        cls,
        socket_path: Any,
        browser_id: str = "browser-a",
        generation: str = "gen-1",
        features: tuple[str, ...] = ("chunkingV1", "tabGroupsV1"),
        extension_version: str = "0.1.0",
        headless: bool | None = None,
    ) -> tuple[FakeExtension, dict[str, Any]]:
        peer = await cls.connect(socket_path)
        await peer.send({"type": "relay_hello", "wire": 1, "relayPid": 1})
        await peer.send(
            {
                "type": "hello",
                "wire": 1,
                "browserId": browser_id,
                "generation": generation,
                "extensionVersion": extension_version,
                "features": list(features),
                **({} if headless is None else {"headless": headless}),
            }
        )
        welcome = await peer.receive()
        return peer, welcome

    async def send(self, frame: dict[str, Any]) -> None:
        await self.messages.send_body(wire.encode(frame))

    async def receive(self) -> dict[str, Any]:
        return wire.decode(await self.messages.receive_body())

    async def closed(self) -> bool:
        """True when the service closed the link (without sending anything more)."""
        try:
            await self.messages.receive_body()
        except BridgeClosed:
            return True
        return False

    async def reply(self, request: dict[str, Any], result: dict[str, Any]) -> None:
        await self.send({"type": "response", "id": request["id"], "result": result})

    async def aclose(self) -> None:
        await self.messages.aclose()


async def until(predicate: Any, *, within: float = 2.0, step: float = 0.01) -> None:
    """Poll ``predicate`` (state another task changes) until it holds, failing after ``within``."""
    with trio.fail_after(within):
        while True:
            if predicate():
                return
            await trio.sleep(step)
