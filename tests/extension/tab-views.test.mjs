import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { event, fakeChrome } from "./helpers/fake-chrome.mjs";

const { TabViews } = await import(lib("tab-views.js"));
const { refuseProtectedTab } = await import(lib("privileged.js"));

function world() {
  const chromeApi = fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "https://shop.test/", title: "Shop", status: "complete" }] });
  chromeApi.tabs.onReplaced = event();
  return { chromeApi, views: new TabViews(chromeApi) };
}

const reads = (chromeApi) => chromeApi.reads.filter(([name]) => name === "tabs.get").length;
// What Chrome sends when a tab changes: the change, and the tab as it is now.
function update(chromeApi, id, change) {
  Object.assign(chromeApi.tabMap.get(id), change);
  chromeApi.tabs.onUpdated.fire(id, change, { ...chromeApi.tabMap.get(id) });
}

test("a tab is read once, then judged as Chrome last reported it", async () => {
  const { chromeApi, views } = world();
  assert.equal((await views.read(7)).url, "https://shop.test/");
  assert.equal((await views.read(7)).title, "Shop");
  assert.equal(reads(chromeApi), 1);
  update(chromeApi, 7, { url: "https://shop.test/cart", title: "Cart" });
  const seen = await views.read(7);
  assert.deepEqual([seen.url, seen.title], ["https://shop.test/cart", "Cart"]);
  assert.equal(reads(chromeApi), 1, "the event's word serves: no read of its own");
});

test("a tab on its way to, or on, a page no agent may enter is refused on the reported word", async () => {
  const { chromeApi, views } = world();
  const read = (id) => views.read(id);
  await refuseProtectedTab(chromeApi, 7, { read });
  update(chromeApi, 7, { status: "loading", pendingUrl: "chrome://settings/" });
  await assert.rejects(refuseProtectedTab(chromeApi, 7, { read }), /on its way to a chrome: page/);
  update(chromeApi, 7, { status: "complete", url: "file:///etc/passwd", pendingUrl: undefined });
  await assert.rejects(refuseProtectedTab(chromeApi, 7, { read }), /shows a file: page/);
  assert.equal(reads(chromeApi), 2, "a loading tab is read, not judged on a kept view");
});

test("a read answered after an event came is not kept: the event's word may be newer", async () => {
  const { chromeApi, views } = world();
  const get = chromeApi.tabs.get;
  let release;
  chromeApi.tabs.get = async (id) => {
    const tab = await get(id); // the tab as the browser had it when asked
    await new Promise((resolve) => (release = resolve));
    return tab;
  };
  const reading = views.read(7);
  await new Promise((resolve) => setImmediate(resolve));
  // Another tab's event: the one read under way may already be older than the browser's word.
  chromeApi.tabs.onUpdated.fire(99, { title: "x" }, { id: 99, url: "https://other.test/" });
  release();
  assert.equal((await reading).url, "https://shop.test/");
  chromeApi.tabs.get = get;
  await views.read(7);
  assert.equal(reads(chromeApi), 2, "read again, not taken from the read an event overtook");
});

test("a closed or replaced tab has no view: the next read says it is gone", async () => {
  const { chromeApi, views } = world();
  await views.read(7);
  chromeApi.tabMap.delete(7);
  chromeApi.tabs.onRemoved.fire(7, {});
  await assert.rejects(views.read(7), (err) => err.code === "tab_not_found");
  chromeApi.tabMap.set(8, { id: 8, windowId: 1, index: 0, url: "https://a.test/", title: "A", status: "complete" });
  await views.read(8);
  chromeApi.tabMap.get(8).url = "https://b.test/";
  chromeApi.tabs.onReplaced.fire(9, 8);
  assert.equal((await views.read(8)).url, "https://b.test/");
});

test("a tab that is loading, or whose page starts to navigate, is read each time", async () => {
  const { chromeApi, views } = world();
  await views.read(7);
  // A link's navigation: the page asks for it before Chrome has a word on the tab.
  chromeApi.debugger.onEvent.fire({ tabId: 7 }, "Page.frameRequestedNavigation", {});
  chromeApi.tabMap.get(7).pendingUrl = "https://shop.test/next";
  assert.equal((await views.read(7)).pendingUrl, "https://shop.test/next");
  assert.equal((await views.read(7)).pendingUrl, "https://shop.test/next");
  assert.equal(reads(chromeApi), 3);
  // Loaded and nothing pending: kept again.
  update(chromeApi, 7, { status: "complete", url: "https://shop.test/next", pendingUrl: undefined });
  await views.read(7);
  chromeApi.debugger.onEvent.fire({ tabId: 7 }, "Runtime.consoleAPICalled", {});
  await views.read(7);
  assert.equal(reads(chromeApi), 3);
});
