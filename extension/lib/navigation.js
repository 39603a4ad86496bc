// The navigate operation: start a navigation (URL, back or forward) and wait, bounded, for
// the tab to report a completed load through chrome.tabs.onUpdated. A stopped request ends
// the wait at once; it does not stop the navigation itself (the kill switch stops the loads
// of the agents' tabs separately: stop-loads.js).

import { NAVIGATE_DEFAULT_TIMEOUT_MS, NAVIGATE_MAX_TIMEOUT_MS } from "./constants.js";
import { OpError, requireTabId, stoppedError } from "./frames.js";
import { privilegedScheme, protectedPageError, protectedTargetError } from "./privileged.js";
import { onStop, throwIfStopped } from "./stopping.js";
import { getTab, tabUrl } from "./tab-lookup.js";
import { normalizeNavigateTarget } from "./urls.js";

// Safety net for loads whose events we might miss (e.g. a same-document navigation).
const POLL_MS = 500;
// Chrome's own error page (refused connection, unknown host, ...) completes a load like any
// page; only an injection tells it apart, refused with this message.
const ERROR_PAGE = /showing error page/i;
const ERROR_PAGE_PROBE_MS = 1000;
// What the error page shows as its code: a net error (ERR_TOO_MANY_REDIRECTS, a DNS_PROBE_...
// state), or "HTTP ERROR 500" for an HTTP error answered without a page. No script of ours runs
// there, but the debugger's Runtime.evaluate does. The shown code comes first: Chrome updates
// it once a DNS probe ends; the page's own data holds the code it started with.
const ERROR_CODE_EXPRESSION = `(() => {
  if (location.protocol !== "chrome-error:") return "";
  const shown = document.querySelector(".error-code");
  const data = typeof loadTimeDataRaw === "object" && loadTimeDataRaw ? loadTimeDataRaw.errorCode : "";
  return String((shown && shown.textContent) || data || "").trim();
})()`;
// Reading the cause is best effort, on the error-page path only, and never holds navigate long.
const ERROR_CAUSE_MS = 1000;
const NET_ERROR_CODE = /^(?:ERR|DNS_PROBE)_[A-Z0-9_]{1,60}$/;
const HTTP_ERROR_CODE = /^HTTP ERROR (\d{3})$/i;

export function navigationTimeout(args) {
  const value = args ? args.timeoutMs : undefined;
  if (!Number.isFinite(value)) return NAVIGATE_DEFAULT_TIMEOUT_MS;
  return Math.min(Math.max(0, Math.floor(value)), NAVIGATE_MAX_TIMEOUT_MS);
}

// deps.cdp(tabId, method, params): a CDP sender, used when Chrome's own back/forward
// refuses an entry (Chrome skips entries it considers unvisited, e.g. pages the user never
// interacted with, but the agent asked for exactly that entry), and to read why a load ended
// on Chrome's error page. deps.signal: the request's stop signal.
export async function navigate(chromeApi, args, deps = {}) {
  const tabId = requireTabId(args);
  let target;
  try {
    target = normalizeNavigateTarget(args.url);
  } catch (err) {
    throw new OpError(err.message, { code: "bad_args" });
  }
  const refused = target.kind === "url" ? privilegedScheme(target.url) : null;
  if (refused) throw protectedTargetError(refused);
  const before = await getTab(chromeApi, tabId);
  throwIfStopped(deps.signal);
  const waiter = watchLoad(chromeApi, tabId, tabUrl(before), navigationTimeout(args), deps.signal);
  try {
    if (target.kind === "url") {
      const updated = await chromeApi.tabs.update(tabId, { url: target.url });
      if (updated && updated.pendingUrl) waiter.requested();
    } else await stepHistory(chromeApi, tabId, target.kind, deps.cdp, deps.signal);
  } catch (err) {
    waiter.cancel();
    if (err instanceof OpError) throw err;
    throw new OpError(`Navigation failed: ${messageOf(err)}`, { code: "navigate_failed" });
  }
  const { loaded, started, dropped } = await waiter.done;
  const after = await getTab(chromeApi, tabId);
  await leaveProtectedLanding(chromeApi, tabId, after);
  const out = { url: after.url || tabUrl(after), title: after.title || "", loaded };
  // A navigation waiting for a slow server has not committed yet: the tab still shows its page,
  // but Chrome names where it is going.
  if (!loaded && after.pendingUrl) out.pendingUrl = after.pendingUrl;
  else if (dropped) {
    // Asked for, then answered without a page to show. `started: false` too, for a service that
    // does not know `noPage`: it then says the navigation did not start, never that it loaded.
    out.noPage = true;
    out.started = false;
  }
  else if (!started) out.started = false; // the tab never began to move: nothing was loaded
  if (loaded) {
    const page = await probeLoadedPage(chromeApi, tabId);
    if (page.errorPage) Object.assign(out, { errorPage: true }, await errorPageCause(deps.cdp, tabId));
    // The server's own error page (404, 500, ...) loads like any page: its status says it is one.
    if (page.status >= 400) out.httpStatus = page.status;
  }
  return out;
}

