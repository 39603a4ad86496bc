"""The page script ``scroll`` runs (read-only unless asked to scroll), and the two ways it is
used: to see whether a wheel moved anything, and to scroll directly when it did not."""

from __future__ import annotations

import trio

from ...engine.contracts import ToolCall
from ..shared.channel import PageChannel

SCROLL_SETTLE = 0.6
"""How long a wheel scroll may take to show movement before the direct fallback."""
MOVED_PX = 5

# Read-only probe: the window's scroll offset and that of the nearest scrollable ancestor of
# the element at a viewport point (the thing a wheel over that point would move).
SCROLL_PROBE = """(() => {
  const pick = (x, y) => {
    let el = document.elementFromPoint(x, y);
    while (el && el !== document.body && el !== document.documentElement) {
      const s = getComputedStyle(el);
      const can = /(auto|scroll|overlay)/.test(s.overflowY + s.overflowX);
      if (can && (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth)) return el;
      el = el.parentElement;
    }
    return null;
  };
  const el = pick(%(x)s, %(y)s);
  const out = {wx: scrollX, wy: scrollY, ex: el ? el.scrollLeft : 0, ey: el ? el.scrollTop : 0};
  if (%(scroll)s) {
    (el || window).scrollBy({left: %(dx)s, top: %(dy)s, behavior: "instant"});
  }
  return out;
})()"""



async def scroll_probe(
    channel: PageChannel, call: ToolCall, tab: int, x: float, y: float, *, dx: float = 0, dy: float = 0
) -> dict[str, float]:
    scroll = "true" if dx or dy else "false"
    expression = SCROLL_PROBE % {"x": x, "y": y, "dx": dx, "dy": dy, "scroll": scroll}
    value = await channel.evaluate(call, tab, expression)
    return value if isinstance(value, dict) else {}


async def scroll_moved(
    channel: PageChannel,
    call: ToolCall,
    tab: int,
    x: float,
    y: float,
    before: dict[str, float],
    settle: float = SCROLL_SETTLE,
) -> bool:
    deadline = trio.current_time() + settle
    while True:
        now = await scroll_probe(channel, call, tab, x, y)
        shift = max(
            (
                abs(float(now.get(k, 0)) - float(before.get(k, 0)))
                for k in ("wx", "wy", "ex", "ey")
            ),
            default=0.0,
        )
        if shift > MOVED_PX or trio.current_time() >= deadline:
            return shift > MOVED_PX
        await trio.sleep(0.05)
