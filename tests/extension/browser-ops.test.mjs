// navigate, content and cdp operations against the fake chrome.* APIs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { navigate, navigationTimeout } = await import(lib("navigation.js"));
const { runContent, contentScriptFiles } = await import(lib("content-bridge.js"));
const { DebuggerSessions } = await import(lib("debugger.js"));
const { errorFrameFrom } = await import(lib("frames.js"));

const world = () => fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "https://a.test/", title: "A" }] });

// Simulates a page load: loading, then complete with a new URL and title.
function loadsOnNavigate(chromeApi) {
  chromeApi.onNavigate = (tab, url) => {
    setTimeout(() => {
      Object.assign(tab, { status: "loading", pendingUrl: url });
      chromeApi.tabs.onUpdated.fire(tab.id, { status: "loading" }, { ...tab });
      Object.assign(tab, { status: "complete", url, pendingUrl: undefined, title: "Loaded" });
      chromeApi.tabs.onUpdated.fire(tab.id, { status: "complete" }, { ...tab });
    }, 5);
  };
}

test("navigate waits for the load and reports the final page", async () => {
  const chromeApi = world();
  loadsOnNavigate(chromeApi);
  const out = await navigate(chromeApi, { tabId: 7, url: "example.com/x", timeoutMs: 2000 });
  assert.deepEqual(out, { url: "https://example.com/x", title: "Loaded", loaded: true });
  assert.equal(chromeApi.tabs.onUpdated.size, 0, "listeners removed");
});

test("navigate reports loaded:false when the bound passes, and started:false if the tab never moved", async () => {
  const chromeApi = world();
  const still = await navigate(chromeApi, { tabId: 7, url: "data:text/html,hi", timeoutMs: 30 });
  assert.deepEqual(still, { url: "https://a.test/", title: "A", loaded: false, started: false });

  chromeApi.onNavigate = (tab) => {
    Object.assign(tab, { status: "loading" });
    chromeApi.tabs.onUpdated.fire(tab.id, { status: "loading" }, { ...tab });
  };
  const slow = await navigate(chromeApi, { tabId: 7, url: "https://slow.test/", timeoutMs: 30 });
  assert.equal(slow.loaded, false);
  assert.equal("started" in slow, false, "a started navigation is the usual case");
});

test("navigate tells at once of a navigation the browser dropped without a page (a download, a 204)", async () => {
  const chromeApi = world();
  // Chrome names the URL as pending, then drops it: the tab never loads, its page stays.
  chromeApi.onNavigate = (tab, url) => {
    tab.pendingUrl = url;
    setTimeout(() => {
      tab.pendingUrl = undefined;
      tab.status = "complete";
    }, 5);
  };
  const out = await navigate(chromeApi, { tabId: 7, url: "https://a.test/report.bin", timeoutMs: 60_000 });
  assert.deepEqual(out, { url: "https://a.test/", title: "A", loaded: false, noPage: true, started: false });
  assert.equal(chromeApi.tabs.onUpdated.size, 0, "listeners removed");
});

test("navigate tells the HTTP status of a server's own error page", async () => {
  const chromeApi = world();
  loadsOnNavigate(chromeApi);
  chromeApi.onInject = async () => [{ frameId: 0, result: 404 }];
  const missing = await navigate(chromeApi, { tabId: 7, url: "https://a.test/gone", timeoutMs: 2000 });
  assert.deepEqual(missing, { url: "https://a.test/gone", title: "Loaded", loaded: true, httpStatus: 404 });
  chromeApi.onInject = async () => [{ frameId: 0, result: 200 }];
  const fine = await navigate(chromeApi, { tabId: 7, url: "https://a.test/ok", timeoutMs: 2000 });
  assert.equal("httpStatus" in fine, false, "a page that loaded fine says nothing more");
});

