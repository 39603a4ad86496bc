// chrome.debugger (CDP) sessions, attached lazily per tab on first use.
// After a service-worker restart the browser may still hold our earlier attachment; Chrome
// then answers "already attached", which we adopt instead of failing.
//
// Every session turns on focus emulation right after attaching. Workspace tabs are usually
// background tabs, whose renderer is hidden and produces no frames; Chrome delivers mouse moves
// (and other continuous input) on the next frame, so Input.dispatchMouseEvent("mouseMoved")
// to a background tab waited for Chrome's ~5 s input fallback. With focus emulation on, Chrome
// keeps the tab's renderer drawing as it does for a tab being captured, without showing it:
// the tab is not activated and the user's window focus is untouched. The page itself sees
// document.hasFocus() true and visibilityState "visible" while the session lasts; the
// emulation ends with the debugger session.
//
// A tab whose page crashed (its renderer process is gone: Chrome shows its "Aw, Snap" page)
// answers nothing that needs the page: Runtime.evaluate, Page.enable, focus emulation and a
// screencast wait forever, input and screenshots fail with a bare "Internal error". Chrome tells
// every debugger session of the tab (CDP Inspector.targetCrashed, sent without enabling
// anything, and again to a session that enables Inspector later), so the sessions remember
// crashed tabs (`TabCrashes`, shared per chrome API object with content-bridge.js) until the
// tab loads again (Inspector.targetReloadedAfterCrash, or its status going back to "loading")
// or closes. A command for a crashed tab is refused at once with code `page_crashed` (nothing
// is sent), and one still waiting when the crash comes is answered with it then.

import { CDP_PROTOCOL_VERSION, HOPS } from "./constants.js";
import { OpError } from "./frames.js";
import { listen } from "./listen.js";
import { refuseProtectedTab } from "./privileged.js";
import { throwIfStopped } from "./stopping.js";

const ALREADY_ATTACHED = /already attached/i;
const NOT_ATTACHED = /not attached|detached/i;
// chrome.debugger.attach for a tab that closed: "No tab with given id N."
const NO_SUCH_TAB = /no tab with (?:given )?id/i;
// Chrome's refusal to let an extension's debugger into its own pages (chrome://, the Web Store,
// another extension's): the page is out of reach, as it is for content scripts.
const KEPT_OUT = /cannot access|cannot attach to this target/i;
export const PAGE_CRASHED = "page_crashed";
// Session settings a new session of the tab must carry as well (see `kept`).
const KEPT_METHODS = new Set(["Network.setBlockedURLs"]);
// Commands the browser itself carries out for a crashed tab (no page needed): they can take it
// somewhere else. Everything else waits for a renderer that is not there.
const ANSWERED_WHEN_CRASHED = new Set([
  "Inspector.enable",
  "Page.getNavigationHistory",
  "Page.navigateToHistoryEntry",
  "Page.navigate",
  "Page.reload",
]);

// The error for a tab whose page crashed. `during`: the command or mechanism that was under way
// when it crashed (it was delivered; whether it acted first is not known), else nothing was
// sent.
// `delivered` goes on the wire with it, so the service reports such a request's outcome as
// unknown rather than as a plain failure.
export function pageCrashedError(tabId, during = null) {
  const lead = `The page in tab ${tabId} crashed (its renderer process is gone)`;
  const what = during
    ? `${lead} while ${during} was under way, so no answer came; whether it took effect before the crash is not known`
    : `${lead}, so there is no page to run anything on; nothing was sent`;
  const error = new OpError(what, { hop: HOPS.page, code: PAGE_CRASHED });
  if (during) error.delivered = true;
  return error;
}

// Crashed tabs, fed by the debugger's events and tab updates. One per chrome API object (the
// worker's `chrome`), so the debugger sessions and the content bridge share it.
export class TabCrashes {
  constructor() {
    this.crashed = new Set();
    this.waiters = new Map(); // tabId -> Set of callbacks for the next crash
  }

  has(tabId) {
    return this.crashed.has(tabId);
  }

  onEvent(tabId, method) {
    if (method === "Inspector.targetCrashed") this.crash(tabId);
    else if (method === "Inspector.targetReloadedAfterCrash") this.recovered(tabId);
  }

  crash(tabId) {
    this.crashed.add(tabId);
    const waiting = this.waiters.get(tabId);
    this.waiters.delete(tabId);
    for (const notify of [...(waiting || [])]) notify();
  }

  // The tab loads a page again (reload, navigation) or is gone.
  recovered(tabId) {
    this.crashed.delete(tabId);
  }

