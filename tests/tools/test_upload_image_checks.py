"""upload_image's drop point: values that are not finite, or lie outside the screenshot or the
visible page, are refused as the caller's to fix; nothing is dropped."""

from __future__ import annotations

from typing import Any

import pytest

from ghostlight_trio.tools.shared.channel import PageChannel
from ghostlight_trio.tools.shared.guard import guarded
from ghostlight_trio.tools.shared.image_store import ImageStore
from ghostlight_trio.tools.shared.screenshots import ContextBook, full_view
from ghostlight_trio.tools.upload_image import UploadImage

from .fakes import ScriptedBrowser, tool_call

PAGE = {"url": "http://a.test/", "title": "A", "renderSerial": 1, "mutations": 0, "target": None,
        "viewport": {"width": 800, "height": 600}}  # fmt: skip


def page(op: str, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("fn") == "drop_files":
        return {"value": {"handled": True}}
    return {"value": PAGE}


async def upload(coordinate: Any, contexts: ContextBook) -> tuple[Any, ScriptedBrowser]:
    images = ImageStore()
    image_id = images.put("ws", b"\xff\xd8jpeg", "image/jpeg")
    browser = ScriptedBrowser(page)
    handler = guarded(UploadImage(PageChannel(browser), images, contexts))
    result = await handler(tool_call("upload_image", imageId=image_id, coordinate=coordinate))
    return result, browser


def shot_of_the_page() -> ContextBook:
    contexts = ContextBook()
    contexts.put(7, full_view(800, 600, (800, 600)))
    return contexts


@pytest.mark.parametrize("coordinate", [[float("inf"), 5], [5, float("nan")], [-float("inf"), 0]])
async def test_a_point_that_is_not_two_finite_numbers_is_refused_before_anything_is_sent(
    coordinate: list[float],
) -> None:
    result, browser = await upload(coordinate, ContextBook())
    assert result.kind == "tool_error"
    assert result.content[0].text == (  # type: ignore[union-attr]
        "coordinate must be [x, y]: two finite numbers within the screenshot, in its pixels;"
        " nothing was uploaded."
    )
    assert browser.seen == []


@pytest.mark.parametrize("coordinate", [[1e308, 5], [-1, 5], [800, 10], [10, 1e308]])
async def test_a_point_outside_the_tabs_screenshot_is_refused_before_anything_is_sent(
    coordinate: list[float],
) -> None:
    result, browser = await upload(coordinate, shot_of_the_page())
    assert result.kind == "tool_error"
    assert "is outside the tab's latest screenshot (800x600 pixels)" in result.content[0].text  # type: ignore[union-attr]
    assert browser.seen == []


async def test_without_a_screenshot_a_point_off_the_page_is_refused_and_nothing_dropped() -> None:
    result, browser = await upload([1e308, 5], ContextBook())
    assert result.kind == "tool_error"
    assert "is outside the visible page (viewport 800x600 CSS px" in result.content[0].text  # type: ignore[union-attr]
    assert browser.seen == ["content observe"]


async def test_a_point_inside_the_screenshot_is_dropped(autojump_clock: Any) -> None:
    result, browser = await upload([100, 100], shot_of_the_page())
    assert result.kind == "ok", result
    assert "content drop_files" in browser.seen


def test_sizes_read_as_a_person_would_say_them() -> None:
    from ghostlight_trio.tools.shared.placement import byte_size

    assert [byte_size(n) for n in (0, 1, 10, 1023, 1024, 1536, 3_000_000)] == [
        "0 bytes", "1 byte", "10 bytes", "1023 bytes", "1 KB", "2 KB", "2.9 MB"
    ]


async def test_a_name_that_says_another_type_is_given_the_images_own(autojump_clock: Any) -> None:
    """A screenshot is a JPEG: uploaded as ``shot.png`` a site would read it as a PNG."""
    sent: list[str] = []

    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("fn") == "set_files":
            sent.extend(f["name"] for f in args["args"]["files"])
            return {"value": {"files": [{"name": sent[-1]}]}}
        return {"value": PAGE}

    images = ImageStore()
    image_id = images.put("ws", b"\xff\xd8jpeg", "image/jpeg")
    handler = {"upload_image": guarded(UploadImage(PageChannel(ScriptedBrowser(answer)), images, ContextBook()))}
    for asked, named in (("shot.png", "shot.jpg"), ("receipt", "receipt.jpg"), ("a.JPEG", "a.JPEG")):
        result = await handler["upload_image"](
            tool_call("upload_image", imageId=image_id, ref="ref_2", filename=asked)
        )
        assert result.kind == "ok", result
        assert sent[-1] == named
        said = "\n".join(block.text for block in result.content)  # type: ignore[union-attr]
        assert (f"The file was named {named!r}, not {asked!r}: the image is image/jpeg" in said) == (
            named != asked
        )
