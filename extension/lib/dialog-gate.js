// Keeps JavaScript dialogs from hanging requests. While a tab shows a dialog (alert, confirm,
// prompt, beforeunload) its page is paused: input events, script evaluation, screenshots and
// content-script messages get no answer until the dialog closes. So, for a request that touches
// a tab's page, the gate
//   1. watches the tab first (Page enabled, bounded), so a dialog is seen when it opens;
//   2. fails the request at once with `dialog_open` (carrying the dialog) while a dialog is open,
//      before anything is sent;
//   3. answers a request that is running when a dialog opens on its tab at once with that
//      dialog: what it sent was delivered, and its own answer, which Chrome gives only after the
//      dialog closes, is dropped when it comes.

import { HOPS } from "./constants.js";
import { OpError } from "./frames.js";
import { unresponsive } from "./dialogs.js";

export const DIALOG_OPEN_CODE = "dialog_open";

// CDP commands Chrome answers while a dialog is open: they do not need the paused page.
const ANSWERED_DURING_DIALOG = new Set([
  "Page.enable",
  "Page.handleJavaScriptDialog",
  "Page.getNavigationHistory",
  "Page.stopScreencast",
  "Page.screencastFrameAck",
]);

export function dialogOpenError(tabId, dialog) {
  return new OpError(
    `A JavaScript ${dialog.type} dialog is open in tab ${tabId}, so its page is paused until the dialog is answered; nothing was sent`,
    { hop: HOPS.page, code: DIALOG_OPEN_CODE, dialog },
  );
}

// `book`: the DialogBook; `watch(tabId)`: resolves true once the tab reports dialogs, false if
// its page did not answer in time.
export function createDialogGate({ book, watch }) {
  // Best effort: a tab the debugger cannot attach to (e.g. a chrome:// page) runs unwatched.
  async function watched(tabId) {
    try {
      return await watch(tabId);
    } catch {
      return true;
    }
  }

  // Runs `start()` and resolves with `{value}`, or with `{dialog}` as soon as a dialog opens on
  // the tab first. A failure of `start()` is thrown, unless the dialog came first.
  async function race(tabId, start) {
    let off = () => {};
    const opened = new Promise((resolve) => {
      off = book.onOpen(tabId, (dialog) => resolve({ dialog }));
    });
    try {
      // The race also handles start()'s late outcome, after a dialog answered the request.
      const work = Promise.resolve().then(start);
      return await Promise.race([work.then((value) => ({ value })), opened]);
    } finally {
      off();
    }
  }

  // A request that needs the page: watched, refused while a dialog is open, raced against one.
  // `method`: the CDP method for the `cdp` op (a few are answered during a dialog).
  async function run(tabId, start, { method } = {}) {
    const answered = await watched(tabId);
    if (!ANSWERED_DURING_DIALOG.has(method)) {
      const open = book.current(tabId);
      if (open) throw dialogOpenError(tabId, open);
      if (!answered) throw unresponsive(tabId);
    }
    return race(tabId, start);
  }

  // A request the browser carries out itself (navigation, reload, focus, close): it is not
  // refused while a dialog is open (a navigation closes the dialog), only raced against a new
  // one such as beforeunload. `closed` is the dialog that was open when it started and is gone
  // after it. `watch: false` skips watching (e.g. closing a tab whose page does not respond).
  // `navigates: true` (navigate, reload) refuses while a beforeunload dialog is open: that
  // dialog is the page's answer to leaving, so another navigation only waits behind it.
  async function browserSide(tabId, start, { watch: watchFirst = true, navigates = false } = {}) {
    if (watchFirst) await watched(tabId);
    const before = book.current(tabId);
    if (navigates && before && before.type === "beforeunload") throw dialogOpenError(tabId, before);
    const out = await race(tabId, start);
    return before && book.current(tabId) !== before ? { ...out, closed: before } : out;
  }

  return { run, browserSide };
}
