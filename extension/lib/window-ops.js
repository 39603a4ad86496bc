// The `window_resize` operation: resizes the normal window that holds a tab and reports the
// tabs of that window, so the service can drop coordinate contexts that the resize outdated.

import { OpError, requireTabId } from "./frames.js";
import { getTab } from "./tab-lookup.js";

const MIN_SIZE = 100;
const MAX_SIZE = 16_384;

function sizeArg(value, name) {
  if (!Number.isFinite(value) || value < MIN_SIZE || value > MAX_SIZE) {
    throw new OpError(`args.${name} must be a number of pixels between ${MIN_SIZE} and ${MAX_SIZE}`, { code: "bad_args" });
  }
  return Math.round(value);
}

export async function resizeWindow(chromeApi, args) {
  const tabId = requireTabId(args);
  const width = sizeArg(args.width, "width");
  const height = sizeArg(args.height, "height");
  const tab = await getTab(chromeApi, tabId);
  let win;
  try {
    win = await chromeApi.windows.update(tab.windowId, { state: "normal", width, height });
  } catch (err) {
    throw new OpError(`Chrome refused to resize the window: ${err && err.message ? err.message : err}`, { code: "resize_failed" });
  }
  const tabs = await chromeApi.tabs.query({ windowId: tab.windowId });
  return {
    windowId: tab.windowId,
    width: win && Number.isFinite(win.width) ? win.width : width,
    height: win && Number.isFinite(win.height) ? win.height : height,
    tabIds: tabs.map((t) => t.id),
  };
}
