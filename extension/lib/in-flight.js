// The requests each agent tab has in flight, from its debugger session's Network events (the
// session enables Network for every agent tab, see debugger.js). `settle` asks which requests an
// action started are still under way, and waits for them: a click that fetches before it
// renders has not come to rest when its DOM first goes quiet.

// Requests that stay open by design: waiting for them would only reach the bound.
const LASTING = new Set(["EventSource", "WebSocket", "Ping"]);
const KEPT_PER_TAB = 500;

export class InFlight {
  constructor({ now = () => performance.now() } = {}) {
    this.now = now;
    this.tabs = new Map(); // tabId -> Map(requestId -> {startedAt, type, url})
    this.waiters = new Set();
  }

  onEvent(tabId, method, params) {
    if (!params || typeof params.requestId !== "string") return;
    if (method === "Network.requestWillBeSent") {
      if (LASTING.has(params.type)) return;
      let open = this.tabs.get(tabId);
      if (!open) this.tabs.set(tabId, (open = new Map()));
      const known = open.get(params.requestId); // a redirect keeps its request's start
      if (!known && open.size >= KEPT_PER_TAB) return;
      const url = params.request && typeof params.request.url === "string" ? params.request.url : "";
      open.set(params.requestId, { startedAt: known ? known.startedAt : this.now(), type: params.type || "", url });
    } else if (method === "Network.loadingFinished" || method === "Network.loadingFailed") {
      const open = this.tabs.get(tabId);
      if (open && open.delete(params.requestId)) this.#wake();
    }
  }

  // A tab's session ended or the tab closed: nothing of it is in flight any more.
  forget(tabId) {
    if (this.tabs.delete(tabId)) this.#wake();
  }

  // The requests of `tabId` started at or after `since` and not finished.
  pending(tabId, since) {
    const open = this.tabs.get(tabId);
    if (!open) return [];
    return [...open.values()].filter((request) => request.startedAt >= since);
  }

  // Resolves once none of those requests is left, at `deadline`, or when `signal` stops.
  async drained(tabId, since, deadline, signal) {
    while (this.pending(tabId, since).length && this.now() < deadline && !(signal && signal.aborted)) {
      await new Promise((resolve) => {
        const waiter = () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        };
        const timer = setTimeout(waiter, Math.max(1, deadline - this.now()));
        this.waiters.add(waiter);
        if (signal) signal.addEventListener("abort", waiter, { once: true });
      });
    }
  }

  #wake() {
    for (const waiter of [...this.waiters]) waiter();
  }
}
