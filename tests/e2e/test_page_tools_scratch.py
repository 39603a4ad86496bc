import base64, struct
import pytest
from ghostlight_trio.browser.managed import ManagedBrowser
from .conftest import Service, text
pytestmark = pytest.mark.e2e

def dims(data):
    i = 2
    while i < len(data):
        marker = data[i+1]; length = struct.unpack(">H", data[i+2:i+4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack(">HH", data[i+5:i+9]); return w, h
        i += 2 + length

async def test_clip(service: Service, browser: ManagedBrowser, web: str) -> None:
    created = await service.call("tabs_create_mcp")
    ws, tab = created.workspace_id, created.structured["tabId"]
    await service.call("navigate", ws, url=f"{web}/", tabId=tab)
    sh = service.shore
    async def cdp(method, params):
        return (await sh.request(ws, "cdp", {"tabId": tab, "method": method, "params": params}, timeout=20))["result"]
    r = await cdp("Runtime.evaluate", {"expression": "document.body.style.height='5000px'; scrollTo(0, 1000); ({w:innerWidth,h:innerHeight,d:devicePixelRatio,y:scrollY, v: document.visibilityState})", "returnByValue": True})
    print(r)
    for clip in [None, {"x":0,"y":0,"width":400,"height":300,"scale":0.5}, {"x":0,"y":1000,"width":400,"height":300,"scale":1}]:
        p = {"format":"jpeg","quality":55}
        if clip: p["clip"] = clip
        s = await cdp("Page.captureScreenshot", p)
        print(clip, dims(base64.b64decode(s["data"])))
    info = await sh.request(ws, "tab_info", {"tabId": tab}, timeout=10)
    print(info)
