"""Encoding a recording as an animated GIF, one frame at a time and only what changed, with
the click marks, drag paths, labels and progress bar its options ask for."""

from __future__ import annotations

import io
import math
import struct
from collections.abc import Callable, Mapping
from typing import Any

from .recorder import Frame, Recording

GIF_WIDTH = 800
"""Frames are scaled down to at most this width: a GIF of full screenshots would be huge."""
FRAME_MS = (400, 2_000)
"""How long each frame shows in the GIF: the real time to the next frame, within these."""


class GifTooLarge(Exception):
    """The GIF grew past the size it must be delivered within: encoding stopped there, and
    nothing of it is kept."""

    def __init__(self, written: int, frames_done: int, frames: int, limit: int, width: int) -> None:
        super().__init__(f"the GIF passed {limit} bytes after {frames_done} of {frames} frames")
        self.written = written
        self.frames_done = frames_done
        self.frames = frames
        self.limit = limit
        self.width = width
        """The GIF's width in pixels."""

    @property
    def estimate(self) -> int:
        """The whole GIF's size, at the rate its first frames took."""
        return max(self.written, round(self.written * self.frames / max(1, self.frames_done)))


def encode_gif(
    recording: Recording,
    *,
    max_width: int = GIF_WIDTH,
    limit: int | None = None,
    check: Callable[[], None] | None = None,
) -> bytes:
    """The recording as an animated GIF (blocking: run it in a worker thread).

    Frames can differ in size (the viewport shrinks when Chrome shows its debugging bar, or
    the window is resized): each is scaled to at most ``max_width`` and drawn at the top left
    of one canvas as large as the largest, since a GIF has one size for all its frames.

    One frame at a time is decoded, drawn and written, and only the part that changed since
    the frame before (a frame that changed nothing lengthens the one before): what is held at
    once is two canvases and the GIF so far, however many frames there are. The GIF growing
    past ``limit`` bytes raises ``GifTooLarge`` there; ``check`` is called before each frame
    (``trio.from_thread.check_cancelled``: a cancelled export stops at the next frame)."""
    from PIL import ImageChops

    frames = list(recording.frames)
    sizes = [_scaled(frame.jpeg, max_width) for frame in frames]
    canvas_size = (max(size[0] for size in sizes), max(size[1] for size in sizes))
    writer = _GifWriter(canvas_size, limit, len(frames))
    shown: Any = None
    """The canvas as the GIF shows it after the frames written so far."""
    for index, frame in enumerate(frames):
        if check is not None:
            check()
        gap = (frames[index + 1].at - frame.at) * 1000 if index + 1 < len(frames) else math.inf
        ms = min(FRAME_MS[1], max(FRAME_MS[0], gap))
        canvas = _drawn(recording.options, frame, sizes[index], canvas_size, index, len(frames))
        if shown is None:
            writer.add(*_quantized(canvas, None), (0, 0), ms)
        else:
            change = ImageChops.difference(shown, canvas)
            box = change.getbbox()
            if box is None:
                writer.lengthen(ms)
            else:
                writer.add(*_quantized(canvas.crop(box), change.crop(box)), box[:2], ms)
            del change
        shown = canvas
        del canvas
    return writer.finish()


def _quantized(part: Any, change: Any) -> tuple[Any, int | None]:
    """``part`` of a canvas in at most 128 colours, and the index of its transparent colour:
    the pixels ``change`` (the difference from what the GIF shows there) says did not change
    are made transparent, which the frame before then shows through and LZW packs tightly."""
    from PIL import Image, ImageChops

    if change is None:
        return part.convert("P", palette=Image.Palette.ADAPTIVE, colors=128), None
    quantized = part.convert("P", palette=Image.Palette.ADAPTIVE, colors=127)
    palette = quantized.getpalette() or []
    clear = len(palette) // 3  # one colour past the ones the pixels use
    quantized.putpalette([*palette, 0, 0, 0])
    red, green, blue = change.split()
    most = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    del red, green, blue
    quantized.paste(clear, mask=most.point([255, *(0,) * 255], "1"))
    return quantized, clear


def _scaled(jpeg: bytes, max_width: int) -> tuple[int, int, float]:
    """A frame's size in the GIF and its scale, read from its header alone (not decoded)."""
    from PIL import Image

    with Image.open(io.BytesIO(jpeg)) as image:
        width, height = image.size
    scale = min(1.0, max_width / width)
    return max(1, round(width * scale)), max(1, round(height * scale)), scale


