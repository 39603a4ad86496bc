// Runs a named content-script mechanism in a tab's top frame. If the content script is not
// there (tab opened before install, page loaded before the worker, restricted timing), it
// is injected with chrome.scripting and the message is sent once more. A stopped request stops
// waiting for the page's answer at once and injects or sends nothing more.

import { CONTENT_CHANNEL, CONTENT_TIMEOUT_MS, HOPS } from "./constants.js";
import { OpError, requireTabId, stoppedError } from "./frames.js";
import { onStop, throwIfStopped } from "./stopping.js";
import { getTab } from "./tab-lookup.js";

const NO_RECEIVER = /receiving end does not exist|could not establish connection/i;
// The document went away under the injection: the page is navigating or reloading.
const DOCUMENT_GONE = /frame with id \d+ was removed|no frame with id/i;
// The load failed and Chrome shows its own error page, where no script runs.
const ERROR_PAGE = /showing error page/i;

export function contentScriptFiles(manifest) {
  const scripts = (manifest && manifest.content_scripts) || [];
  return scripts.length ? [...scripts[0].js] : [];
}

export async function runContent(chromeApi, args, { files, timeoutMs = CONTENT_TIMEOUT_MS, signal } = {}) {
  const tabId = requireTabId(args);
  if (typeof args.fn !== "string" || !args.fn) {
    throw new OpError("args.fn must name a content mechanism", { code: "bad_args" });
  }
  await getTab(chromeApi, tabId);
  throwIfStopped(signal);
  const message = { channel: CONTENT_CHANNEL, fn: args.fn, args: args.args ?? {} };

  let reply;
  try {
    reply = await sendWithTimeout(chromeApi, tabId, message, timeoutMs, signal);
  } catch (err) {
    if (!NO_RECEIVER.test(messageOf(err))) throw pageFailure(err);
    throwIfStopped(signal);
    await inject(chromeApi, tabId, files);
    throwIfStopped(signal);
    try {
      reply = await sendWithTimeout(chromeApi, tabId, message, timeoutMs, signal);
    } catch (retryErr) {
      throw pageFailure(retryErr);
    }
  }
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
  return { value: reply.value === undefined ? null : reply.value };
}

async function inject(chromeApi, tabId, files) {
  try {
    await chromeApi.scripting.executeScript({ target: { tabId, frameIds: [0] }, files });
  } catch (err) {
    if (ERROR_PAGE.test(messageOf(err))) {
      throw new OpError("The tab shows the browser's error page (the page did not load), so there is no page content to read", {
        hop: HOPS.page,
        code: "error_page",
      });
    }
    if (DOCUMENT_GONE.test(messageOf(err))) {
      throw new OpError(`The page navigated or reloaded while it was being reached, so nothing ran on it: ${messageOf(err)}`, {
        hop: HOPS.page,
        code: "page_changed",
      });
    }
    // Chrome's own words, without its advice to the extension's author (a manifest change
    // would not help: Chrome keeps every extension out of these pages).
    const why = messageOf(err).replace(/\s*Extension manifest must request permission[^.]*\./i, "").replace(/\.\s*$/, "");
    throw new OpError(`Chrome does not let extensions into this page, so its content cannot be read or changed (${why})`, {
      hop: HOPS.page,
      code: "content_unavailable",
    });
  }
}

function sendWithTimeout(chromeApi, tabId, message, timeoutMs, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      offStop();
      reject(new OpError(`The page did not answer within ${timeoutMs} ms`, { hop: HOPS.page, code: "page_timeout" }));
    }, timeoutMs);
    const offStop = onStop(signal, () => {
      clearTimeout(timer);
      reject(stoppedError(signal.reason));
    });
    chromeApi.tabs.sendMessage(tabId, message, { frameId: 0 }).then(
      (value) => {
        clearTimeout(timer);
        offStop();
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        offStop();
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