// A navigation that landed (or is landing) on a page no agent may enter, by a redirect or a
// step through history: the tab is moved to about:blank and the navigation is refused.
async function leaveProtectedLanding(chromeApi, tabId, tab) {
  const scheme = privilegedScheme(tab.url) || privilegedScheme(tab.pendingUrl);
  if (!scheme) return;
  try {
    await chromeApi.tabs.update(tabId, { url: "about:blank" });
  } catch {
    throw protectedPageError(tabId, scheme, "was taken to");
  }
  throw protectedPageError(tabId, scheme, "was taken to (and has been moved to about:blank from)");
}

// The HTTP status the page's document came with (0 when not known: a page that is not HTTP, a
// browser without the field).
function responseStatus() {
  const entry = performance.getEntriesByType("navigation")[0];
  return entry && Number.isInteger(entry.responseStatus) ? entry.responseStatus : 0;
}

// What the loaded page is: Chrome's error page (it refuses an injection into it at once), and
// the HTTP status of a page that took one. A page that is slow to answer (busy, or paused in a
// dialog) is neither, and is not waited for.
async function probeLoadedPage(chromeApi, tabId) {
  let timer;
  const probe = chromeApi.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: responseStatus });
  const slow = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), ERROR_PAGE_PROBE_MS);
  });
  try {
    const ran = await Promise.race([probe, slow]);
    const status = Array.isArray(ran) && ran[0] && Number.isInteger(ran[0].result) ? ran[0].result : 0;
    return { errorPage: false, status };
  } catch (err) {
    return { errorPage: ERROR_PAGE.test(messageOf(err)), status: 0 };
  } finally {
    clearTimeout(timer);
    probe.catch(() => {}); // a late failure of an abandoned probe is not "unhandled"
  }
}

// Why the tab shows Chrome's error page: `{netError}` (plus `httpStatus` for an HTTP error
// answered without a page), or `{}` when it cannot be read in time (no debugger, a failed
// command, a slow answer).
export async function errorPageCause(cdp, tabId) {
  if (!cdp) return {};
  let timer;
  const asked = Promise.resolve().then(() => cdp(tabId, "Runtime.evaluate", { expression: ERROR_CODE_EXPRESSION, returnByValue: true }));
  const slow = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), ERROR_CAUSE_MS);
  });
  try {
    const answer = await Promise.race([asked, slow]);
    return parseErrorCode(answer && answer.result ? answer.result.value : null);
  } catch {
    return {};
  } finally {
    clearTimeout(timer);
    asked.catch(() => {}); // a late failure of an abandoned read is not "unhandled"
  }
}

// The error page's shown code as wire fields; anything else is not trusted to be one.
export function parseErrorCode(code) {
  if (typeof code !== "string") return {};
  const text = code.trim();
  const http = HTTP_ERROR_CODE.exec(text);
  if (http) return { netError: "ERR_HTTP_RESPONSE_CODE_FAILURE", httpStatus: Number(http[1]) };
  return NET_ERROR_CODE.test(text) ? { netError: text } : {};
}

