// The kill switch's Stop button. Stopping a request ends its waits but not what it set going,
// so a slow page an agent asked for would still land after the user pressed the kill switch.
// This stops the loads still running in the agents' tabs, as the browser's Stop button does:
// a navigation that has not committed is abandoned, and what a page already loaded stays.

import { within } from "./stopping.js";

export const STOP_LOAD_BOUND_MS = 2000;

// Stops the load of every loading tab `isWorkspaceTab(tabId)` accepts, all at once, each
// bounded by `boundMs`. `cdp(tabId, method, params)` sends a CDP command. Resolves to the ids
// of the tabs it asked to stop; never rejects (a tab it cannot stop is simply left loading).
export async function stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp, boundMs = STOP_LOAD_BOUND_MS }) {
  let tabs;
  try {
    tabs = await chromeApi.tabs.query({});
  } catch {
    return [];
  }
  const ids = tabs.filter((tab) => isLoading(tab) && accepts(isWorkspaceTab, tab.id)).map((tab) => tab.id);
  await Promise.all(ids.map((tabId) => stopLoad(chromeApi, cdp, tabId, boundMs)));
  return ids;
}

function isLoading(tab) {
  return Number.isInteger(tab.id) && (tab.status === "loading" || Boolean(tab.pendingUrl));
}

// A question the caller cannot answer (its bookkeeping not restored yet) means "not ours".
function accepts(isWorkspaceTab, tabId) {
  try {
    return Boolean(isWorkspaceTab(tabId));
  } catch {
    return false;
  }
}

async function stopLoad(chromeApi, cdp, tabId, boundMs) {
  const attempt = (async () => {
    try {
      await cdp(tabId, "Page.stopLoading", {});
    } catch {
      // No debugger on this tab (a chrome:// page, another debugger attached): the page's own
      // stop. Injected at once, not at document_idle, which a loading page has not reached.
      await chromeApi.scripting.executeScript({ target: { tabId }, func: () => window.stop(), injectImmediately: true });
    }
  })().catch(() => null); // the tab closed meanwhile or cannot be scripted either
  await within(attempt, boundMs);
}
