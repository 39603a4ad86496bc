// The `tab_control` operation: focus, reload or close one tab. Focus makes the tab active in its
// window and focuses that window (an explicit request of the user's agent); reload waits,
// bounded, for the reloaded document to complete; close removes the tab (the worker's
// tabs.onRemoved listener then reports `tab_removed` as for any managed tab). A stopped request
// starts nothing more and ends its reload wait at once.

import { OpError, requireTabId } from "./frames.js";
import { navigationTimeout } from "./navigation.js";
import { stoppableSleep, throwIfStopped } from "./stopping.js";
import { getTab, tabUrl } from "./tab-lookup.js";

export const TAB_ACTIONS = Object.freeze(["focus", "reload", "close"]);
const POLL_MS = 250;

// A reload is bounded like a navigation.
export const reloadTimeout = navigationTimeout;

export function createTabControl({ chromeApi, sleep = (ms) => new Promise((r) => setTimeout(r, ms)), now = () => Date.now() }) {
  async function focus(tabId, signal) {
    const tab = await getTab(chromeApi, tabId);
    throwIfStopped(signal);
    await chromeApi.tabs.update(tabId, { active: true });
    try {
      await chromeApi.windows.update(tab.windowId, { focused: true });
    } catch {
      // e.g. a headless browser without window focus; the tab is active all the same
    }
    const after = await getTab(chromeApi, tabId);
    return { action: "focus", tabId, windowId: after.windowId, active: !!after.active, url: tabUrl(after), title: after.title || "" };
  }

  // Reload and wait until Chrome reports a load that started after the reload completed.
  async function reload(tabId, timeoutMs, signal) {
    await getTab(chromeApi, tabId);
    throwIfStopped(signal);
    let started = false;
    let removed = false;
    const onUpdated = (id, change) => {
      if (id === tabId && change.status === "loading") started = true;
    };
    const onRemoved = (id) => {
      if (id === tabId) removed = true;
    };
    chromeApi.tabs.onUpdated.addListener(onUpdated);
    chromeApi.tabs.onRemoved.addListener(onRemoved);
    let loaded = false;
    try {
      await chromeApi.tabs.reload(tabId, { bypassCache: false });
      const deadline = now() + timeoutMs;
      for (;;) {
        if (removed) throw new OpError(`Tab ${tabId} was closed while reloading`, { code: "tab_closed" });
        const tab = await getTab(chromeApi, tabId);
        if (tab.status === "loading") started = true;
        if (started && tab.status === "complete") {
          loaded = true;
          break;
        }
        if (now() >= deadline) break;
        await stoppableSleep(POLL_MS, signal, sleep);
      }
    } finally {
      chromeApi.tabs.onUpdated.removeListener(onUpdated);
      chromeApi.tabs.onRemoved.removeListener(onRemoved);
    }
    const after = await getTab(chromeApi, tabId);
    return { action: "reload", tabId, loaded, url: tabUrl(after), title: after.title || "" };
  }

  async function close(tabId, signal) {
    const tab = await getTab(chromeApi, tabId);
    throwIfStopped(signal);
    try {
      await chromeApi.tabs.remove(tabId);
    } catch (err) {
      throw new OpError(`Could not close tab ${tabId}: ${err && err.message ? err.message : err}`, { code: "close_failed" });
    }
    return { action: "close", tabId, closed: true, url: tabUrl(tab), title: tab.title || "" };
  }

  async function tabControl(args, { signal } = {}) {
    const tabId = requireTabId(args);
    if (!TAB_ACTIONS.includes(args.action)) {
      throw new OpError(`args.action must be one of ${TAB_ACTIONS.join(", ")}`, { code: "bad_args" });
    }
    if (args.action === "focus") return focus(tabId, signal);
    if (args.action === "reload") return reload(tabId, reloadTimeout(args), signal);
    return close(tabId, signal);
  }

  return { tabControl };
}
