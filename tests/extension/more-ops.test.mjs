import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";
import { fakeDocument, fakeEnv, h, loadPageScripts } from "./helpers/fake-dom.mjs";

const { DialogBook, createDialogOps, handleParams } = await import(lib("dialogs.js"));
const { createTabControl, reloadTimeout } = await import(lib("tab-control.js"));

const plain = (value) => JSON.parse(JSON.stringify(value));

describe("dialogs", () => {
  test("the book records the open dialog per tab and forgets it when closed", () => {
    const book = new DialogBook({ now: () => 7 });
    book.onEvent(3, "Page.javascriptDialogOpening", { type: "prompt", message: "Name?", defaultPrompt: "x", url: "http://a.test/" });
    assert.deepEqual(book.current(3), { type: "prompt", message: "Name?", defaultPrompt: "x", url: "http://a.test/", openedAt: 7 });
    assert.equal(book.current(4), null);
    book.onEvent(3, "Page.frameNavigated", { frame: { id: "c", parentId: "top" } });
    assert.ok(book.current(3), "a child frame navigating does not close the top dialog");
    book.onEvent(3, "Page.javascriptDialogClosed", { result: true });
    assert.equal(book.current(3), null);
    book.onEvent(3, "Page.javascriptDialogOpening", { type: "alert", message: "m".repeat(5000) });
    assert.ok(book.current(3).message.length <= 2001);
    book.watching.add(3);
    book.forget(3);
    assert.equal(book.current(3), null);
    assert.equal(book.watching.has(3), false);
  });

  test("actions map onto Page.handleJavaScriptDialog", () => {
    assert.equal(handleParams("status"), null);
    assert.deepEqual(handleParams("accept"), { accept: true });
    assert.deepEqual(handleParams("dismiss"), { accept: false });
    assert.deepEqual(handleParams("respond", "Ada"), { accept: true, promptText: "Ada" });
    assert.throws(() => handleParams("respond"), { code: "bad_args" });
    assert.throws(() => handleParams("close"), { code: "bad_args" });
  });

  test("the op enables Page once, answers the dialog and reports nothing open honestly", async () => {
    const book = new DialogBook();
    const sent = [];
    let showing = false;
    const cdp = async (tabId, method, params) => {
      sent.push([tabId, method, params]);
      if (method === "Page.handleJavaScriptDialog" && !showing) throw new Error("Page.handleJavaScriptDialog failed: No dialog is showing");
      if (method === "Page.handleJavaScriptDialog") showing = false;
      return {};
    };
    const ops = createDialogOps({ book, cdp });
    assert.deepEqual(await ops.dialog({ tabId: 5, action: "status" }), { open: false });
    assert.deepEqual(await ops.dialog({ tabId: 5, action: "accept" }), { resolved: false, open: false });
    showing = true;
    book.onEvent(5, "Page.javascriptDialogOpening", { type: "confirm", message: "Sure?" });
    const status = await ops.dialog({ tabId: 5, action: "status" });
    assert.equal(status.open, true);
    assert.equal(status.type, "confirm");
    const done = await ops.dialog({ tabId: 5, action: "dismiss" });
    assert.deepEqual(done, { resolved: true, open: false, action: "dismiss", type: "confirm", message: "Sure?" });
    assert.equal(book.current(5), null);
    assert.equal(sent.filter(([, m]) => m === "Page.enable").length, 1);
    assert.deepEqual(sent.at(-1), [5, "Page.handleJavaScriptDialog", { accept: false }]);
    book.detached(5);
    await ops.dialog({ tabId: 5, action: "status" });
    assert.equal(sent.filter(([, m]) => m === "Page.enable").length, 2, "a new session enables Page again");
  });

  test("a dialog the page opens right after the answer is named, and kept, even when its event comes first", async () => {
    const book = new DialogBook();
    let order = "event first";
    const cdp = async (tabId, method) => {
      if (method !== "Page.handleJavaScriptDialog") return {};
      // The page runs on once answered and opens the next alert: its event may reach the
      // worker before the answer's reply does, or after it.
      book.onEvent(tabId, "Page.javascriptDialogClosed", { result: true });
      const next = () => book.onEvent(tabId, "Page.javascriptDialogOpening", { type: "alert", message: "second" });
      if (order === "event first") next();
      else setTimeout(next, 5);
      return {};
    };
    const ops = createDialogOps({ book, cdp, followUpMs: 100 });
    book.onEvent(5, "Page.javascriptDialogOpening", { type: "alert", message: "first" });
    const done = await ops.dialog({ tabId: 5, action: "accept" });
    assert.deepEqual(plain(done), { resolved: true, open: true, action: "accept", type: "alert", message: "first", next: { type: "alert", message: "second" } });
    assert.equal(book.current(5).message, "second", "the new dialog is still known as open");
    order = "reply first";
    const again = await ops.dialog({ tabId: 5, action: "accept" });
    assert.equal(again.message, "second");
    assert.deepEqual(again.next, { type: "alert", message: "second" });
    // Nothing follows: the answer says nothing of a next one.
    const lone = new DialogBook();
    const loneOps = createDialogOps({ book: lone, cdp: async () => ({}), followUpMs: 10 });
    lone.onEvent(6, "Page.javascriptDialogOpening", { type: "confirm", message: "Sure?" });
    assert.deepEqual(plain(await loneOps.dialog({ tabId: 6, action: "dismiss" })), { resolved: true, open: false, action: "dismiss", type: "confirm", message: "Sure?" });
  });
});

