// Which managed tab opened a new tab. Chrome's `openerTabId` is the tab the tab strip links the
// new tab to: for a tab opened from a page in a background tab that is the active tab, not the
// page that opened it, so it cannot decide ownership alone (another workspace's popup would
// land in whichever workspace's tab is active). The page that opens a window announces it on
// its own debugger session (CDP `Page.windowOpen`: window.open, a target=_blank link, a form).
// A new tab Chrome links to a managed tab is attributed to the one managed tab that announced a
// window in the last moments; with none or several it is attributed to nobody and stays the
// user's: never guessed.

export const WINDOW_OPEN_MS = 3000;

export class Openers {
  constructor(now = () => Date.now()) {
    this.now = now;
    this.announced = new Map(); // tabId -> when it last announced a window
  }

  // Fed every debugger event.
  onEvent(tabId, method) {
    if (method === "Page.windowOpen") this.announced.set(tabId, this.now());
  }

  forget(tabId) {
    this.announced.delete(tabId);
  }

  // The tab that opened a tab created now, consuming its announcement; null when it is not
  // exactly one.
  take() {
    const now = this.now();
    for (const [tabId, at] of this.announced) if (now - at > WINDOW_OPEN_MS) this.announced.delete(tabId);
    if (this.announced.size !== 1) return null;
    const [tabId] = this.announced.keys();
    this.announced.delete(tabId);
    return tabId;
  }
}
