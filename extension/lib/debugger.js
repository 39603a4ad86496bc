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

import { CDP_PROTOCOL_VERSION, HOPS } from "./constants.js";
import { OpError } from "./frames.js";
import { throwIfStopped } from "./stopping.js";

const ALREADY_ATTACHED = /already attached/i;
const NOT_ATTACHED = /not attached|detached/i;

export class DebuggerSessions {
  constructor(chromeApi) {
    this.chrome = chromeApi;
    this.attached = new Set();
    this.attaching = new Map(); // tabId -> Promise, so concurrent calls attach once
  }

  // Called from chrome.debugger.onDetach and tab removal.
  forget(tabId) {
    this.attached.delete(tabId);
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
    try {
      return await this.chrome.debugger.sendCommand({ tabId }, method, params || {});
    } catch (err) {
      const message = messageOf(err);
      if (!NOT_ATTACHED.test(message)) throw cdpFailure(method, message);
      // The session went away under us (worker restart, user dismissed the bar): once more.
      this.attached.delete(tabId);
      await this.#ensureAttached(tabId);
      throwIfStopped(signal);
      try {
        return await this.chrome.debugger.sendCommand({ tabId }, method, params || {});
      } catch (retryErr) {
        throw cdpFailure(method, messageOf(retryErr));
      }
    }
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
    try {
      await this.chrome.debugger.attach({ tabId }, CDP_PROTOCOL_VERSION);
    } catch (err) {
      const message = messageOf(err);
      if (!ALREADY_ATTACHED.test(message)) {
        throw new OpError(`Could not attach the debugger to tab ${tabId}: ${message}`, {
          hop: HOPS.cdp,
          code: "attach_failed",
        });
      }
    }
    await this.#emulateFocus(tabId);
    this.attached.add(tabId);
  }

  // Best effort: a session without it still works, only input to a hidden tab is slower.
  async #emulateFocus(tabId) {
    try {
      await this.chrome.debugger.sendCommand({ tabId }, "Emulation.setFocusEmulationEnabled", { enabled: true });
    } catch {
      // e.g. the tab closed meanwhile; the caller's own command reports that.
    }
  }
}

function cdpFailure(method, message) {
  return new OpError(`${method} failed: ${message}`, { hop: HOPS.cdp, code: "cdp_failed" });
}

function messageOf(err) {
  return err && typeof err.message === "string" ? err.message : String(err);
}