test("navigate tells a load that ended on the browser's error page", async () => {
  const chromeApi = world();
  loadsOnNavigate(chromeApi);
  chromeApi.onInject = async () => {
    throw new Error("Frame with ID 0 is showing error page");
  };
  const failed = await navigate(chromeApi, { tabId: 7, url: "http://127.0.0.1:1/", timeoutMs: 2000 });
  assert.deepEqual(failed, { url: "http://127.0.0.1:1/", title: "Loaded", loaded: true, errorPage: true });
  chromeApi.onInject = async () => {
    throw new Error("The extensions gallery cannot be scripted.");
  };
  const restricted = await navigate(chromeApi, { tabId: 7, url: "https://chromewebstore.google.com/", timeoutMs: 2000 });
  assert.equal("errorPage" in restricted, false);
  // A page paused in a dialog never answers the probe: navigate still returns (the probe has a
  // bound of its own), and the page is not called an error page.
  chromeApi.onInject = () => new Promise(() => {});
  const paused = await navigate(chromeApi, { tabId: 7, url: "https://paused.test/", timeoutMs: 2000 });
  assert.equal("errorPage" in paused, false);
});

test("navigate fails when the tab closes meanwhile or never existed", async () => {
  const chromeApi = world();
  chromeApi.onNavigate = (tab) => setTimeout(() => chromeApi.tabs.onRemoved.fire(tab.id), 5);
  await assert.rejects(navigate(chromeApi, { tabId: 7, url: "https://x.test/", timeoutMs: 1000 }), (e) => e.code === "tab_closed");
  await assert.rejects(navigate(chromeApi, { tabId: 99, url: "https://x.test/" }), (e) => e.code === "tab_not_found");
  await assert.rejects(navigate(chromeApi, { tabId: 7, url: "" }), (e) => e.code === "bad_args");
});

test("back steps to the previous entry of the tab's own history; none there is no_history", async () => {
  const chromeApi = world();
  const sent = [];
  const cdp = async (tabId, method, params) => {
    sent.push([method, params]);
    if (method === "Page.getNavigationHistory") return { currentIndex: 1, entries: [{ id: 11 }, { id: 13 }] };
    const tab = chromeApi.tabMap.get(tabId);
    setTimeout(() => {
      Object.assign(tab, { status: "complete", url: "https://prev.test/" });
      chromeApi.tabs.onUpdated.fire(tabId, { status: "loading" }, { ...tab });
      chromeApi.tabs.onUpdated.fire(tabId, { status: "complete" }, { ...tab });
    }, 5);
    return {};
  };
  const out = await navigate(chromeApi, { tabId: 7, url: "back", timeoutMs: 1000 }, { cdp });
  assert.deepEqual(sent.at(-1), ["Page.navigateToHistoryEntry", { entryId: 11 }]);
  assert.equal(out.url, "https://prev.test/");
  await assert.rejects(navigate(chromeApi, { tabId: 7, url: "forward", timeoutMs: 1000 }, { cdp: async () => ({ currentIndex: 0, entries: [{ id: 1 }] }) }), (e) => e.code === "no_history");
});

test("back and forward step the tab's own history exactly; the toolbar's way only without the debugger", async () => {
  const chromeApi = world();
  const toolbar = [];
  chromeApi.tabs.goBack = async () => toolbar.push("back");
  chromeApi.tabs.goForward = async () => toolbar.push("forward");
  const stepped = [];
  const cdp = async (tabId, method, params) => {
    if (method === "Page.getNavigationHistory") return { currentIndex: 0, entries: [{ id: 1 }, { id: 2 }, { id: 3 }] };
    stepped.push(params.entryId);
    const tab = chromeApi.tabMap.get(tabId);
    setTimeout(() => {
      Object.assign(tab, { status: "complete", url: `https://entry${params.entryId}.test/` });
      chromeApi.tabs.onUpdated.fire(tabId, { status: "loading" }, { ...tab });
      chromeApi.tabs.onUpdated.fire(tabId, { status: "complete" }, { ...tab });
    }, 5);
    return {};
  };
  const out = await navigate(chromeApi, { tabId: 7, url: "forward", timeoutMs: 1000 }, { cdp });
  assert.deepEqual([stepped, toolbar, out.url], [[2], [], "https://entry2.test/"]);

  const keptOut = async () => {
    throw new Error("Cannot access a chrome:// URL");
  };
  const tab = chromeApi.tabMap.get(7);
  chromeApi.tabs.goBack = async () => {
    toolbar.push("back");
    setTimeout(() => {
      Object.assign(tab, { status: "complete", url: "https://before.test/" });
      chromeApi.tabs.onUpdated.fire(7, { status: "loading" }, { ...tab });
      chromeApi.tabs.onUpdated.fire(7, { status: "complete" }, { ...tab });
    }, 5);
  };
  await navigate(chromeApi, { tabId: 7, url: "back", timeoutMs: 1000 }, { cdp: keptOut });
  assert.deepEqual(toolbar, ["back"]);
});

