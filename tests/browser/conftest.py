"""Fixtures for browser-shore seam tests: a live shore on a private instance."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio

import ghostlight_trio.engine  # noqa: F401  (loads before workspace: they import each other)
from ghostlight_trio.browser.shore import BrowserShore
from ghostlight_trio.transport.endpoints import Endpoints
from ghostlight_trio.workspace.registry import WorkspaceRegistry


@pytest.fixture
def registry() -> WorkspaceRegistry:
    return WorkspaceRegistry()


@pytest.fixture
async def shore(
    endpoints: Endpoints, registry: WorkspaceRegistry, nursery: trio.Nursery
) -> AsyncIterator[BrowserShore]:
    browser = BrowserShore(endpoints, registry, first_call_wait=0.3, hello_timeout=0.3)
    await nursery.start(browser.serve)
    yield browser
