// Ref numbers are unique across documents and tabs: the worker hands each page the highest
// number issued so far, pages count on from it, and two pages asked at once are kept apart.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";
import { fakeDocument, h, loadPageScripts } from "./helpers/fake-dom.mjs";

const { createRefFloor, SPREAD } = await import(lib("ref-floor.js"));
const { runContent } = await import(lib("content-bridge.js"));
const page = loadPageScripts();

function sessionArea(initial = {}) {
  const data = { ...initial };
  return {
    data,
    get: async (key) => (key in data ? { [key]: data[key] } : {}),
    set: async (items) => Object.assign(data, items),
  };
}

describe("ref floor", () => {
  test("a new document counts on from the highest number issued before it", () => {
    const button = () => h("button", {}, "Send");
    const first = page.refs.createRefRegistry({ now: () => 0 });
    const one = button();
    fakeDocument(h("body", {}, one));
    first.raiseFloor(0);
    assert.equal(first.refFor(one), "ref_1");
    assert.equal(first.high(), 1);

    const second = page.refs.createRefRegistry({ now: () => 0 });
    const two = button();
    fakeDocument(h("body", {}, two));
    second.raiseFloor(first.high());
    assert.equal(second.refFor(two), "ref_2");
    assert.throws(
      () => second.resolve("ref_1"),
      (e) => e.code === "ref_not_found" && /ref_1 is not on this page: it was read from another page/.test(e.message),
    );
    assert.throws(() => second.resolve("ref_9"), (e) => e.code === "ref_not_found" && /issued no such ref/.test(e.message));
    second.raiseFloor(-5); // never backwards
    second.raiseFloor("7");
    assert.equal(second.high(), 2);
  });

  test("pages asked one after another share one count; asked at once, the later starts SPREAD on", async () => {
    const floor = createRefFloor(sessionArea());
    assert.equal(await floor.take(1), 0);
    floor.settle(1, 12);
    assert.equal(await floor.take(2), 12);
    const atOnce = await floor.take(3);
    assert.equal(atOnce, 12 + SPREAD);
    floor.settle(2, 40);
    floor.settle(3, 12 + SPREAD + 5);
    assert.equal(floor.high(), 12 + SPREAD + 5);
    // Two requests to the same page at once need no room between them: it counts for both.
    const a = await floor.take(4);
    const b = await floor.take(4);
    assert.equal(a, b);
    floor.settle(4, undefined);
    floor.settle(4, undefined);
    assert.equal(await floor.take(5), a);
  });

  test("a worker started again counts on from the number it kept", async () => {
    const area = sessionArea();
    const before = createRefFloor(area);
    await before.take(1);
    before.settle(1, 33);
    await new Promise((r) => setTimeout(r, 0));
    const after = createRefFloor(area);
    assert.equal(await after.take(1), 33);
  });

  test("runContent hands the page the floor and keeps what the page reports, answered or failed", async () => {
    const chromeApi = fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "https://a.test/", title: "A" }] });
    const floor = createRefFloor(null);
    const seen = [];
    chromeApi.onMessage = async (_tabId, message) => {
      seen.push(message.refFloor);
      return message.fn === "bad"
        ? { ok: false, error: { message: "no", code: "page_error" }, refHigh: 30 }
        : { ok: true, value: 1, refHigh: message.refFloor + 4 };
    };
    assert.deepEqual(await runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [], refFloor: floor }), { value: 1 });
    await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "bad" }, { files: [], refFloor: floor }));
    await runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [], refFloor: floor });
    assert.deepEqual(seen, [0, 4, 30]);
    assert.equal(floor.high(), 34);
  });
});
