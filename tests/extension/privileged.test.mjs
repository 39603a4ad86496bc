// The extension's floor: no agent is let into the browser's own pages, an extension's or a file,
// whatever the service asks (navigate, history, a landing, the debugger, tab creation).
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { privilegedScheme, refuseProtectedTab } = await import(lib("privileged.js"));
const { navigate } = await import(lib("navigation.js"));
const { DebuggerSessions } = await import(lib("debugger.js"));

const OWN = "chrome-extension://hgjbmbmgbodbkmedffdmejgepdfckjpe/manifest.json";
const world = (url = "https://a.test/") =>
  fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url, title: "A" }] });

test("every spelling of a privileged page is one, web pages and blank are not", () => {
  const refused = {
    [OWN]: "chrome-extension",
    "CHROME-EXTENSION://abc/popup.html": "chrome-extension",
    " \tchrome-extension://abc/x": "chrome-extension",
    "chrome://settings": "chrome",
    "chrome-untrusted://print/": "chrome-untrusted",
    "devtools://devtools/bundled/inspector.html": "devtools",
    "edge://settings": "edge",
    "brave://settings": "brave",
    "about:settings": "about",
    "about:version": "about",
    "view-source:chrome-extension://abc/manifest.json": "chrome-extension",
    "view-source:file:///etc/passwd": "file",
    "blob:chrome-extension://abc/1234": "chrome-extension",
    "filesystem:chrome-extension://abc/temporary/x": "chrome-extension",
    "file:///etc/passwd": "file",
    "FiLe:/etc/passwd": "file",
  };
  for (const [url, scheme] of Object.entries(refused)) assert.equal(privilegedScheme(url), scheme, url);
  for (const url of ["https://a.test/", "http://127.0.0.1:8000/", "about:blank", "about:blank#x", "about:srcdoc", "data:text/html,hi", "blob:https://a.test/1", "", null, undefined]) {
    assert.equal(privilegedScheme(url), null, String(url));
  }
});

test("navigate refuses a privileged target before asking anything of the browser", async () => {
  for (const url of [OWN, "chrome://settings", "view-source:" + OWN, "about:settings"]) {
    const chromeApi = world();
    await assert.rejects(navigate(chromeApi, { tabId: 7, url, timeoutMs: 1000 }), (e) => e.code === "protected_page", url);
    assert.equal(chromeApi.calls.filter(([n]) => n === "tabs.update").length, 0, `${url}: nothing asked`);
  }
});

test("a navigation that lands on a privileged page (a redirect) is refused and the tab moved to about:blank", async () => {
  const chromeApi = world();
  chromeApi.onNavigate = (tab, url) => {
    if (url === "about:blank") {
      Object.assign(tab, { url, status: "complete" });
      return;
    }
    setTimeout(() => {
      Object.assign(tab, { status: "loading" });
      chromeApi.tabs.onUpdated.fire(tab.id, { status: "loading" }, { ...tab });
      Object.assign(tab, { status: "complete", url: OWN, title: "manifest" });
      chromeApi.tabs.onUpdated.fire(tab.id, { status: "complete" }, { ...tab });
    }, 5);
  };
  await assert.rejects(navigate(chromeApi, { tabId: 7, url: "https://redirects.test/", timeoutMs: 2000 }), (e) => e.code === "protected_page");
  assert.equal(chromeApi.tabMap.get(7).url, "about:blank");
});

test("back into a privileged history entry is refused, nothing stepped", async () => {
  const chromeApi = world();
  chromeApi.onCommand = async (tabId, method) => {
    if (method === "Page.getNavigationHistory") {
      return { currentIndex: 1, entries: [{ id: 1, url: OWN }, { id: 2, url: "https://a.test/" }] };
    }
    if (method === "Page.navigateToHistoryEntry") throw new Error("must not step");
    return {};
  };
  const d = new DebuggerSessions(chromeApi);
  const cdp = (tabId, method, params) => d.send(tabId, method, params);
  await assert.rejects(navigate(chromeApi, { tabId: 7, url: "back", timeoutMs: 500 }, { cdp }), (e) => e.code === "protected_page");
});

test("the debugger never attaches to a tab on a privileged page, nor to one going there", async () => {
  for (const tab of [{ url: OWN }, { url: "https://a.test/", pendingUrl: "chrome://settings" }]) {
    const chromeApi = world(tab.url);
    if (tab.pendingUrl) chromeApi.tabMap.get(7).pendingUrl = tab.pendingUrl;
    chromeApi.onCommand = async () => ({ result: { value: "ran" } });
    const d = new DebuggerSessions(chromeApi);
    await assert.rejects(d.send(7, "Runtime.evaluate", { expression: "chrome.tabs" }), (e) => e.code === "protected_page");
    assert.equal(chromeApi.calls.filter(([n]) => n === "debugger.attach").length, 0);
  }
});

test("refuseProtectedTab passes web pages, refuses privileged ones, and says when the tab is gone", async () => {
  const chromeApi = world();
  assert.equal((await refuseProtectedTab(chromeApi, 7)).id, 7);
  chromeApi.tabMap.get(7).url = "file:///home/user/.ssh/id_rsa";
  await assert.rejects(refuseProtectedTab(chromeApi, 7), (e) => e.code === "protected_page" && /file: page/.test(e.message));
  await assert.rejects(refuseProtectedTab(chromeApi, 99), (e) => e.code === "tab_not_found");
  assert.equal(await refuseProtectedTab(chromeApi, 99, { unreadable: "pass" }), null);
});
