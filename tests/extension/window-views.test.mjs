// The windows a new workspace tab is placed among: read once, kept until a window event.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { event, fakeChrome } from "./helpers/fake-chrome.mjs";

const { WindowViews } = await import(lib("window-views.js"));
const { createTabOps } = await import(lib("tab-ops.js"));
const { WorkspaceBook } = await import(lib("workspaces.js"));

// A browser with two normal windows, the second focused last, that counts its window reads.
function world({ events = true } = {}) {
  const chromeApi = fakeChrome({ windows: [{ id: 1 }, { id: 2 }], lastFocused: 2 });
  let reads = 0;
  const getAll = chromeApi.windows.getAll;
  chromeApi.windows.getAll = (...args) => {
    reads += 1;
    return getAll(...args);
  };
  if (events) Object.assign(chromeApi.windows, { onCreated: event(), onRemoved: event(), onFocusChanged: event() });
  return { chromeApi, reads: () => reads };
}

test("the windows are read once, then kept", async () => {
  const { chromeApi, reads } = world();
  const views = new WindowViews(chromeApi);
  assert.deepEqual((await views.read()).windows.map((w) => w.id), [1, 2]);
  assert.equal((await views.read()).lastFocusedWindowId, 2);
  assert.equal(reads(), 1);
});

for (const name of ["onCreated", "onRemoved", "onFocusChanged"]) {
  test(`a window event (${name}) makes the next placement read the windows again`, async () => {
    const { chromeApi, reads } = world();
    const views = new WindowViews(chromeApi);
    await views.read();
    chromeApi.windowsList.push({ id: 3, type: "normal", incognito: false });
    chromeApi.windows[name].fire(3);
    assert.deepEqual((await views.read()).windows.map((w) => w.id), [1, 2, 3]);
    assert.equal(reads(), 2);
  });
}

test("a read overtaken by a window event is used once, not kept", async () => {
  const { chromeApi, reads } = world();
  const views = new WindowViews(chromeApi);
  const reading = views.read();
  chromeApi.windows.onFocusChanged.fire(1);
  await reading;
  await views.read();
  assert.equal(reads(), 2, "what was read before the event may be stale");
});

test("a browser without window events is asked every time", async () => {
  const { chromeApi, reads } = world({ events: false });
  const views = new WindowViews(chromeApi);
  await views.read();
  await views.read();
  assert.equal(reads(), 2);
});

test("new workspaces' tabs are placed from one read of the windows, and a new window is seen", async () => {
  const { chromeApi, reads } = world();
  const ops = createTabOps({ chromeApi, book: new WorkspaceBook(), persist: async () => {} });
  const request = (guid) => ({ guid, workspace: { groupTitle: `Ghostlight · ${guid}` } });
  const first = await ops.tabsCreate({}, request("w1"));
  const second = await ops.tabsCreate({}, request("w2"));
  assert.equal(reads(), 1);
  assert.deepEqual([first, second].map((out) => chromeApi.tabMap.get(out.tabId).windowId), [2, 2]);
  // The user opens a window and works in it: the next workspace's tab goes there.
  chromeApi.windowsList.push({ id: 9, type: "normal", incognito: false });
  chromeApi.windows.getLastFocused = async () => ({ id: 9, type: "normal", incognito: false });
  chromeApi.windows.onFocusChanged.fire(9);
  const third = await ops.tabsCreate({}, request("w3"));
  assert.equal(chromeApi.tabMap.get(third.tabId).windowId, 9);
  assert.equal(reads(), 2);
});
