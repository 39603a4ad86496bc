// JavaScript dialogs (alert, confirm, prompt, beforeunload) per tab, from CDP Page events.
// A tab's dialogs are only reported while its debugger session has the Page domain enabled, so
// the worker enables it (once per session) before any CDP command it sends for a tab and before
// every `dialog` request. `DialogBook` is pure: the worker feeds it events.

import { OpError, requireTabId } from "./frames.js";

export const DIALOG_ACTIONS = Object.freeze(["status", "accept", "dismiss", "respond"]);
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
  }

  onEvent(tabId, method, params) {
    if (method === "Page.javascriptDialogOpening") {
      const p = params || {};
      this.open.set(tabId, {
        type: String(p.type || "alert"),
        message: clip(p.message),
        defaultPrompt: clip(p.defaultPrompt || ""),
        url: clip(p.url || "", 1_000),
        openedAt: this.now(),
      });
    } else if (method === "Page.javascriptDialogClosed" || method === "Page.frameNavigated") {
      if (method === "Page.frameNavigated" && params && params.frame && params.frame.parentId) return;
      this.open.delete(tabId);
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
    this.open.delete(tabId);
    this.watching.delete(tabId);
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
export function createDialogOps({ book, cdp }) {
  async function watch(tabId) {
    if (book.watching.has(tabId)) return;
    await cdp(tabId, "Page.enable", {});
    book.watching.add(tabId);
  }

  async function dialog(args) {
    const tabId = requireTabId(args);
    const params = handleParams(args.action, args.text);
    await watch(tabId);
    const open = book.current(tabId);
    if (params === null) {
      return open ? { open: true, ...open } : { open: false };
    }
    try {
      await cdp(tabId, "Page.handleJavaScriptDialog", params);
    } catch (err) {
      if (NO_DIALOG.test(err && err.message ? err.message : String(err))) {
        book.closed(tabId);
        return { resolved: false, open: false };
      }
      throw err;
    }
    book.closed(tabId);
    const out = { resolved: true, open: false, action: args.action };
    if (open) Object.assign(out, { type: open.type, message: open.message });
    return out;
  }

  return { dialog, watch };
}
