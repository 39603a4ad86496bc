"""Loads that end on the browser's own error page: navigate names what failed (a redirect loop,
an HTTP error sent without a page, a refused connection) and a next step that fits it, read
from real headless Chromium through the real extension."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from ghostlight_trio.tools.navigate import NOW_SHOWS

from .conftest import QuietHandler, Service, loopback_server, open_page, text

pytestmark = pytest.mark.e2e


class _Failing(QuietHandler):
    """A server that fails in the ways Chrome answers with its own error page, or not."""

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path == "/loop":  # redirects to itself: the browser gives up
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/empty-500":  # an error without a page: Chrome shows its own
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/page-500":  # an error with the server's own page
            self.send_html(b"<title>Oops</title><h1>Something broke</h1>", status=500)
        else:
            self.send_html(b"<title>Fine</title><p>fine</p>")


@pytest.fixture
def failing() -> Iterator[str]:
    with loopback_server(_Failing) as port:
        yield f"http://127.0.0.1:{port}"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_redirect_loop_is_named_and_not_retried(
    tools_service: Service, tools_browser: Any, failing: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{failing}/")
    loop = await service.call("navigate", ws, tabId=tab, url=f"{failing}/loop")
    assert loop.kind == "tool_error", text(loop)
    assert text(loop).startswith(
        f"Navigated to {failing}/loop, but the page did not load: the server redirected too many"
        " times (a redirect loop), so the tab shows the browser's error page"
        " (ERR_TOO_MANY_REDIRECTS). Next step: do not navigate to this URL again"
    ), text(loop)
    assert loop.structured["netError"] == "ERR_TOO_MANY_REDIRECTS"
    assert "refused the connection" not in text(loop)

    # Reading the error page does not send the agent back into the loop either.
    unreadable = await service.call("get_page_text", ws, tabId=tab)
    assert unreadable.kind == "tool_error", text(unreadable)
    assert "The tab shows the browser's error page" in text(unreadable)
    assert "navigate to the page again" not in text(unreadable)
    # It says what failed, as navigate did: a tab an agent finds this way learns why too.
    assert text(unreadable).startswith(
        "[hop: page] The tab shows the browser's error page (ERR_TOO_MANY_REDIRECTS): the server"
        " redirected too many times (a redirect loop), so there is no page content to read."
    ), text(unreadable)
    assert "Next step: do not navigate to this URL again" in text(unreadable), text(unreadable)
    assert unreadable.structured["netError"] == "ERR_TOO_MANY_REDIRECTS"


async def test_http_errors_and_a_refused_connection_are_told_apart(
    tools_service: Service, tools_browser: Any, failing: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{failing}/")

    empty = await service.call("navigate", ws, tabId=tab, url=f"{failing}/empty-500")
    assert empty.kind == "tool_error", text(empty)
    assert text(empty).startswith(
        f"Navigated to {failing}/empty-500, but the page did not load: the server answered HTTP"
        " 500 (Internal Server Error) with no page, so the tab shows the browser's error page"
        " (ERR_HTTP_RESPONSE_CODE_FAILURE). Next step: the server failed on its side"
    ), text(empty)
    assert empty.structured["httpStatus"] == 500
    assert empty.structured["netError"] == "ERR_HTTP_RESPONSE_CODE_FAILURE"

    # A 500 that comes with the server's own page loads that page, as any page.
    paged = await service.call("navigate", ws, tabId=tab, url=f"{failing}/page-500")
    assert paged.kind == "ok", text(paged)
    said = text(paged).splitlines()
    assert said[0] == (
        f"Navigated to {failing}/page-500, but the server answered HTTP 500 (Internal Server"
        f" Error): the page is its error page. {NOW_SHOWS}"
    )
    assert said[2].startswith(f'{{"url": "{failing}/page-500", "title": '), said
    assert paged.structured["httpStatus"] == 500 and "netError" not in paged.structured

    closed = f"http://127.0.0.1:{_closed_port()}/"
    refused = await service.call("navigate", ws, tabId=tab, url=closed)
    assert refused.kind == "tool_error", text(refused)
    assert text(refused).startswith(
        f"Navigated to {closed}, but the page did not load: the connection was refused (no"
        " server is listening at that address and port), so the tab shows the browser's error"
        " page (ERR_CONNECTION_REFUSED). Next step: check the host and port in the URL"
    ), text(refused)
    assert refused.structured["netError"] == "ERR_CONNECTION_REFUSED"
    assert "httpStatus" not in refused.structured
    for reader, arguments in (("read_page", {}), ("find", {"query": "anything"})):
        read = await service.call(reader, ws, tabId=tab, **arguments)
        assert read.kind == "tool_error", text(read)
        assert "error page (ERR_CONNECTION_REFUSED): the connection was refused" in text(read)
        assert read.structured["netError"] == "ERR_CONNECTION_REFUSED"