test("navigation timeout bounds", () => {
  assert.equal(navigationTimeout({}), 10_000);
  assert.equal(navigationTimeout({ timeoutMs: 500 }), 500);
  assert.equal(navigationTimeout({ timeoutMs: -5 }), 0);
  assert.equal(navigationTimeout({ timeoutMs: 1e9 }), 120_000);
});

test("content: runs a mechanism and returns its value", async () => {
  const chromeApi = world();
  const seen = [];
  chromeApi.onMessage = async (tabId, message) => {
    seen.push([tabId, message]);
    return { ok: true, value: { text: "hi" } };
  };
  assert.deepEqual(await runContent(chromeApi, { tabId: 7, fn: "page_text", args: { max_chars: 5 } }, { files: [] }), { value: { text: "hi" } });
  assert.deepEqual(seen, [[7, { channel: "ghostlight", fn: "page_text", args: { max_chars: 5 } }]]);
});

test("content: injects the script once and retries when nobody listens", async () => {
  const chromeApi = world();
  let injected = false;
  chromeApi.onMessage = async () => {
    if (!injected) throw new Error("Could not establish connection. Receiving end does not exist.");
    return { ok: true, value: 1 };
  };
  chromeApi.onInject = async () => {
    injected = true;
  };
  const out = await runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: ["page/dom.js", "content.js"] });
  assert.deepEqual(out, { value: 1 });
  const inject = chromeApi.calls.find(([n]) => n === "scripting.executeScript")[1];
  // At once: a page still parsing (a script it waits on never arrives) is read as parsed so far.
  assert.deepEqual(inject, { target: { tabId: 7, frameIds: [0] }, files: ["page/dom.js", "content.js"], injectImmediately: true });
});

test("content: blocked injection, page errors and silence are page-hop errors", async () => {
  const chromeApi = world();
  chromeApi.onMessage = async () => {
    throw new Error("Could not establish connection. Receiving end does not exist.");
  };
  chromeApi.onInject = async () => {
    throw new Error("Cannot access a chrome:// URL");
  };
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.hop === "page" && e.code === "content_unavailable" && /Chrome does not let extensions into this page/.test(e.message));

  chromeApi.onInject = async () => {
    throw new Error("Frame with ID 0 is showing error page");
  };
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.code === "error_page" && /browser's error page/.test(e.message) && !("errorPage" in e));
  // With the debugger at hand, the failure also says what the error page shows, and its
  // error frame carries that on.
  const asked = [];
  const cdp = async (tabId, method) => {
    asked.push([tabId, method]);
    return { result: { value: "ERR_CONNECTION_REFUSED" } };
  };
  const failure = await runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [], cdp }).catch((e) => e);
  assert.equal(failure.code, "error_page");
  assert.deepEqual(failure.errorPage, { netError: "ERR_CONNECTION_REFUSED" });
  assert.deepEqual(asked, [[7, "Runtime.evaluate"]]);
  assert.deepEqual(errorFrameFrom(3, failure).error.errorPage, { netError: "ERR_CONNECTION_REFUSED" });
  chromeApi.onInject = async () => {
    throw new Error("Frame with ID 0 was removed.");
  };
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.hop === "page" && e.code === "page_changed" && /navigated or reloaded/.test(e.message));

  chromeApi.onMessage = async () => ({ ok: false, error: { message: "Element ref_3 is stale", code: "stale_ref" } });
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "element_rect" }, { files: [] }), (e) => e.hop === "page" && e.code === "stale_ref");

  chromeApi.onMessage = async () => undefined;
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.code === "no_answer");

  chromeApi.onMessage = () => new Promise(() => {});
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [], timeoutMs: 20 }), (e) => e.code === "page_timeout");

  await assert.rejects(runContent(chromeApi, { tabId: 7 }, { files: [] }), (e) => e.code === "bad_args");
});

