"""Size bounds on parsed JSON values, told without recursion."""

from __future__ import annotations

from ghostlight_trio.untrusted.jsonshape import exceeds


def nested(levels: int) -> list:
    root: list = []
    inner = root
    for _ in range(levels - 1):
        inner.append([])
        inner = inner[0]
    return root


def test_depth_counts_containers_and_follows_values_far_past_the_stack() -> None:
    assert not exceeds(nested(256), max_depth=256)
    assert exceeds(nested(257), max_depth=256)
    assert exceeds(nested(50_000), max_depth=256)  # no RecursionError
    assert not exceeds({"a": ["x", {"b": 1}]}, max_depth=3)
    assert exceeds({"a": ["x", {"b": []}]}, max_depth=3)


def test_values_count_every_string_number_list_and_object() -> None:
    assert not exceeds({"a": [1, 2]}, max_values=4)  # the object, the list and two numbers
    assert exceeds({"a": [1, 2]}, max_values=3)
    assert exceeds(["x"] * 1_000_000, max_values=10_000)
    assert not exceeds("just text", max_depth=1, max_values=1)