describe("tab_control", () => {
  const world = () => ({
    windows: [{ id: 1 }],
    tabs: [
      { id: 10, windowId: 1, index: 0, url: "https://a.test/", active: true },
      { id: 11, windowId: 1, index: 1, url: "https://b.test/", title: "B" },
    ],
  });

  function withTabApis(chromeApi) {
    chromeApi.tabs.update = async (id, props) => {
      chromeApi.calls.push(["tabs.update", id, props]);
      if (props.active) for (const t of chromeApi.tabMap.values()) t.active = t.id === id;
      return { ...chromeApi.tabMap.get(id) };
    };
    chromeApi.windows = { ...chromeApi.windows, update: async (id, props) => chromeApi.calls.push(["windows.update", id, props]) };
    chromeApi.tabs.reload = async (id) => {
      chromeApi.calls.push(["tabs.reload", id]);
      const tab = chromeApi.tabMap.get(id);
      tab.status = "loading";
      setTimeout(() => {
        tab.status = "complete";
      }, 5);
    };
    chromeApi.tabs.remove = async (id) => {
      chromeApi.calls.push(["tabs.remove", id]);
      chromeApi.tabMap.delete(id);
    };
    return chromeApi;
  }

  test("focus activates the tab and focuses its window", async () => {
    const chromeApi = withTabApis(fakeChrome(world()));
    const ops = createTabControl({ chromeApi });
    const out = await ops.tabControl({ tabId: 11, action: "focus" });
    assert.equal(out.active, true);
    assert.equal(chromeApi.tabMap.get(10).active, false);
    assert.deepEqual(chromeApi.calls.at(-1), ["windows.update", 1, { focused: true }]);
  });

  test("reload waits for the new load and close removes the tab", async () => {
    const chromeApi = withTabApis(fakeChrome(world()));
    const ops = createTabControl({ chromeApi, sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))) });
    const reloaded = await ops.tabControl({ tabId: 11, action: "reload", timeoutMs: 2000 });
    assert.equal(reloaded.loaded, true);
    assert.equal(chromeApi.tabs.onUpdated.size, 0, "listeners are removed");
    const closed = await ops.tabControl({ tabId: 11, action: "close" });
    assert.deepEqual(closed, { action: "close", tabId: 11, closed: true, url: "https://b.test/", title: "B" });
    assert.equal(chromeApi.tabMap.has(11), false);
    await assert.rejects(ops.tabControl({ tabId: 11, action: "focus" }), { code: "tab_not_found" });
    await assert.rejects(ops.tabControl({ tabId: 10, action: "pin" }), { code: "bad_args" });
  });

  test("a reload that never completes reports loaded: false at the bound", async () => {
    const chromeApi = withTabApis(fakeChrome(world()));
    chromeApi.tabs.reload = async (id) => {
      chromeApi.tabMap.get(id).status = "loading";
    };
    let clock = 0;
    const ops = createTabControl({ chromeApi, now: () => clock, sleep: async (ms) => void (clock += ms) });
    const out = await ops.tabControl({ tabId: 10, action: "reload", timeoutMs: 1000 });
    assert.equal(out.loaded, false);
    assert.equal(reloadTimeout({ timeoutMs: 10 ** 9 }), 120_000);
    assert.equal(reloadTimeout({}), 10_000);
  });
});

describe("wait_probe", () => {
  const page = loadPageScripts();

  function context() {
    return { env: fakeEnv(), refs: page.refs.createRefRegistry({ now: () => 0 }) };
  }

  test("text matches the deepest element, case- and space-insensitively", () => {
    const target = h("p", { id: "late" }, "Arrived ", h("b", {}, "late"), " today");
    const body = h("body", {}, h("div", {}, h("section", {}, target)), h("script", {}, "Arrived late"));
    const doc = fakeDocument(body);
    const out = plain(page.wait.probe(doc, { text: "arrived   LATE" }, context()));
    assert.equal(out.count, 1);
    assert.equal(out.visible, 1);
    assert.equal(out.element.tag, "p");
    assert.match(out.element.ref, /^ref_\d+$/);
  });

  test("selector matches count hidden ones and prefer a visible one", () => {
    const hidden = h("button", { class: "msg", style: { display: "none" } }, "one");
    const shown = h("button", { class: "msg" }, "two");
    const doc = fakeDocument(h("body", {}, hidden, shown));
    const ctx = context();
    const out = plain(page.wait.probe(doc, { selector: ".msg" }, ctx));
    assert.equal(out.count, 2);
    assert.equal(out.visible, 1);
    assert.equal(out.element.name, "two");
    const filtered = plain(page.wait.probe(doc, { selector: ".msg", text: "one" }, ctx));
    assert.deepEqual([filtered.count, filtered.visible], [1, 0]);
    const none = plain(page.wait.probe(doc, { selector: "#nothing" }, ctx));
    assert.deepEqual([none.count, none.visible, none.element], [0, 0, null]);
  });

  test("an invalid selector is a bad_selector page error", () => {
    const doc = fakeDocument(h("body", {}));
    doc.querySelectorAll = () => {
      throw new SyntaxError("not a valid selector");
    };
    assert.throws(() => page.wait.probe(doc, { selector: "p[" }, context()), { code: "bad_selector" });
  });
});
