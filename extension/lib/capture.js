// The `capture_read` operation: starts console or network capture for a tab on first use
// (enabling the CDP domain through the tab's debugger session) and returns what is buffered.
// Which tabs were capturing is mirrored in chrome.storage.session, so a read after a worker
// restart can say that earlier entries were lost instead of silently showing fewer.

import { OpError, requireTabId } from "./frames.js";
import { KINDS, hostOf } from "./event-buffers.js";
import { getTab, tabUrl } from "./tab-lookup.js";

const DOMAIN_ENABLE = Object.freeze({ console: "Runtime.enable", network: "Network.enable" });
const STORAGE_KEY = "ghostlight_capture";
const RESTART_NOTE = "the extension's service worker restarted, which empties the buffers";

export function createCapture({ chromeApi, buffers, cdp, sessionArea }) {
  async function remembered() {
    const stored = sessionArea ? await sessionArea.get(STORAGE_KEY) : null;
    const list = stored && Array.isArray(stored[STORAGE_KEY]) ? stored[STORAGE_KEY] : [];
    return new Set(list);
  }

  async function remember(key) {
    if (!sessionArea) return;
    const keys = await remembered();
    keys.add(key);
    await sessionArea.set({ [STORAGE_KEY]: [...keys].slice(-500) });
  }

  async function captureRead(args) {
    const tabId = requireTabId(args);
    const kind = args.kind;
    if (!KINDS.includes(kind)) throw new OpError(`args.kind must be one of ${KINDS.join(", ")}`, { code: "bad_args" });
    const tab = await getTab(chromeApi, tabId);
    const host = hostOf(tabUrl(tab));
    let started = false;
    let reset = null;
    if (!buffers.isCapturing(tabId, kind)) {
      const key = `${tabId}:${kind}`;
      if ((await remembered()).has(key) && !buffers.tabs.has(tabId)) reset = RESTART_NOTE;
      buffers.start(tabId, kind, host);
      try {
        await cdp(tabId, DOMAIN_ENABLE[kind], {});
      } catch (err) {
        buffers.stop(tabId, "capture could not start");
        throw err;
      }
      await remember(key);
      started = true;
    } else {
      buffers.noteHost(tabId, host);
    }
    const out = buffers.read(tabId, kind, { clear: args.clear === true });
    return { kind, started, ...out, reset: out.reset || reset };
  }

  return { captureRead };
}
