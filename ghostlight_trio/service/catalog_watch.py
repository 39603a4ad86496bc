"""Tell every live stream when the catalog generation moves."""

from __future__ import annotations

import trio

from ..catalog.registry import Catalog
from ..transport.bridge import CatalogChanged
from .streams import LiveStreams


async def broadcast_catalog_changes(
    catalog: Catalog, streams: LiveStreams, *, poll: float = 1.0
) -> None:
    seen = catalog.generation
    while True:
        await trio.sleep(poll)
        if catalog.generation != seen:
            seen = catalog.generation
            streams.broadcast(CatalogChanged(generation=seen))
