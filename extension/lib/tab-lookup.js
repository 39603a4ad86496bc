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
