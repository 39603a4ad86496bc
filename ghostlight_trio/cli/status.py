"""``ghostlight status``: is the service up, for which instance, and where its files are."""

from __future__ import annotations

from ..transport.endpoints import Endpoints
from ..transport.handshake import open_bridge


async def status(endpoints: Endpoints) -> int:
    print(f"instance: {endpoints.instance}")
    print(f"sockets:  {endpoints.edge_socket}  {endpoints.browser_socket}")
    print(f"data:     {endpoints.data_dir}")
    try:
        stream, hello = await open_bridge(endpoints, role="control")
    except FileNotFoundError:
        print("service:  down (never started for this instance)")
        return 1
    except OSError:
        print("service:  down")
        return 1
    except Exception as exc:
        print(f"service:  unreachable: {exc}")
        return 1
    await stream.aclose()
    print(f"service:  up (version {hello.service_version}, bridge {hello.bridge_major}.{hello.bridge_minor})")
    return 0