def _drawn(
    options: Mapping[str, bool],
    frame: Frame,
    size: tuple[int, int, float],
    canvas_size: tuple[int, int],
    index: int,
    count: int,
) -> Any:
    """One frame decoded, scaled, and drawn with its marks on a canvas of the GIF's size."""
    from PIL import Image, ImageDraw

    width, height, scale = size
    image = Image.new("RGB", canvas_size, (255, 255, 255))
    with Image.open(io.BytesIO(frame.jpeg)) as source:
        source.draft("RGB", (width, height))  # a JPEG decodes at 1/2, 1/4, 1/8 when that fits
        shot = source if source.mode == "RGB" else source.convert("RGB")
        if shot.size != (width, height):
            shot = shot.resize((width, height))
        image.paste(shot, (0, 0))
        del shot
    full_width, full_height = canvas_size
    draw = ImageDraw.Draw(image)
    if options["showDragPaths"] and frame.path is not None:
        (x0, y0), (x1, y1) = frame.path
        draw.line([(x0 * scale, y0 * scale), (x1 * scale, y1 * scale)], fill=(255, 140, 0), width=3)
    if options["showClickIndicators"] and frame.point is not None:
        x, y = frame.point[0] * scale, frame.point[1] * scale
        draw.ellipse([x - 12, y - 12, x + 12, y + 12], outline=(230, 30, 30), width=3)
    if options["showActionLabels"] and frame.label:
        draw.rectangle([0, 0, 8 + 7 * len(frame.label), 20], fill=(20, 20, 28))
        draw.text((4, 4), frame.label, fill=(255, 255, 255))
    if options["showProgressBar"] and count > 1:
        done = full_width * (index + 1) / count
        draw.rectangle([0, full_height - 4, done, full_height], fill=(60, 130, 240))
    if options["showWatermark"]:
        draw.text((full_width - 70, full_height - 18), "Ghostlight", fill=(160, 160, 160))
    return image


class _GifWriter:
    """An animated GIF written one frame at a time. A frame is held back until the next one
    is known, since a next frame that changed nothing only lengthens it."""

    def __init__(self, size: tuple[int, int], limit: int | None, frames: int) -> None:
        self._out = io.BytesIO()
        self._limit = limit
        self._frames = frames
        self._done = 0
        self._held: bytes = b""
        self._held_ms = 0.0
        self._held_clear: int | None = None
        width, height = size
        self._width = width
        # No global colour table (each frame has its own), colour resolution 8 bits; then the
        # NETSCAPE2.0 extension: loop forever.
        self._out.write(b"GIF89a" + struct.pack("<HHBBB", width, height, 0x70, 0, 0))
        self._out.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")

    def add(self, image: Any, clear: int | None, offset: tuple[int, int], ms: float) -> None:
        """A frame: a palette image drawn at ``offset`` on what the GIF shows, for ``ms``;
        its pixels of index ``clear`` leave what was there."""
        self._write_held()
        self._held, self._held_ms, self._held_clear = _image_block(image, offset), ms, clear
        self._done += 1

    def lengthen(self, ms: float) -> None:
        """A frame that changed nothing: the one before shows that much longer."""
        self._held_ms += ms
        self._done += 1

    def finish(self) -> bytes:
        self._write_held()
        self._out.write(b"\x3b")
        return self._out.getvalue()

    def _write_held(self) -> None:
        if not self._held:
            return
        delay = min(0xFFFF, round(self._held_ms / 10))  # in hundredths of a second
        # Graphic control extension: disposal 1 (leave the frame for the next to draw on), and
        # the transparent index if there is one.
        clear = self._held_clear
        flags = 0x04 if clear is None else 0x05
        self._out.write(b"\x21\xf9\x04" + struct.pack("<BHBB", flags, delay, clear or 0, 0))
        self._out.write(self._held)
        self._held = b""
        if self._limit is not None and self._out.tell() > self._limit:
            raise GifTooLarge(self._out.tell(), self._done, self._frames, self._limit, self._width)


def _image_block(image: Any, offset: tuple[int, int]) -> bytes:
    """A palette image as one GIF image block at ``offset``: its descriptor, its colour table
    (local) and its LZW data, taken from the single-frame GIF Pillow writes of it."""
    out = io.BytesIO()
    image.save(out, format="GIF", optimize=False)  # indexes as they are: the clear one stays
    data = out.getbuffer()
    table = b""
    table_bits = 0
    at = 13
    if data[10] & 0x80:  # Pillow's global colour table: the frame's own
        table_bits = data[10] & 0x07
        table = bytes(data[at : at + (3 << (table_bits + 1))])
        at += len(table)
    while data[at] == 0x21:  # extensions (a comment, a control block): not needed here
        at += 2
        while data[at]:
            at += data[at] + 1
        at += 1
    if data[at] != 0x2C:
        raise ValueError("no image block in the GIF Pillow wrote")
    _, _, width, height, flags = struct.unpack_from("<HHHHB", data, at + 1)
    at += 10
    if flags & 0x80:
        table_bits = flags & 0x07
        table = bytes(data[at : at + (3 << (table_bits + 1))])
        at += len(table)
    start = at
    at += 1  # the LZW minimum code size, then sub-blocks up to an empty one
    while data[at]:
        at += data[at] + 1
    at += 1
    pixels = bytes(data[start:at])
    del data
    x, y = offset
    local = 0x80 | (flags & 0x40) | table_bits  # a local colour table; interlaced as Pillow wrote
    return b"\x2c" + struct.pack("<HHHHB", x, y, width, height, local) + table + pixels
