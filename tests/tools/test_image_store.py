"""Kept screenshots: per workspace, the last few, within one byte bound, never across clients."""

from __future__ import annotations

import re

from ghostlight_trio.tools.shared.image_store import ImageStore


def test_ids_are_unguessable_and_found_only_in_their_own_workspace() -> None:
    store = ImageStore()
    image_id = store.put("ws-a", b"jpeg", "image/jpeg")
    assert re.fullmatch(r"img_[0-9a-f]{32}", image_id)
    assert store.get("ws-a", image_id).data == b"jpeg"
    assert store.get("ws-b", image_id) is None


def test_each_workspace_keeps_its_last_few_and_all_stay_within_the_byte_bound() -> None:
    store = ImageStore(per_workspace=2, max_bytes=10)
    first, second, third = (store.put("ws-a", b"abc", "image/jpeg") for _ in range(3))
    assert store.get("ws-a", first) is None and store.get("ws-a", third) is not None
    other = store.put("ws-b", b"abcdef", "image/jpeg")  # 3 + 3 + 6 bytes: the oldest goes
    assert store.get("ws-a", second) is None
    assert store.get("ws-a", third) is not None and store.get("ws-b", other) is not None
