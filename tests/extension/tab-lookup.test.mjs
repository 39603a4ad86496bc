// A just-created tab often has no URL yet: its first URL is asked for again, bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { firstUrl } = await import(lib("tab-lookup.js"));

function chromeNaming(urls) {
  let asked = 0;
  return {
    asked: () => asked,
    tabs: {
      get: async (id) => {
        const url = urls[Math.min(asked++, urls.length - 1)];
        if (url === null) throw new Error(`No tab with id: ${id}.`);
        return { id, url: "", pendingUrl: url };
      },
    },
  };
}

const noWait = { sleep: async () => {} };

test("a URL the tab already names is used at once", async () => {
  const api = chromeNaming([]);
  assert.equal(await firstUrl(api, { id: 1, url: "", pendingUrl: "http://a.test/x" }, noWait), "http://a.test/x");
  assert.equal(api.asked(), 0);
});

test("a tab created without a URL is asked again until it names one", async () => {
  const api = chromeNaming(["", "", "http://a.test/child"]);
  assert.equal(await firstUrl(api, { id: 1, url: "" }, noWait), "http://a.test/child");
  assert.equal(api.asked(), 3);
});

test("a tab that never names a URL is blank after the bound; one that closed is null", async () => {
  const blank = chromeNaming([""]);
  assert.equal(await firstUrl(blank, { id: 1, url: "" }, { ...noWait, tries: 5 }), "");
  assert.equal(blank.asked(), 5);
  assert.equal(await firstUrl(chromeNaming([null]), { id: 1, url: "" }, noWait), null);
});