  // Calls `fn` once when the tab's page crashes; returns a function that unregisters it.
  onCrash(tabId, fn) {
    const set = this.waiters.get(tabId) || new Set();
    this.waiters.set(tabId, set);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (!set.size && this.waiters.get(tabId) === set) this.waiters.delete(tabId);
    };
  }

  // `promise`'s outcome, or `makeError()` thrown as soon as the tab's page crashes first (the
  // promise's own late outcome is then dropped).
  async guard(tabId, promise, makeError) {
    let off = () => {};
    const crashed = new Promise((_, reject) => {
      off = this.onCrash(tabId, () => reject(makeError()));
    });
    promise.catch(() => {});
    try {
      return await Promise.race([promise, crashed]);
    } finally {
      off();
    }
  }
}

const crashBooks = new WeakMap();

// The crash book of `chromeApi`, made (and subscribed to its events) on first use. Call it
// while the worker's top-level code runs, so the listeners are registered synchronously.
export function tabCrashes(chromeApi) {
  if (!chromeApi || typeof chromeApi !== "object") return new TabCrashes();
  let book = crashBooks.get(chromeApi);
  if (book) return book;
  book = new TabCrashes();
  crashBooks.set(chromeApi, book);
  listen(chromeApi?.debugger?.onEvent, (source, method) => {
    if (source && Number.isInteger(source.tabId)) book.onEvent(source.tabId, method);
  });
  listen(chromeApi?.tabs?.onUpdated, (tabId, changeInfo) => {
    if (changeInfo && changeInfo.status === "loading") book.recovered(tabId);
  });
  listen(chromeApi?.tabs?.onRemoved, (tabId) => book.recovered(tabId));
  return book;
}

export class DebuggerSessions {
  constructor(chromeApi) {
    this.chrome = chromeApi;
    this.attached = new Set();
    this.attaching = new Map(); // tabId -> Promise, so concurrent calls attach once
    this.crashes = tabCrashes(chromeApi);
    // Per tab, the session settings the service asked for that a new session must carry too
    // (method -> params): today the blocked-URL list. Replayed on every attach; dropped with
    // the tab.
    this.kept = new Map();
  }

  // The tab closed: nothing of it is replayed again.
  closed(tabId) {
    this.kept.delete(tabId);
    this.forget(tabId);
  }

  // Called from chrome.debugger.onDetach and tab removal.
  forget(tabId) {
    this.attached.delete(tabId);
  }

  // Makes the tab's session now (with its settings: focus, no service workers, what the service
  // asked to keep) rather than at its first command.
  async prepare(tabId) {
    await this.#ensureAttached(tabId);
  }

  // Resolves once a session being made for the tab (prepare) is made, or failed: what loads a
  // page in the tab without a command of its own (a navigation by the tabs API) waits for it,
  // so no page of an agent's tab ever loads before its session keeps workers out.
  async made(tabId) {
    const pending = this.attaching.get(tabId);
    if (pending) await pending.catch(() => {});
  }

  // Ends our session on the tab, if there is one (the tab went to a page no agent may enter).
  async detach(tabId) {
    const pending = this.attaching.get(tabId);
    if (pending) await pending.catch(() => {});
    if (!this.attached.delete(tabId)) return;
    try {
      await this.chrome.debugger.detach({ tabId });
    } catch {
      // already gone (the tab closed, or Chrome ended it itself)
    }
  }

  // Whether the tab's page is known to have crashed (and not loaded again since).
  crashed(tabId) {
    return this.crashes.has(tabId);
  }

  // `signal`: the request's stop signal; a stopped request sends no command after attaching.
  // A command already sent cannot be recalled.
  async send(tabId, method, params, signal) {
    if (typeof method !== "string" || !method) {
      throw new OpError("args.method must be a CDP method name", { code: "bad_args" });
    }
    if (params !== undefined && params !== null && (typeof params !== "object" || Array.isArray(params))) {
      throw new OpError("args.params must be an object", { code: "bad_args" });
    }
    await this.#ensureAttached(tabId);
    throwIfStopped(signal);
    if (KEPT_METHODS.has(method)) this.#keep(tabId, method, params);
    try {
      return await this.#command(tabId, method, params);
    } catch (err) {
      if (err instanceof OpError) throw err;
      const message = messageOf(err);
      if (!NOT_ATTACHED.test(message)) throw cdpFailure(method, message);
      // The session went away under us (worker restart, user dismissed the bar, or the tab
      // closed): once more.
      this.attached.delete(tabId);
      try {
        await this.#ensureAttached(tabId);
      } catch (attachErr) {
        if (attachErr.code === "tab_not_found") throw closedWhile(tabId, method);
        throw attachErr;
      }
      throwIfStopped(signal);
      try {
        return await this.#command(tabId, method, params);
      } catch (retryErr) {
        if (retryErr instanceof OpError) throw retryErr;
        throw cdpFailure(method, messageOf(retryErr));
      }
    }
  }

