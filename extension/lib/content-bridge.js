// Runs a named content-script mechanism in a tab's top frame. If the content script is not
// there (tab opened before install, page loaded before the worker, restricted timing), it
// is injected with chrome.scripting and the message is sent once more. A stopped request stops
// waiting for the page's answer at once and injects or sends nothing more.
//
// A tab whose page crashed (see debugger.js) has no content script and takes no injection;
// Chrome then says only "Cannot access contents of the page", as for a page it keeps extensions
// out of. So a crash the debugger saw is reported as such (`page_crashed`: before anything is
// sent, or as soon as it happens while the page is being asked), and a failed injection into a
// tab Chrome reports as "unloaded" (no page running: crashed, discarded or not loaded yet) is
// `page_unloaded`, not `content_unavailable`.

import { CONTENT_CHANNEL, CONTENT_TIMEOUT_MS, HOPS } from "./constants.js";
import { PAGE_CRASHED, pageCrashedError, tabCrashes } from "./debugger.js";
import { OpError, requireTabId, stoppedError } from "./frames.js";
import { errorPageCause } from "./navigation.js";
import { onStop, throwIfStopped } from "./stopping.js";
import { getTab, pendingUrlOf } from "./tab-lookup.js";

const NO_RECEIVER = /receiving end does not exist|could not establish connection/i;
// The document went away under the injection: the page is navigating or reloading.
const DOCUMENT_GONE = /frame with id \d+ was removed|no frame with id/i;
// The load failed and Chrome shows its own error page, where no script runs.
const ERROR_PAGE = /showing error page/i;
const VIEW_SOURCE = /^view-source:/i;

export function contentScriptFiles(manifest) {
  const scripts = (manifest && manifest.content_scripts) || [];
  return scripts.length ? [...scripts[0].js] : [];
}

// `cdp(tabId, method, params)`: a CDP sender, used only to read why a tab shows the browser's
// error page when a request fails there.
// `known`: the tab as the caller read it a moment ago, instead of reading it again.
export async function runContent(chromeApi, args, { files, timeoutMs = CONTENT_TIMEOUT_MS, signal, refFloor = null, cdp = null, tab: known = null } = {}) {
  const tabId = requireTabId(args);
  if (typeof args.fn !== "string" || !args.fn) {
    throw new OpError("args.fn must name a content mechanism", { code: "bad_args" });
  }
  const crashes = tabCrashes(chromeApi);
  const tab = known && known.id === tabId ? known : await getTab(chromeApi, tabId);
  throwIfStopped(signal);
  if (crashes.has(tabId)) throw pageCrashedError(tabId);
  if (VIEW_SOURCE.test(tab.url || "")) {
    // Chrome takes no content script into a page's source view, and an injection there never
    // answers: said at once rather than after the request's bound.
    throw new OpError("Chrome does not let extensions into a view-source: page, so its content cannot be read or changed", {
      hop: HOPS.page,
      code: "content_unavailable",
    });
  }
  const message = { channel: CONTENT_CHANNEL, fn: args.fn, args: args.args ?? {} };
  const during = `the ${args.fn} mechanism`;
  const ask = () => sendWithTimeout(chromeApi, tabId, message, timeoutMs, signal, (fail) => crashes.onCrash(tabId, fail));

  if (refFloor) message.refFloor = await refFloor.take(tabId);
  let reply;
  try {
    reply = await askOnce(chromeApi, tabId, { files, crashes, ask, during, signal, timeoutMs, cdp });
  } finally {
    if (refFloor) refFloor.settle(tabId, reply && reply.refHigh);
  }
  return answerOf(reply, tab);
}

// The page's reply, asking once more after injecting the content script where none answered.
async function askOnce(chromeApi, tabId, { files, crashes, ask, during, signal, timeoutMs, cdp }) {
  let reply;
  try {
    reply = await ask();
  } catch (err) {
    if (crashes.has(tabId) && !isStopped(err)) {
      // No content script answered: the message reached nothing.
      throw NO_RECEIVER.test(messageOf(err)) ? pageCrashedError(tabId) : pageCrashedError(tabId, during);
    }
    if (!NO_RECEIVER.test(messageOf(err))) throw pageFailure(err);
    throwIfStopped(signal);
    await inject(chromeApi, tabId, files, crashes, timeoutMs, cdp);
    throwIfStopped(signal);
    try {
      reply = await ask();
    } catch (retryErr) {
      if (crashes.has(tabId) && !isStopped(retryErr)) throw pageCrashedError(tabId, during);
      throw pageFailure(retryErr);
    }
  }
  return reply;
}