test("content: an injection Chrome never answers is given up after the bound; a source view is refused at once", async () => {
  const chromeApi = world();
  chromeApi.onMessage = async () => {
    throw new Error("Could not establish connection. Receiving end does not exist.");
  };
  chromeApi.onInject = () => new Promise(() => {});
  const started = Date.now();
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [], timeoutMs: 30 }), (e) => e.code === "page_timeout" && /did not take the content script within 30 ms/.test(e.message));
  assert.ok(Date.now() - started < 2000);

  let asked = 0;
  const source = fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "view-source:https://a.test/", title: "A" }] });
  source.onMessage = async () => {
    asked += 1;
    return { ok: true, value: 1 };
  };
  await assert.rejects(runContent(source, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.code === "content_unavailable" && /view-source: page/.test(e.message));
  assert.equal(asked, 0);
});

test("content script file list comes from the manifest", () => {
  assert.deepEqual(contentScriptFiles({ content_scripts: [{ js: ["a.js", "b.js"] }] }), ["a.js", "b.js"]);
  assert.deepEqual(contentScriptFiles({}), []);
});

test("cdp: attaches lazily once, with protocol 1.3", async () => {
  const chromeApi = world();
  chromeApi.onCommand = async (tabId, method) => ({ echoed: method });
  const d = new DebuggerSessions(chromeApi);
  const [a, b] = await Promise.all([d.send(7, "Runtime.evaluate", { expression: "1" }), d.send(7, "Page.enable")]);
  assert.deepEqual([a, b], [{ echoed: "Runtime.evaluate" }, { echoed: "Page.enable" }]);
  assert.deepEqual(chromeApi.calls.filter(([n]) => n === "debugger.attach"), [["debugger.attach", 7, "1.3"]]);
});

test("cdp: every attachment turns on focus emulation before the first command", async () => {
  // Background tabs are not drawn; without it a mouse move waits for Chrome's input fallback.
  const chromeApi = world();
  const seen = [];
  chromeApi.onCommand = async (tabId, method, params) => {
    seen.push([tabId, method, params]);
    return {};
  };
  const d = new DebuggerSessions(chromeApi);
  await Promise.all([d.send(7, "Input.dispatchMouseEvent", { type: "mouseMoved", x: 1, y: 1 }), d.send(7, "Page.enable")]);
  await d.send(8, "Page.enable");
  // Inspector first (it reports a page that crashed before the session began), then focus.
  assert.deepEqual(seen.slice(0, 2), [
    [7, "Inspector.enable", {}],
    [7, "Emulation.setFocusEmulationEnabled", { enabled: true }],
  ]);
  assert.deepEqual(
    seen.filter(([, m]) => m === "Emulation.setFocusEmulationEnabled").map(([t]) => t),
    [7, 8],
  );
  assert.equal(chromeApi.calls.filter(([n]) => n.startsWith("tabs.update") || n.startsWith("windows.update")).length, 0);
});

test("cdp: focus emulation is best effort, also on an adopted attachment", async () => {
  const chromeApi = world();
  chromeApi.onAttach = async () => {
    throw new Error("Another debugger is already attached to the tab with id: 7.");
  };
  const seen = [];
  chromeApi.onCommand = async (tabId, method) => {
    seen.push(method);
    if (method === "Emulation.setFocusEmulationEnabled") throw new Error("not supported here");
    return { ok: 1 };
  };
  const d = new DebuggerSessions(chromeApi);
  assert.deepEqual(await d.send(7, "Page.enable"), { ok: 1 });
  assert.deepEqual(seen, [
    "Inspector.enable",
    "Emulation.setFocusEmulationEnabled",
    "Network.enable",
    "Network.setBypassServiceWorker",
    "Page.enable",
  ]);
});

test("cdp: adopts an attachment that survived a worker restart", async () => {
  const chromeApi = world();
  chromeApi.onAttach = async () => {
    throw new Error("Another debugger is already attached to the tab with id: 7.");
  };
  const d = new DebuggerSessions(chromeApi);
  assert.deepEqual(await d.send(7, "Page.enable"), {});
});

test("cdp: re-attaches once when the session was dropped", async () => {
  const chromeApi = world();
  let attached = true;
  chromeApi.onAttach = async () => {
    attached = true;
  };
  chromeApi.onCommand = async () => {
    if (!attached) throw new Error("Debugger is not attached to the tab with id: 7.");
    return { ok: 1 };
  };
  const d = new DebuggerSessions(chromeApi);
  await d.send(7, "Page.enable");
  attached = false; // e.g. the user dismissed the debugging bar
  assert.deepEqual(await d.send(7, "Page.enable"), { ok: 1 });
  assert.equal(chromeApi.calls.filter(([n]) => n === "debugger.attach").length, 2);
});