  // One command, refused unsent on a crashed tab and answered as soon as the tab crashes.
  #command(tabId, method, params) {
    if (ANSWERED_WHEN_CRASHED.has(method)) return this.chrome.debugger.sendCommand({ tabId }, method, params || {});
    if (this.crashes.has(tabId)) return Promise.reject(pageCrashedError(tabId));
    const sent = this.chrome.debugger.sendCommand({ tabId }, method, params || {});
    return this.crashes.guard(tabId, sent, () => pageCrashedError(tabId, method));
  }

  async #ensureAttached(tabId) {
    if (this.attached.has(tabId)) return;
    let pending = this.attaching.get(tabId);
    if (!pending) {
      pending = this.#attach(tabId).finally(() => this.attaching.delete(tabId));
      this.attaching.set(tabId, pending);
    }
    await pending;
  }

  async #attach(tabId) {
    // Never into a page no agent may enter, whichever operation asked (privileged.js).
    await refuseProtectedTab(this.chrome, tabId, { unreadable: "pass" });
    try {
      await this.chrome.debugger.attach({ tabId }, CDP_PROTOCOL_VERSION);
    } catch (err) {
      const message = messageOf(err);
      if (NO_SUCH_TAB.test(message)) {
        throw new OpError(`No tab with id ${tabId} (it was closed or never existed)`, { code: "tab_not_found" });
      }
      if (KEPT_OUT.test(message)) {
        throw new OpError(`Chrome does not let extensions into this page, so it cannot be seen or driven (${message.replace(/\.\s*$/, "")})`, {
          hop: HOPS.cdp,
          code: "content_unavailable",
        });
      }
      if (!ALREADY_ATTACHED.test(message)) {
        throw new OpError(`Could not attach the debugger to tab ${tabId}: ${message}`, {
          hop: HOPS.cdp,
          code: "attach_failed",
        });
      }
    }
    await this.#noticeCrash(tabId);
    // Focus emulation needs the page: on a crashed tab it would never answer.
    if (!this.crashes.has(tabId)) {
      // Sent at once: the session carries its commands out in the order they were sent, and
      // none needs another's answer, so the session is made in one wait instead of one each.
      await Promise.all([this.#emulateFocus(tabId), this.#bypassWorkers(tabId), this.#replayKept(tabId)]);
    }
    this.attached.add(tabId);
  }

  // A tab that crashed before this session began: enabling Inspector (the browser answers it,
  // with or without a page) makes Chrome send Inspector.targetCrashed first. Best effort.
  async #noticeCrash(tabId) {
    try {
      await this.chrome.debugger.sendCommand({ tabId }, "Inspector.enable", {});
    } catch {
      // An older browser or a closing tab: crashes are still seen as they happen.
    }
  }

  // Every request of an agent's tab goes to the network, past any service worker, and no
  // worker controls its pages: a worker registered from another workspace's tab on the same
  // site (workspaces share the profile) can then neither serve, watch nor steer this one. The
  // browser answers it without the page. Best effort: an older browser lacks it.
  async #bypassWorkers(tabId) {
    // The bypass holds only while the session's Network domain is on: it is sent right after
    // the domain's enabling, which the session carries out first.
    await Promise.all([
      this.#setting(tabId, "Network.enable", {}),
      this.#setting(tabId, "Network.setBypassServiceWorker", { bypass: true }),
    ]);
  }

  #keep(tabId, method, params) {
    const kept = this.kept.get(tabId) || new Map();
    kept.set(method, params || {});
    this.kept.set(tabId, kept);
  }

  // A session made again (the user cancelled the last one, the tab's worker restarted) carries
  // what the service set on the one before; the service's next setting, or its next call,
  // tells what failed.
  async #replayKept(tabId) {
    await Promise.all([...(this.kept.get(tabId) || [])].map(([method, params]) => this.#setting(tabId, method, params)));
  }

  // Best effort: a session without it still works, only input to a hidden tab is slower.
  async #emulateFocus(tabId) {
    await this.#setting(tabId, "Emulation.setFocusEmulationEnabled", { enabled: true });
  }

  // One setting of a new session, best effort: true when the browser took it. A failure (the
  // tab closed or crashed meanwhile) is left for the caller's own command to report.
  async #setting(tabId, method, params) {
    try {
      await this.crashes.guard(tabId, this.chrome.debugger.sendCommand({ tabId }, method, params), () => pageCrashedError(tabId));
      return true;
    } catch {
      return false;
    }
  }
}

// The tab closed while `method` was under way (or between attaching and sending it).
function closedWhile(tabId, method) {
  return new OpError(
    `Tab ${tabId} closed while ${method} was under way, so no answer came (whether it took effect before the tab closed is not known)`,
    { code: "tab_not_found" },
  );
}

function cdpFailure(method, message) {
  return new OpError(`${method} failed: ${message}`, { hop: HOPS.cdp, code: "cdp_failed" });
}

function messageOf(err) {
  return err && typeof err.message === "string" ? err.message : String(err);
}
