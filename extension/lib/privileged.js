// Pages no agent is let into, whatever the service asks: the browser's own pages and every
// extension's (script in Ghostlight's own origin reaches chrome.tabs, chrome.debugger and
// chrome.storage: every tab of every workspace, and the computer's files through them), and the
// computer's files. This is the extension's floor under the service's protected-scheme rule
// (specs/governance.md): a tab found on such a page is neither read, scripted, captured nor
// driven, a navigation there is refused, and one that lands there anyway (a redirect, a step
// through history) is moved to about:blank. Leaving, reloading, focusing and closing the tab
// stay possible.

import { OpError } from "./frames.js";
import { getTab } from "./tab-lookup.js";

export const PROTECTED_PAGE = "protected_page";

const PRIVILEGED_SCHEMES = new Set([
  "about", // about:settings and the like are the browser's own pages; blank and srcdoc are not
  "chrome",
  "chrome-extension",
  "chrome-untrusted",
  "chrome-search",
  "chrome-native",
  "chrome-devtools",
  "devtools",
  "edge",
  "brave",
  "opera",
  "vivaldi",
  "extension",
  "isolated-app",
  "moz-extension",
  "file",
]);
// Judged by the URL they wrap: view-source:chrome://settings shows what chrome://settings does.
const WRAPPERS = new Set(["view-source", "blob", "filesystem"]);
const OPEN_ABOUT = new Set(["about:blank", "about:srcdoc"]);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
// What the browser ignores in a URL before reading its scheme.
const IGNORED = /[\t\n\r]/g;

// The scheme that makes `url` a page no agent enters ("chrome-extension", "file", ...), or null.
export function privilegedScheme(url) {
  if (typeof url !== "string") return null;
  const text = url.replace(IGNORED, "").replace(/^[\u0000-\u0020]+/, "");
  const match = SCHEME.exec(text);
  if (!match) return null;
  const scheme = match[1].toLowerCase();
  if (WRAPPERS.has(scheme)) return privilegedScheme(text.slice(match[0].length));
  if (scheme === "about") {
    const page = text.toLowerCase().split(/[?#]/, 1)[0];
    return OPEN_ABOUT.has(page) ? null : scheme;
  }
  return PRIVILEGED_SCHEMES.has(scheme) ? scheme : null;
}

// The refusal for tab `tabId` on (or on its way to) a page of `scheme`.
export function protectedPageError(tabId, scheme, what = "shows") {
  return new OpError(
    `Tab ${tabId} ${what} a ${scheme}: page, which no agent may read, script, capture or drive; nothing was sent`,
    { code: PROTECTED_PAGE },
  );
}

// The refusal of a navigation to such a page (before anything was asked of the browser).
export function protectedTargetError(scheme) {
  return new OpError(
    `${scheme}: pages are never opened for an agent (the browser's own pages, its extensions' and the computer's files); nothing was opened`,
    { code: PROTECTED_PAGE },
  );
}

// Throws when the tab shows such a page, or is on its way to one. A tab that cannot be read
// fails as gone (`tab_not_found`), unless `unreadable: "pass"` leaves that to the caller's own
// next step (attaching the debugger says the same of a closed tab).
// `read(tabId)`: how the tab is read (getTab by default; the worker's kept views, tab-views.js).
export async function refuseProtectedTab(chromeApi, tabId, { unreadable = "fail", read = null } = {}) {
  let tab;
  try {
    tab = await (read ? read(tabId) : getTab(chromeApi, tabId));
  } catch (err) {
    if (unreadable === "pass") return null;
    throw err;
  }
  const shown = privilegedScheme(tab.url);
  if (shown) throw protectedPageError(tabId, shown);
  const coming = privilegedScheme(tab.pendingUrl);
  if (coming) throw protectedPageError(tabId, coming, "is on its way to");
  return tab;
}
