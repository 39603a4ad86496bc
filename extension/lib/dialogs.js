// JavaScript dialogs (alert, confirm, prompt, beforeunload) per tab, from CDP Page events.
// A tab's dialogs are only reported while its debugger session has the Page domain enabled, so
// the worker enables it (once per session) before any request that touches the tab's page (see
// dialog-gate.js) and before every `dialog` request. `DialogBook` is pure: the worker feeds it
// events.
//
// A dialog that opened before its tab was watched cannot be seen or answered over CDP at all:
// Chrome says "No dialog is showing" to the new session, and Page.enable itself waits until the
// paused page runs again. So enabling Page is bounded; a page that does not answer in time is
// reported as not responding instead of hanging the request.

import { HOPS } from "./constants.js";
import { OpError, requireTabId } from "./frames.js";
import { within } from "./stopping.js";

export const DIALOG_ACTIONS = Object.freeze(["status", "accept", "dismiss", "respond"]);
export const WATCH_WAIT_MS = 3_000;
// How long an answered dialog's page is watched for the next one (alert after alert): the
// page runs on at once, so a dialog it opens next shows within this, and the answer says so.
export const FOLLOW_UP_MS = 150;
const TEXT_LIMIT = 2_000;
const NO_DIALOG = /no dialog is showing/i;

function clip(text, limit = TEXT_LIMIT) {
  const s = String(text ?? "");
  return s.length > limit ? `${s.slice(0, limit)}…` : s;
}

export class DialogBook {
  constructor({ now = () => Date.now() } = {}) {
    this.now = now;
    this.open = new Map(); // tabId -> {type, message, defaultPrompt, url, openedAt}
    this.watching = new Set(); // tabs whose session has Page enabled
    this.listeners = new Map(); // tabId -> Set of callbacks for a dialog opening
  }

  // Calls `fn(dialog)` for each dialog that opens on the tab until the returned function is
  // called.
  onOpen(tabId, fn) {
    const set = this.listeners.get(tabId) || new Set();
    this.listeners.set(tabId, set);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (!set.size && this.listeners.get(tabId) === set) this.listeners.delete(tabId);
    };
  }

  onEvent(tabId, method, params) {
    if (method === "Page.javascriptDialogOpening") {
      const p = params || {};
      const dialog = {
        type: String(p.type || "alert"),
        message: clip(p.message),
        defaultPrompt: clip(p.defaultPrompt || ""),
        url: clip(p.url || "", 1_000),
        openedAt: this.now(),
      };
      this.open.set(tabId, dialog);
      for (const notify of [...(this.listeners.get(tabId) || [])]) notify(dialog);
    } else if (method === "Page.javascriptDialogClosed" || (method === "Page.frameNavigated" && !params?.frame?.parentId)) {
      // Only the top frame navigating takes its dialog away.
      this.closed(tabId);
    }
  }

  current(tabId) {
    return this.open.get(tabId) || null;
  }

  closed(tabId) {
    this.open.delete(tabId);
  }

  // The debugger session ended: events stop until Page is enabled again.
  detached(tabId) {
    this.watching.delete(tabId);
  }

  forget(tabId) {
    this.closed(tabId);
    this.detached(tabId);
  }
}

// The Page.handleJavaScriptDialog parameters for an action, or null for "status".
export function handleParams(action, text) {
  if (!DIALOG_ACTIONS.includes(action)) {
    throw new OpError(`args.action must be one of ${DIALOG_ACTIONS.join(", ")}`, { code: "bad_args" });
  }
  if (action === "status") return null;
  if (action === "respond") {
    if (typeof text !== "string") throw new OpError("respond needs args.text", { code: "bad_args" });
    return { accept: true, promptText: text };
  }
  return { accept: action === "accept" };
}

// The `dialog` op: {tabId, action, text?}. `cdp(tabId, method, params)` sends one command.
export function createDialogOps({ book, cdp, waitMs = WATCH_WAIT_MS, followUpMs = FOLLOW_UP_MS }) {
  const enabling = new Map(); // tabId -> pending Page.enable

  // Makes sure the tab's session reports dialogs. Resolves true once Page is enabled, false if
  // the page did not answer within `waitMs` (the enable keeps going; a later call waits for
  // the same one). Rejects if the command fails (e.g. the debugger cannot attach).
  async function watch(tabId) {
    if (book.watching.has(tabId)) return true;
    let pending = enabling.get(tabId);
    if (!pending) {
      pending = cdp(tabId, "Page.enable", {}).then(() => {
        book.watching.add(tabId);
      });
      pending.catch(() => {}).finally(() => {
        if (enabling.get(tabId) === pending) enabling.delete(tabId);
      });
      enabling.set(tabId, pending);
    }
    return (await within(pending.then(() => true), waitMs)) === true;
  }

  // The debugger session ended: a Page.enable still pending belonged to it.
  function detached(tabId) {
    enabling.delete(tabId);
    book.detached(tabId);
  }

  async function dialog(args) {
    const tabId = requireTabId(args);
    const params = handleParams(args.action, args.text);
    if (!(await watch(tabId))) throw unresponsive(tabId);
    const open = book.current(tabId);
    if (params === null) {
      return open ? { open: true, ...open } : { open: false };
    }
    // Listening starts before the answer: the next dialog's event may come before its reply.
    const next = nextDialog(tabId);
    try {
      await cdp(tabId, "Page.handleJavaScriptDialog", params);
    } catch (err) {
      next.cancel();
      if (NO_DIALOG.test(err && err.message ? err.message : String(err))) {
        book.closed(tabId);
        return { resolved: false, open: false };
      }
      throw err;
    }
    // Only the answered dialog is forgotten, never one that opened since.
    if (book.current(tabId) === open) book.closed(tabId);
    next.arm();
    const out = { resolved: true, open: false, action: args.action };
    if (open) Object.assign(out, { type: open.type, message: open.message }, frameOf(open));
    const following = await next.settled;
    if (following && book.current(tabId) === following) {
      Object.assign(out, { open: true, next: { type: following.type, message: following.message, ...frameOf(following) } });
    }
    return out;
  }

  // The next dialog to open on the tab: `settled` resolves with it, or with null once
  // followUpMs passed after `arm()` (called when the answer is in) or on `cancel()`.
  function nextDialog(tabId) {
    let timer = null;
    let finish = () => {};
    const settled = new Promise((resolve) => {
      const unlisten = book.onOpen(tabId, (dialog) => finish(dialog));
      finish = (dialog) => {
        unlisten();
        clearTimeout(timer);
        resolve(dialog);
      };
    });
    return {
      settled,
      arm: () => {
        timer = setTimeout(() => finish(null), followUpMs);
      },
      cancel: () => finish(null),
    };
  }

  return { dialog, watch, detached };
}

// The URL of the frame that opened a dialog (the browser's word), for the service to judge whose
// words they are; nothing when it is not known.
function frameOf(dialog) {
  return dialog.url ? { url: dialog.url } : {};
}

// The page did not answer Page.enable in time: most likely it shows a dialog that opened before
// the tab was watched (only the user can answer that one), or it runs a long script.
export function unresponsive(tabId) {
  return new OpError(
    `The page in tab ${tabId} is not responding: it may be showing a JavaScript dialog that opened before Ghostlight watched the tab (answer it in the browser window, or close the tab), or running a long script`,
    { hop: HOPS.page, code: "page_unresponsive" },
  );
}
