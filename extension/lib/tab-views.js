// The browser's latest word on each tab (its url, pendingUrl and title), kept from the tab
// events Chrome sends, so a page operation need not ask for the tab before it goes out: each
// chrome.tabs.get is a wait in the browser, and every page operation made one to refuse a
// protected page (privileged.js).
//
// A view is kept only for a tab at rest (loaded, nothing pending), and goes as soon as Chrome
// says the tab is loading or its page navigates. It is only ever replaced by a newer word: an
// event carries the tab as it is when the event is sent, and a read made because no view was
// kept is kept only when no tab event came while it was under way (that event's word may be
// the newer one). A tab that closed or was replaced has no view. A worker that starts again
// keeps nothing and reads each tab on first use. Chrome's word can be behind the page by the
// time an event is delivered, as a read's answer can be by the time a command arrives; what
// stands behind that moment is the debugger session's own end on a page no agent may enter
// (service-worker.js, debugger.js).

import { listen } from "./listen.js";
import { getTab } from "./tab-lookup.js";

// The tab's debugger events that say its page is leaving or changing: its view goes with them.
const NAVIGATING = new Set([
  "Page.frameRequestedNavigation",
  "Page.frameScheduledNavigation",
  "Page.frameStartedNavigating",
  "Page.frameStartedLoading",
  "Page.frameNavigated",
  "Page.navigatedWithinDocument",
]);

// Only a settled tab's view is kept: one loading, or on its way somewhere, is read each time
// (where it is going, and whether it still is, is the browser's word of the moment).
function settled(tab) {
  return tab.status === "complete" && !tab.pendingUrl;
}

export class TabViews {
  constructor(chromeApi) {
    this.chrome = chromeApi;
    this.views = new Map(); // tabId -> the tab as last reported
    this.events = 0; // tab events heard so far: a read under way while one came is not kept
    listen(chromeApi?.tabs?.onUpdated, (tabId, _change, tab) => this.#heard(tabId, tab));
    listen(chromeApi?.tabs?.onRemoved, (tabId) => this.#heard(tabId, null));
    listen(chromeApi?.tabs?.onReplaced, (added, removed) => {
      this.#heard(added, null);
      this.#heard(removed, null);
    });
    // The tab's debugger events that say its page is leaving or changing.
    listen(chromeApi?.debugger?.onEvent, (source, method) => {
      if (source && Number.isInteger(source.tabId) && NAVIGATING.has(method)) this.#heard(source.tabId, null);
    });
  }

  // The tab as the browser last reported it; read (and kept) when no view is kept. Fails as
  // getTab does (tab_not_found) for a tab that is not there.
  async read(tabId) {
    const kept = this.views.get(tabId);
    if (kept) return { ...kept };
    const before = this.events;
    const tab = await getTab(this.chrome, tabId);
    if (this.events === before && settled(tab)) this.views.set(tabId, tab);
    return { ...tab };
  }

  #heard(tabId, tab) {
    this.events += 1;
    if (tab && typeof tab === "object" && tab.id === tabId && settled(tab)) this.views.set(tabId, { ...tab });
    else this.views.delete(tabId);
  }
}
