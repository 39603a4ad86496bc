// The kill switch also stops the loads still running in the agents' tabs, as the browser's Stop
// button does: CDP Page.stopLoading, else window.stop() in the page, each bounded. Tabs outside
// the workspaces and tabs at rest are left alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { stopWorkspaceLoads } = await import(lib("stop-loads.js"));
const { createDispatcher } = await import(lib("dispatcher.js"));

const never = () => new Promise(() => {});
const tick = () => new Promise((r) => setTimeout(r, 5));

// Tab 7 and 8 are in a workspace; 9 is the user's own.
function world(tabs) {
  return fakeChrome({ windows: [{ id: 1 }], tabs: tabs.map((t, index) => ({ windowId: 1, index, url: "https://a.test/", ...t })) });
}
const workspaceTabs = new Set([7, 8]);
const isWorkspaceTab = (tabId) => workspaceTabs.has(tabId);

function recordingCdp(answer = async () => ({})) {
  const sent = [];
  const cdp = (tabId, method, params) => {
    sent.push([tabId, method, params]);
    return answer(tabId, method, params);
  };
  return { sent, cdp };
}

const injections = (chromeApi) => chromeApi.calls.filter(([name]) => name === "scripting.executeScript");

test("a loading workspace tab gets Page.stopLoading, and nothing is injected", async () => {
  const chromeApi = world([
    { id: 7, status: "loading", pendingUrl: "https://slow.test/" },
    { id: 8, status: "complete", pendingUrl: "https://slow.test/b" }, // a navigation not yet reported as loading
  ]);
  const { sent, cdp } = recordingCdp();
  const stopped = await stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp });
  assert.deepEqual(stopped, [7, 8]);
  assert.deepEqual(sent, [
    [7, "Page.stopLoading", {}],
    [8, "Page.stopLoading", {}],
  ]);
  assert.equal(injections(chromeApi).length, 0);
});

test("a loading tab outside every workspace is left alone", async () => {
  const chromeApi = world([{ id: 9, status: "loading", pendingUrl: "https://mine.test/" }]);
  const { sent, cdp } = recordingCdp();
  assert.deepEqual(await stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp }), []);
  assert.deepEqual(sent, []);
  assert.equal(injections(chromeApi).length, 0);
});

test("a workspace tab at rest is left alone", async () => {
  const chromeApi = world([
    { id: 7, status: "complete" },
    { id: 8, status: "loading" },
  ]);
  const { sent, cdp } = recordingCdp();
  assert.deepEqual(await stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp }), [8]);
  assert.deepEqual(sent.map(([tabId]) => tabId), [8]);
});

test("when the debugger cannot stop the load, window.stop() is injected in the page", async () => {
  const chromeApi = world([{ id: 7, status: "loading", url: "chrome://settings/" }]);
  const { cdp } = recordingCdp(async () => {
    throw new Error("Cannot access a chrome:// URL");
  });
  assert.deepEqual(await stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp }), [7]);
  const [[, details]] = injections(chromeApi);
  assert.deepEqual(details.target, { tabId: 7 });
  assert.equal(details.injectImmediately, true, "a loading page has not reached document_idle");
  let stops = 0;
  globalThis.window = { stop: () => (stops += 1) };
  try {
    details.func();
  } finally {
    delete globalThis.window;
  }
  assert.equal(stops, 1, "the injected function calls window.stop()");
});

test("a tab that can be stopped neither way does not make the call fail", async () => {
  const chromeApi = world([{ id: 7, status: "loading" }]);
  chromeApi.onInject = async () => {
    throw new Error("No tab with id: 7.");
  };
  const { cdp } = recordingCdp(async () => {
    throw new Error("No tab with given id 7.");
  });
  assert.deepEqual(await stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp }), [7]);
  assert.equal(injections(chromeApi).length, 1);
});

test("a CDP command that never answers is bounded and does not hold up the other tabs", async () => {
  const chromeApi = world([
    { id: 7, status: "loading" },
    { id: 8, status: "loading" },
  ]);
  const { sent, cdp } = recordingCdp((tabId) => (tabId === 7 ? never() : Promise.resolve({})));
  const started = Date.now();
  const outcome = await Promise.race([
    stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp, boundMs: 30 }),
    new Promise((r) => setTimeout(() => r("still waiting"), 1000)),
  ]);
  assert.deepEqual(outcome, [7, 8]);
  assert.ok(Date.now() - started < 1000);
  assert.deepEqual(sent.map(([tabId]) => tabId).sort(), [7, 8], "both asked at once");
});

test("a workspace question that cannot be answered yet means not a workspace tab", async () => {
  const chromeApi = world([{ id: 7, status: "loading" }]);
  const { sent, cdp } = recordingCdp();
  const unready = () => {
    throw new Error("book not restored");
  };
  assert.deepEqual(await stopWorkspaceLoads(chromeApi, { isWorkspaceTab: unready, cdp }), []);
  assert.deepEqual(sent, []);

  chromeApi.tabs.query = async () => {
    throw new Error("tabs unavailable");
  };
  assert.deepEqual(await stopWorkspaceLoads(chromeApi, { isWorkspaceTab, cdp }), []);
});

test("the dispatcher names the tabs of the requests a stop stopped", async () => {
  const d = createDispatcher({ hang: () => never(), quick: async () => ({}) });
  const replies = [
    d.dispatch({ id: "r1", op: "hang", args: { tabId: 7, url: "https://slow.test/" } }),
    d.dispatch({ id: "r2", op: "hang", args: { tabId: 7 } }),
    d.dispatch({ id: "r3", op: "hang", args: { tabId: "12" } }), // not a tab id
    d.dispatch({ id: "r4", op: "hang" }),
    d.dispatch({ id: "r5", op: "hang", args: { tabId: 12 } }),
  ];
  await d.dispatch({ id: "r6", op: "quick", args: { tabId: 30 } }); // answered before the stop
  await tick();
  assert.deepEqual(d.stoppedTabIds(), [], "nothing stopped yet");
  assert.deepEqual(d.stop("kill switch"), ["r1", "r2", "r3", "r4", "r5"]);
  assert.deepEqual(d.stoppedTabIds(), [7, 12]);
  for (const reply of await Promise.all(replies)) assert.equal(reply.error.code, "stopped");
  assert.deepEqual(d.stop("again"), []);
  assert.deepEqual(d.stoppedTabIds(), [], "a later stop names only what it stopped");
});
