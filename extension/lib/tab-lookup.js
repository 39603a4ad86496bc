// Fetching a tab with an error the service can show as-is.

import { OpError } from "./frames.js";

export async function getTab(chromeApi, tabId) {
  try {
    return await chromeApi.tabs.get(tabId);
  } catch {
    throw new OpError(`No tab with id ${tabId} (it was closed or never existed)`, { code: "tab_not_found" });
  }
}

// Chrome reports "no group" as -1; the wire uses null.
export function groupIdOf(tab) {
  return Number.isInteger(tab.groupId) && tab.groupId >= 0 ? tab.groupId : null;
}

export function tabUrl(tab) {
  return tab.url || tab.pendingUrl || "";
}

// Where a tab is navigating to while the new page has not committed (a link to a slow server,
// say): the tab still shows its page until then. Null when no navigation is under way.
export function pendingUrlOf(tab) {
  return tab && tab.pendingUrl && tab.url && tab.pendingUrl !== tab.url ? tab.pendingUrl : null;
}

// The URL a just-created tab is going to load. Chrome often creates a tab opened by a link with
// no URL yet and names it a moment later; this asks again for up to `tries * pauseMs`. A tab that
// still names none is a blank one (""); a tab that closed meanwhile is null.
export async function firstUrl(chromeApi, tab, { tries = 20, pauseMs = 50, sleep } = {}) {
  const wait = sleep || ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  let current = tab;
  for (let attempt = 0; ; attempt++) {
    const url = current.pendingUrl || current.url || "";
    if (url || attempt >= tries) return url;
    await wait(pauseMs);
    try {
      current = await chromeApi.tabs.get(tab.id);
    } catch {
      return null;
    }
  }
}
