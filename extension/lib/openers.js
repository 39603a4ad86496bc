// Which managed tab opened a new tab. Chrome's `openerTabId` is the tab the tab strip links the
// new tab to: for a tab opened from a page in a background tab that is the active tab, not the
// page that opened it, so it cannot decide ownership alone (another workspace's popup would
// land in whichever workspace's tab is active). The page that opens a window announces it on
// its own debugger session (CDP `Page.windowOpen`: window.open, a target=_blank link, a form),
// with the URL it opens.
//
// A new tab Chrome links to a managed tab is attributed to the one managed tab that announced,
// in the last moments, a window for the very URL the new tab is loading; with none or several
// it is attributed to nobody and stays the user's: never guessed. Matching the URL matters: a
// page can announce windows the popup blocker then stops (no tab ever comes of them), and such
// an announcement must not claim a tab someone else opens meanwhile.

export const WINDOW_OPEN_MS = 3000;
const MAX_PER_TAB = 32;

// One spelling per URL: parsed and re-serialised; blank pages, and a URL not known, all read as
// "about:blank".
export function comparableUrl(url) {
  if (typeof url !== "string" || url === "" || url === "about:blank") return "about:blank";
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

export class Openers {
  constructor(now = () => Date.now()) {
    this.now = now;
    this.announced = new Map(); // tabId -> [{at, url}] of its recent announcements, oldest first
  }

  // Fed every debugger event.
  onEvent(tabId, method, params) {
    if (method !== "Page.windowOpen") return;
    const list = this.announced.get(tabId) || [];
    list.push({ at: this.now(), url: comparableUrl(params && params.url) });
    if (list.length > MAX_PER_TAB) list.shift();
    this.announced.set(tabId, list);
  }

  forget(tabId) {
    this.announced.delete(tabId);
  }

  // Whether `tabId` announced a window at or after `since` (this clock) that no new tab has
  // taken yet: an action that opened a tab has not come to rest before the tab is named.
  awaiting(tabId, since) {
    return (this.announced.get(tabId) || []).some((entry) => entry.at >= since);
  }

  // Whether some tab announced a window in the last moments: a new tab Chrome links to no
  // managed tab (the user's own tab was the active one) may still be that window.
  expecting() {
    const now = this.now();
    for (const list of this.announced.values()) {
      if (list.some((entry) => now - entry.at <= WINDOW_OPEN_MS)) return true;
    }
    return false;
  }

  // The tab that opened a tab created now for `url` (its pending URL), consuming that
  // announcement; null unless exactly one tab announced a window for that URL.
  take(url) {
    const now = this.now();
    const wanted = comparableUrl(url);
    const matches = [];
    for (const [tabId, list] of this.announced) {
      const fresh = list.filter((entry) => now - entry.at <= WINDOW_OPEN_MS);
      if (fresh.length === 0) {
        this.announced.delete(tabId);
        continue;
      }
      this.announced.set(tabId, fresh);
      const index = fresh.findIndex((entry) => entry.url === wanted);
      if (index >= 0) matches.push([tabId, index]);
    }
    if (matches.length !== 1) return null;
    const [[tabId, index]] = matches;
    this.announced.get(tabId).splice(index, 1);
    return tabId;
  }
}