function answerOf(reply, tab) {
  if (!reply || typeof reply !== "object") {
    throw new OpError("The content script gave no answer (the page may have navigated)", {
      hop: HOPS.page,
      code: "no_answer",
    });
  }
  if (!reply.ok) {
    const error = reply.error || {};
    throw new OpError(error.message || "Content mechanism failed", { hop: HOPS.page, code: error.code || "page_error" });
  }
  const answer = { value: reply.value === undefined ? null : reply.value };
  // The page answered, but the tab may be on its way elsewhere (a link to a slow server): the
  // answer is about the page it is leaving, and says so.
  const pending = pendingUrlOf(tab);
  if (pending) answer.pendingUrl = pending;
  return answer;
}

async function inject(chromeApi, tabId, files, crashes, timeoutMs, cdp) {
  let timer;
  try {
    // At once, not at document idle: a page whose parsing waits on a script or stylesheet that
    // never arrives would hold the injection (and the request) until its bound. What has been
    // parsed is read as it is. An injection Chrome never answers is given up after the same
    // bound as the page's answer.
    const injected = chromeApi.scripting.executeScript({ target: { tabId, frameIds: [0] }, files, injectImmediately: true });
    injected.catch(() => {}); // an injection given up on may still fail later
    const bound = new Promise((_, reject) => {
      timer = setTimeout(() => {
        reject(new OpError(`The page did not take the content script within ${timeoutMs} ms`, { hop: HOPS.page, code: "page_timeout" }));
      }, timeoutMs);
    });
    await Promise.race([injected, bound]);
  } catch (err) {
    if (err instanceof OpError) throw err;
    if (crashes.has(tabId)) throw pageCrashedError(tabId);
    if (ERROR_PAGE.test(messageOf(err))) {
      // What failed, as the error page shows it (best effort, bounded): the agent learns why
      // the tab has no page, not only that it has none.
      const errorPage = await errorPageCause(cdp, tabId);
      throw new OpError("The tab shows the browser's error page (the page did not load), so there is no page content to read", {
        hop: HOPS.page,
        code: "error_page",
        errorPage,
      });
    }
    if (DOCUMENT_GONE.test(messageOf(err))) {
      throw new OpError(`The page navigated or reloaded while it was being reached, so nothing ran on it: ${messageOf(err)}`, {
        hop: HOPS.page,
        code: "page_changed",
      });
    }
    const notRunning = await unloaded(chromeApi, tabId);
    if (notRunning) throw notRunning;
    // Chrome's own words, without its advice to the extension's author (a manifest change
    // would not help: Chrome keeps every extension out of these pages).
    const why = messageOf(err).replace(/\s*Extension manifest must request permission[^.]*\./i, "").replace(/\.\s*$/, "");
    throw new OpError(`Chrome does not let extensions into this page, so its content cannot be read or changed (${why})`, {
      hop: HOPS.page,
      code: "content_unavailable",
    });
  } finally {
    clearTimeout(timer);
  }
}

// The `page_unloaded` error when Chrome reports the tab has no running page, else null.
async function unloaded(chromeApi, tabId) {
  let tab;
  try {
    tab = await chromeApi.tabs.get(tabId);
  } catch {
    return null;
  }
  if (!tab || tab.status !== "unloaded") return null;
  const why = tab.discarded
    ? "Chrome discarded it to free memory"
    : "its renderer process is gone (the page crashed) or Chrome has not loaded it";
  return new OpError(`The page in tab ${tabId} is not running (${why}), so there is no page to reach; nothing was sent`, {
    hop: HOPS.page,
    code: "page_unloaded",
  });
}

function isStopped(err) {
  return err instanceof OpError && err.code === "stopped";
}

// `watchCrash(fail)`: registers `fail` for the tab's page crashing; returns its unregister.
function sendWithTimeout(chromeApi, tabId, message, timeoutMs, signal, watchCrash = () => () => {}) {
  return new Promise((resolve, reject) => {
    let offStop = () => {};
    let offCrash = () => {};
    const done = () => {
      clearTimeout(timer);
      offStop();
      offCrash();
    };
    const timer = setTimeout(() => {
      done();
      reject(new OpError(`The page did not answer within ${timeoutMs} ms`, { hop: HOPS.page, code: "page_timeout" }));
    }, timeoutMs);
    offStop = onStop(signal, () => {
      done();
      reject(stoppedError(signal.reason));
    });
    offCrash = watchCrash(() => {
      done();
      reject(new OpError("crashed", { hop: HOPS.page, code: PAGE_CRASHED }));
    });
    chromeApi.tabs.sendMessage(tabId, message, { frameId: 0 }).then(
      (value) => {
        done();
        resolve(value);
      },
      (err) => {
        done();
        reject(err);
      },
    );
  });
}

function pageFailure(err) {
  if (err instanceof OpError) return err;
  return new OpError(`Content script call failed: ${messageOf(err)}`, { hop: HOPS.page, code: "page_error" });
}

function messageOf(err) {
  return err && typeof err.message === "string" ? err.message : String(err);
}
