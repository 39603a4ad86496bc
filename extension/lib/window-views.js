// The browser's normal windows and the one last focused, as the placement of a new workspace
// tab needs them (placement.js): read once, then kept until a window opens, closes or changes
// focus, the only events that change them. Each new tab read them afresh before: a wait in a
// browser that may be busy loading other workspaces' pages, on the way to every tab.
// Without those events (an older browser, a test's stand-in) nothing is kept.

import { listen } from "./listen.js";

export class WindowViews {
  constructor(chromeApi) {
    this.chrome = chromeApi;
    this.known = null; // {windows, lastFocusedWindowId} as last read, or null
    this.changes = 0; // window events heard: a read one of them overtook is not kept
    const drop = () => {
      this.known = null;
      this.changes += 1;
    };
    const windows = chromeApi.windows || {};
    // Kept only when every event that changes them is heard.
    this.keeps = [windows.onCreated, windows.onRemoved, windows.onFocusChanged]
      .map((event) => listen(event, drop))
      .every(Boolean);
  }

  // {windows: the normal windows, lastFocusedWindowId: the last focused of them, or null}.
  async read() {
    if (this.known) return this.known;
    const changes = this.changes;
    const [windows, last] = await Promise.all([
      this.chrome.windows.getAll({ windowTypes: ["normal"] }),
      this.chrome.windows.getLastFocused({ windowTypes: ["normal"] }).catch(() => null), // no window at all
    ]);
    const known = { windows, lastFocusedWindowId: last ? last.id : null };
    if (this.keeps && changes === this.changes) this.known = known;
    return known;
  }
}
