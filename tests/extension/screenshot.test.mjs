// The screenshot operation: direct capture for a shown tab, a screencast-forced frame for a
// background tab, and never any activation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { createScreenshots } = await import(lib("screenshot.js"));

const TIMING = { directMs: 20, frameMs: 50, clippedMs: 20 };
const CLIP = { format: "jpeg", quality: 55, clip: { x: 0, y: 0, width: 800, height: 600, scale: 1 } };

// A fake browser: `hidden` tabs never answer captureScreenshot until a screencast runs
// (or, with `stuck`, never at all); a screencast emits one frame through onEvent.
function setup({ active = false, minimized = false, stuck = false, noFrames = false } = {}) {
  const sent = [];
  let casting = false;
  let shots = null;
  const chromeApi = {
    tabs: {
      get: async (tabId) => ({ id: tabId, active, windowId: 9 }),
      update: async () => assert.fail("a screenshot must not activate the tab"),
    },
    windows: {
      get: async () => ({ id: 9, state: minimized ? "minimized" : "normal" }),
      update: async () => assert.fail("a screenshot must not focus a window"),
    },
  };
  const cdp = async (tabId, method, params) => {
    sent.push(method);
    if (method === "Page.captureScreenshot") {
      if ((active && !minimized) || (casting && !stuck)) return { data: "CLIPPED" };
      return new Promise(() => {});
    }
    if (method === "Page.startScreencast") {
      casting = true;
      if (!noFrames) {
        setTimeout(() => shots.onEvent(tabId, "Page.screencastFrame", {
          data: "FRAME", sessionId: 7, metadata: { deviceWidth: 800, deviceHeight: 600, offsetTop: 0 },
        }), 1);
      }
      return {};
    }
    if (method === "Page.stopScreencast") casting = false;
    return {};
  };
  shots = createScreenshots({ chromeApi, cdp, timing: TIMING });
  return { shots, sent };
}

test("the active tab of a normal window is captured directly, without a screencast", async () => {
  const { shots, sent } = setup({ active: true });
  assert.deepEqual(await shots.screenshot({ tabId: 3, params: CLIP }), { data: "CLIPPED", via: "capture" });
  assert.deepEqual(sent, ["Page.captureScreenshot"]);
});

test("a background tab is captured while a screencast keeps it drawing, then the cast stops", async () => {
  const { shots, sent } = setup();
  const got = await shots.screenshot({ tabId: 3, params: CLIP, frame: { maxWidth: 800, maxHeight: 600 } });
  assert.deepEqual(got, { data: "CLIPPED", via: "screencast_capture" });
  assert.deepEqual(sent, [
    "Page.startScreencast",
    "Page.screencastFrameAck",
    "Page.captureScreenshot",
    "Page.stopScreencast",
  ]);
  assert.ok(!sent.includes("Page.bringToFront") && !sent.includes("Target.activateTarget"));
});

test("an active tab in a minimized window takes the screencast path too", async () => {
  const { shots } = setup({ active: true, minimized: true });
  assert.equal((await shots.screenshot({ tabId: 3, params: CLIP })).via, "screencast_capture");
});

test("when even the forced capture does not answer, the screencast frame is returned with its metadata", async () => {
  const { shots, sent } = setup({ stuck: true });
  const got = await shots.screenshot({ tabId: 3, params: CLIP });
  assert.equal(got.via, "screencast_frame");
  assert.equal(got.data, "FRAME");
  assert.deepEqual(got.metadata, { deviceWidth: 800, deviceHeight: 600, offsetTop: 0 });
  assert.equal(sent.at(-1), "Page.stopScreencast");
});

test("a tab that draws no frame at all fails clearly and the screencast is stopped", async () => {
  const { shots, sent } = setup({ noFrames: true });
  await assert.rejects(shots.screenshot({ tabId: 3, params: CLIP }), (err) => err.code === "no_frame");
  assert.equal(sent.at(-1), "Page.stopScreencast");
});

test("stray screencast frames nobody waits for are still acknowledged", async () => {
  const { shots, sent } = setup();
  shots.onEvent(3, "Page.screencastFrame", { sessionId: 1, data: "x" });
  shots.onEvent(3, "Runtime.consoleAPICalled", {});
  await new Promise((resolve) => setTimeout(resolve, 1));
  assert.deepEqual(sent, ["Page.screencastFrameAck"]);
});
