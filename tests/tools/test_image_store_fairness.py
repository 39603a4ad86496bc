"""The screenshot store's byte bound is shared fairly: the workspace holding the most loses its
oldest image first, so an agent pushes out its own screenshots, never a quieter one's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ghostlight_trio.tools.shared.image_store import ImageStore


def test_a_flooding_workspace_pushes_out_its_own_oldest_not_another_s() -> None:
    store = ImageStore(per_workspace=8, max_bytes=10)
    quiet = [store.put("ws-quiet", b"qq", "image/jpeg") for _ in range(2)]  # 4 bytes, oldest
    loud = [store.put("ws-loud", b"lll", "image/jpeg") for _ in range(2)]  # 6 bytes: 10 in all
    third = store.put("ws-loud", b"lll", "image/jpeg")  # 13 > 10: loud holds 9, the most
    assert store.get("ws-loud", loud[0]) is None
    assert store.get("ws-loud", loud[1]) is not None and store.get("ws-loud", third) is not None
    assert all(store.get("ws-quiet", image) is not None for image in quiet)
    for _ in range(5):
        store.put("ws-loud", b"lll", "image/jpeg")
    assert all(store.get("ws-quiet", image) is not None for image in quiet)
    assert (store.bytes_of("ws-quiet"), store.bytes_of("ws-loud"), store.bytes_held) == (4, 6, 10)


def test_the_workspace_holding_the_most_loses_even_when_another_is_putting() -> None:
    store = ImageStore(per_workspace=8, max_bytes=10)
    big = store.put("ws-big", b"bbbbbb", "image/jpeg")
    small = store.put("ws-small", b"ss", "image/jpeg")
    newest = store.put("ws-small", b"sss", "image/jpeg")  # 11: big (6) loses, small keeps both
    assert store.get("ws-big", big) is None
    assert store.get("ws-small", small) is not None and store.get("ws-small", newest) is not None


def test_the_image_just_kept_never_goes() -> None:
    store = ImageStore(per_workspace=8, max_bytes=10)
    older = [store.put("ws-a", b"aa", "image/jpeg") for _ in range(2)]
    huge = store.put("ws-b", b"b" * 7, "image/jpeg")  # 11, its first: ws-a loses its oldest
    assert store.get("ws-b", huge) is not None
    assert store.get("ws-a", older[0]) is None and store.get("ws-a", older[1]) is not None
    alone = store.put("ws-c", b"c" * 50, "image/jpeg")  # bigger than the bound: kept alone
    assert store.get("ws-c", alone) is not None and store.bytes_held == 50


def test_forget_workspace_drops_its_images_and_their_bytes() -> None:
    store = ImageStore(per_workspace=8, max_bytes=10)
    gone = [store.put("ws-a", b"aaa", "image/jpeg") for _ in range(2)]
    kept = store.put("ws-b", b"bbb", "image/jpeg")
    store.forget_workspace("ws-a")
    store.forget_workspace("ws-never")
    assert all(store.get("ws-a", image) is None for image in gone)
    assert store.bytes_of("ws-a") == 0 and store.bytes_held == 3
    # The bytes it held are free again: ws-b fills them without losing anything.
    more = [store.put("ws-b", b"bbb", "image/jpeg") for _ in range(2)]
    assert all(store.get("ws-b", image) is not None for image in [kept, *more])


puts = st.lists(
    st.tuples(st.sampled_from(["ws-a", "ws-b", "ws-c", None]), st.integers(1, 6)), max_size=60
)


@settings(max_examples=200)
@given(puts)
def test_bounds_hold_and_a_put_only_costs_the_largest_holder(
    steps: list[tuple[str | None, int]],
) -> None:
    bound = 12
    store = ImageStore(per_workspace=3, max_bytes=bound)
    kept: dict[str | None, list[str]] = {}
    for workspace, size in steps:
        before = {ws: store.bytes_of(ws) for ws in ("ws-a", "ws-b", "ws-c", None)}
        image = store.put(workspace, b"x" * size, "image/jpeg")
        assert store.get(workspace, image) is not None
        kept.setdefault(workspace, []).append(image)
        alive = {ws: [i for i in ids if store.get(ws, i) is not None] for ws, ids in kept.items()}
        assert store.bytes_held == sum(store.bytes_of(ws) for ws in alive)
        assert store.bytes_held <= bound or sum(map(len, alive.values())) == 1
        assert all(len(ids) <= 3 for ids in alive.values())
        for ws, ids in alive.items():
            assert ids == kept[ws][len(kept[ws]) - len(ids) :]  # a workspace loses its oldest first
        # Another workspace loses only while it holds at least as much as each of the rest
        # keeps, the putting one included unless the new image is all that one holds.
        others = [ws for ws in before if ws != workspace]
        for ws in [ws for ws in others if store.bytes_of(ws) < before[ws]]:
            rest = [other for other in others if other != ws]
            if len(alive[workspace]) > 1:
                rest.append(workspace)
            assert all(before[ws] >= store.bytes_of(other) for other in rest)


def test_as_a_retire_listener_a_released_workspace_takes_its_images_along() -> None:
    """How the service wires it: ``workspaces.retire_listeners.append(images.forget_workspace)``."""
    from ghostlight_trio.workspace import WorkspaceRegistry

    registry = WorkspaceRegistry(clock=lambda: 0.0)
    store = ImageStore()
    registry.retire_listeners.append(store.forget_workspace)
    gone, _ = registry.open(None, "a")
    stays, _ = registry.open(None, "b")
    image = store.put(gone, b"jpeg", "image/jpeg")
    other = store.put(stays, b"jpeg", "image/jpeg")
    registry.release(gone)
    assert store.get(gone, image) is None and store.bytes_of(gone) == 0
    assert store.get(stays, other) is not None and store.bytes_held == 4