test("cdp: failures carry hop cdp and name the method", async () => {
  const chromeApi = world();
  chromeApi.onCommand = async () => {
    throw new Error('{"code":-32601,"message":"\'Nope.x\' wasn\'t found"}');
  };
  const d = new DebuggerSessions(chromeApi);
  await assert.rejects(d.send(7, "Nope.x"), (e) => e.hop === "cdp" && e.code === "cdp_failed" && e.message.startsWith("Nope.x failed: "));
  chromeApi.onAttach = async () => {
    throw new Error("Cannot access a chrome:// URL");
  };
  // Chrome keeps extensions out of its own pages: that is a page out of reach, not a fault.
  await assert.rejects(new DebuggerSessions(chromeApi).send(7, "Page.enable"), (e) => e.hop === "cdp" && e.code === "content_unavailable");
  chromeApi.onAttach = async () => {
    throw new Error("Something else went wrong");
  };
  await assert.rejects(new DebuggerSessions(chromeApi).send(7, "Page.enable"), (e) => e.hop === "cdp" && e.code === "attach_failed");
  await assert.rejects(d.send(7, ""), (e) => e.code === "bad_args");
  await assert.rejects(d.send(7, "Page.enable", [1]), (e) => e.code === "bad_args");
});

test("cdp: the tab's blocked-URL list is carried into a session made again, and dropped with the tab", async () => {
  const chromeApi = world();
  const seen = [];
  chromeApi.onCommand = async (tabId, method, params) => {
    seen.push([method, params]);
    return {};
  };
  const d = new DebuggerSessions(chromeApi);
  await d.send(7, "Network.setBlockedURLs", { urls: ["*://bank.test/*"] });
  d.forget(7); // the user cancelled the session from the browser's bar
  seen.length = 0;
  await d.send(7, "Runtime.evaluate", { expression: "1" });
  const replayed = seen.findIndex(([m]) => m === "Network.setBlockedURLs");
  assert.ok(replayed >= 0 && replayed < seen.findIndex(([m]) => m === "Runtime.evaluate"), JSON.stringify(seen));
  assert.deepEqual(seen[replayed][1], { urls: ["*://bank.test/*"] });
  d.closed(7);
  seen.length = 0;
  await d.send(7, "Runtime.evaluate", { expression: "1" });
  assert.equal(seen.some(([m]) => m === "Network.setBlockedURLs"), false);
});

test("a new session's settings go out together, in order, without waiting for each answer", async () => {
  // One wait for all of them: in a busy browser each answer is a wait of its own.
  const chromeApi = world();
  const d = new DebuggerSessions(chromeApi);
  // The service set a blocked-URL list on a session that then went away (its worker restarted).
  await d.send(7, "Network.setBlockedURLs", { urls: ["*://a.test/*"] });
  d.forget(7);
  let release;
  const held = new Promise((resolve) => (release = resolve));
  const sent = [];
  chromeApi.onCommand = async (tabId, method) => {
    sent.push(method);
    if (method !== "Inspector.enable") await held;
    return {};
  };
  const preparing = d.prepare(7);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(sent, [
    "Inspector.enable",
    "Emulation.setFocusEmulationEnabled",
    "Network.enable",
    "Network.setBypassServiceWorker",
    "Network.setBlockedURLs",
  ]);
  release();
  await preparing;
});

test("made: waits for a session being made, with its settings, and not for one that is not", async () => {
  const chromeApi = world();
  let release;
  const held = new Promise((resolve) => (release = resolve));
  const seen = [];
  chromeApi.onCommand = async (tabId, method) => {
    if (method === "Network.setBypassServiceWorker") await held;
    seen.push(method);
    return {};
  };
  const d = new DebuggerSessions(chromeApi);
  await d.made(7); // nothing being made: at once
  const preparing = d.prepare(7);
  let madeYet = false;
  const made = d.made(7).then(() => (madeYet = true));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(madeYet, false, "not before the workers are kept out");
  release();
  await Promise.all([preparing, made]);
  assert.ok(seen.includes("Network.setBypassServiceWorker"));
});
