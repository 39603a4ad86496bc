"""GIF recordings: frames of different sizes make one well-formed GIF; recordings stop and go by
themselves on their bounds, checked whenever they are used."""

from __future__ import annotations

import io

from PIL import Image

from ghostlight_trio.tools.gif_recorder import IDLE_S, KEPT_S, TOTAL_S, Frame, Recorder, encode_gif


def jpeg(width: int, height: int, color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, format="JPEG")
    return out.getvalue()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_frames_of_different_sizes_make_one_gif_with_nothing_left_over() -> None:
    clock = Clock()
    recorder = Recorder(channel=None, clock=clock)  # type: ignore[arg-type]
    recording = recorder.start("ws", 7, {"showWatermark": False, "showProgressBar": False})
    recording.frames = [
        Frame(jpeg(1600, 1000, (0, 0, 0)), 100.0, "start"),  # scaled down to 800 x 500
        Frame(jpeg(800, 400, (250, 250, 250)), 101.0, "computer left_click", point=(400, 200)),
    ]
    gif = Image.open(io.BytesIO(encode_gif(recording)))
    assert gif.n_frames == 2 and gif.size == (800, 500)
    gif.seek(1)
    second = gif.convert("RGB")
    assert second.getpixel((400, 480)) == (255, 255, 255)  # below the smaller frame: canvas, not frame 1
    assert second.getpixel((400, 212))[0] > 200 and second.getpixel((400, 212))[1] < 80  # click ring


def test_recordings_stop_when_idle_or_too_long_and_are_forgotten_later() -> None:
    clock = Clock()
    recorder = Recorder(channel=None, clock=clock)  # type: ignore[arg-type]
    idle = recorder.start("ws", 1, {})
    idle.frames = [Frame(b"x", clock.now, "start")]
    clock.now += IDLE_S + 1
    assert recorder.get("ws", 1).state == "stopped" and idle.stop_reason == "idle"
    busy = recorder.start("ws", 2, {})
    for _ in range(int(TOTAL_S // 10) + 1):
        busy.frames.append(Frame(b"x", clock.now, "step"))
        clock.now += 10
    assert recorder.get("ws", 2).stop_reason == "time_limit"
    clock.now += KEPT_S
    assert recorder.get("ws", 1) is None and recorder.get("ws", 2) is None
    assert recorder.get("other", 1) is None
