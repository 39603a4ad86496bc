"""The demo's page, served on loopback: something for the agent to read and to act on."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEMO_PAGE = """<!doctype html>
<html><head><title>Ghostlight demo page</title></head>
<body>
<h1>Hello from Ghostlight</h1>
<p>This page is served on loopback by <code>ghostlight demo</code>. An agent opened a tab in its
own workspace, navigated here, and is now reading this text.</p>
<form onsubmit="return false"><label>Name <input name="name" value=""></label>
<button type="button" onclick="document.getElementById('greeting').textContent =
'Hello, ' + (this.form.name.value || 'stranger') + '!'">Greet</button></form>
<p id="greeting"></p>
</body></html>
"""


class _DemoPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        body = DEMO_PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


POLL = 0.05
"""How often the serving thread looks for ``close``: the stdlib's 0.5 s would be the demo's
longest wait at its end."""


class DemoPageServer:
    """The page on an ephemeral loopback port, served from a thread until ``close``."""

    def __init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _DemoPage)
        threading.Thread(
            target=self._server.serve_forever, args=(POLL,), daemon=True
        ).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