// One entry back or forward, exactly. chrome.tabs.goBack/goForward act as the toolbar buttons
// do, and those skip entries Chrome deems the user would not want to return to (an agent's own
// navigations among them): "forward" could land two pages on, or on the page it left. The
// tab's own history, read and stepped through the debugger, is used where it can be; the
// toolbar's way only where the debugger cannot attach.
async function stepHistory(chromeApi, tabId, direction, cdp, signal) {
  let history = null;
  if (cdp) {
    try {
      history = await cdp(tabId, "Page.getNavigationHistory", {});
    } catch {
      history = null; // the debugger is kept out of this page: the toolbar's way, below
    }
  }
  throwIfStopped(signal);
  if (history && Array.isArray(history.entries)) {
    const entry = history.entries[history.currentIndex + (direction === "back" ? -1 : 1)];
    if (!entry) throw noHistory(direction);
    const refused = privilegedScheme(entry.url);
    if (refused) throw protectedTargetError(refused);
    await cdp(tabId, "Page.navigateToHistoryEntry", { entryId: entry.id });
    return;
  }
  try {
    if (direction === "back") await chromeApi.tabs.goBack(tabId);
    else await chromeApi.tabs.goForward(tabId);
  } catch {
    throw noHistory(direction);
  }
}

function noHistory(direction) {
  const which = direction === "back" ? "previous" : "next";
  return new OpError(`Cannot go ${direction}: no ${which} page in this tab's history`, { code: "no_history" });
}

function messageOf(err) {
  return err && err.message ? err.message : String(err);
}

// Resolves to {loaded: true} once a load completes after the navigation began, and to
// {loaded: false, started} on timeout (started: the tab began loading or changed its URL);
// rejects if the tab closes meanwhile or the request is stopped.
//
// A navigation Chrome requested (the tab named it as its pending URL) that it then dropped
// without loading anything, the tab back at rest on its old page, was answered without a page:
// a file download, or an empty response (204). That resolves at once to {loaded: false,
// started: true, dropped: true} instead of waiting out the bound.
function watchLoad(chromeApi, tabId, startUrl, timeoutMs, signal) {
  let finish;
  let fail;
  let started = false;
  let requested = false;
  const done = new Promise((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  done.catch(() => {}); // observed by navigate; a failure before it awaits is not "unhandled"
  const onUpdated = (id, change, tab) => {
    if (id !== tabId) return;
    if (change.status === "loading" || (change.url && change.url !== startUrl)) started = true;
    if (change.status === "complete" && (started || tabUrl(tab) !== startUrl)) settle(true);
  };
  const onRemoved = (id) => {
    if (id !== tabId) return;
    cleanup();
    fail(new OpError(`Tab ${tabId} was closed while navigating`, { code: "tab_closed" }));
  };
  const poll = setInterval(async () => {
    try {
      const tab = await chromeApi.tabs.get(tabId);
      if (tab.status === "complete" && (started || tabUrl(tab) !== startUrl)) settle(true);
      else if (requested && !started && !tab.pendingUrl && tab.status === "complete") settle(false, true);
    } catch {
      // onRemoved reports a closed tab
    }
  }, POLL_MS);
  const timer = setTimeout(() => settle(false), timeoutMs);
  let offStop = () => {};
  function cleanup() {
    offStop();
    clearInterval(poll);
    clearTimeout(timer);
    chromeApi.tabs.onUpdated.removeListener(onUpdated);
    chromeApi.tabs.onRemoved.removeListener(onRemoved);
  }
  function settle(loaded, dropped = false) {
    cleanup();
    finish(dropped ? { loaded, started: true, dropped } : { loaded, started: loaded || started });
  }
  chromeApi.tabs.onUpdated.addListener(onUpdated);
  chromeApi.tabs.onRemoved.addListener(onRemoved);
  offStop = onStop(signal, () => {
    cleanup();
    fail(stoppedError(signal.reason));
  });
  return {
    done,
    cancel: () => settle(false),
    requested: () => {
      requested = true;
    },
  };
}
