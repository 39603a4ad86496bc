// The `screenshot` operation: one JPEG of a tab, also when the tab is in the background.
//
// Chrome draws only the tabs it shows (plus the last one or two it showed, whose frames it
// keeps). Page.captureScreenshot on any other background tab waits for a frame that never
// comes, and never answers. A screencast, unlike a screenshot, counts as a capture of the tab:
// Chrome keeps a captured tab's renderer drawing without showing it, so while one runs the tab
// has frames. For a tab that is not shown (not its window's active tab, or in a minimized
// window), or whose direct capture did not answer in time, we therefore:
//   1. start Page.startScreencast and wait for its first Page.screencastFrame (acked),
//   2. run the requested Page.captureScreenshot (with its clip) while frames flow,
//   3. if even that does not answer, return the screencast frame itself, with its metadata,
//   4. always stop the screencast.
// Nothing is activated or focused: no tab switch, no window focus, no bringToFront.
// A stopped request ends its waits at once, and the screencast is stopped all the same.
// A tab whose page crashed draws nothing: the commands are refused at once (debugger.js), and a
// crash during the wait for a frame ends that wait with `page_crashed`.

import { pageCrashedError, tabCrashes } from "./debugger.js";
import { OpError, requireTabId } from "./frames.js";
import { throwIfStopped, within } from "./stopping.js";
import { HOPS } from "./constants.js";
import { getTab } from "./tab-lookup.js";

export const SCREENSHOT_TIMING = Object.freeze({ directMs: 1_500, frameMs: 8_000, clippedMs: 4_000 });

export function createScreenshots({ chromeApi, cdp, timing = SCREENSHOT_TIMING }) {
  const waiters = new Map(); // tabId -> Set of frame callbacks
  const crashes = tabCrashes(chromeApi);

  // Fed from chrome.debugger.onEvent.
  function onEvent(tabId, method, params) {
    if (method !== "Page.screencastFrame") return;
    const pending = waiters.get(tabId);
    if (!pending || !pending.size) {
      // A frame nobody waits for (e.g. after a stop raced it): ack so Chrome does not stall.
      ack(tabId, params);
      return;
    }
    for (const notify of [...pending]) notify(params || {});
  }

  function ack(tabId, params) {
    if (params && Number.isInteger(params.sessionId)) {
      cdp(tabId, "Page.screencastFrameAck", { sessionId: params.sessionId }).catch(() => {});
    }
  }

  function nextFrame(tabId) {
    let cancel = () => {};
    const promise = new Promise((resolve) => {
      const pending = waiters.get(tabId) || new Set();
      waiters.set(tabId, pending);
      const notify = (params) => {
        pending.delete(notify);
        ack(tabId, params);
        resolve(params);
      };
      pending.add(notify);
      cancel = () => pending.delete(notify);
    });
    return { promise, cancel };
  }

  async function shown(tab) {
    if (!tab.active) return false;
    try {
      const win = await chromeApi.windows.get(tab.windowId);
      return win.state !== "minimized";
    } catch {
      return true;
    }
  }

  async function screenshot(args, { signal } = {}) {
    const tabId = requireTabId(args);
    const params = args.params && typeof args.params === "object" ? args.params : {};
    const frameParams = args.frame && typeof args.frame === "object" ? args.frame : {};
    const tab = await getTab(chromeApi, tabId);
    if (await shown(tab)) {
      throwIfStopped(signal);
      const direct = await within(cdp(tabId, "Page.captureScreenshot", params), timing.directMs, signal);
      if (direct) return { data: direct.data, via: "capture" };
    }
    throwIfStopped(signal);
    return forced(tabId, params, frameParams, signal);
  }

  async function forced(tabId, params, frameParams, signal) {
    const first = nextFrame(tabId);
    try {
      await cdp(tabId, "Page.startScreencast", {
        format: "jpeg",
        quality: Number.isFinite(params.quality) ? params.quality : 55,
        everyNthFrame: 1,
        ...frameParams,
      });
      const frame = await within(crashes.guard(tabId, first.promise, () => pageCrashedError(tabId, "the screenshot")), timing.frameMs, signal);
      if (!frame) {
        if (crashes.has(tabId)) throw pageCrashedError(tabId, "the screenshot");
        throw new OpError("The tab produced no frame to capture (it may be frozen or crashed)", {
          hop: HOPS.cdp,
          code: "no_frame",
        });
      }
      // The renderer is drawing now; the requested (clipped) capture can be served.
      const clipped = await within(cdp(tabId, "Page.captureScreenshot", params), timing.clippedMs, signal);
      if (clipped) return { data: clipped.data, via: "screencast_capture" };
      return { data: frame.data, via: "screencast_frame", metadata: frame.metadata || {} };
    } finally {
      first.cancel();
      cdp(tabId, "Page.stopScreencast", {}).catch(() => {});
    }
  }

  return { screenshot, onEvent };
}
