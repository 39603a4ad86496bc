// The workspace book's writes to storage: each change written at once, in order, and a caller
// waiting for its own write only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { createTopologyStore } = await import(lib("topology-store.js"));

// A storage area whose writes finish only when the test says so.
function slowArea() {
  const area = { writes: [], finish: [] };
  area.set = (items) => {
    area.writes.push(JSON.parse(JSON.stringify(items)));
    return new Promise((resolve, reject) => area.finish.push({ resolve, reject }));
  };
  area.get = async () => ({});
  return area;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("a change is written at once, also while an earlier write is under way", async () => {
  const area = slowArea();
  let version = 1;
  const store = createTopologyStore(area, () => ({ snapshot: () => ({ version }) }));
  const landed = [];
  store.persist().then(() => landed.push(1));
  version = 2;
  store.persist().then(() => landed.push(2));
  await tick();
  assert.deepEqual(area.writes.map((w) => Object.values(w)[0]), [{ version: 1 }, { version: 2 }], "asked for in order, the second not waiting for the first");
  area.finish[1].resolve();
  await tick();
  assert.deepEqual(landed, [2], "a caller waits for its own write only");
  area.finish[0].resolve();
  await tick();
  assert.deepEqual(landed, [2, 1]);
});

test("a book unchanged since the last write is not written again; its caller waits for that write", async () => {
  const area = slowArea();
  let version = 1;
  const store = createTopologyStore(area, () => ({ snapshot: () => ({ version }) }));
  store.persist();
  let again = false;
  store.persist().then(() => (again = true));
  await tick();
  assert.equal(area.writes.length, 1, "nothing changed since the last write");
  assert.equal(again, false, "the book is not stored until that write lands");
  area.finish[0].resolve();
  await tick();
  assert.equal(again, true);
  let stored = false;
  store.persist().then(() => (stored = true));
  await tick();
  assert.equal(area.writes.length, 1);
  assert.equal(stored, true, "already stored: no wait in the browser");
  version = 2;
  store.persist();
  assert.equal(area.writes.length, 2, "a change is written");
});

test("a failed write does not stop the next one, and the same book is written again", async () => {
  let calls = 0;
  const area = { set: async () => { calls += 1; if (calls === 1) throw new Error("quota"); }, get: async () => ({}) };
  const store = createTopologyStore(area, () => ({ snapshot: () => ({ version: 1 }) }));
  await store.persist();
  await store.persist();
  assert.equal(calls, 2, "written again after the failure");
  await store.persist();
  assert.equal(calls, 2, "then known stored");
});

// A book of workspaces, each with one tab, as the store's caller sees it.
function bookOf(state) {
  return () => ({
    snapshot: () => ({
      v: 1,
      workspaces: Object.fromEntries(Object.entries(state).map(([key, tab]) => [key, { groupId: 1, windowId: 1, tabIds: [tab] }])),
      managed: Object.values(state),
    }),
  });
}

test("a workspace is stored once the first write that has it lands, not the later ones", async () => {
  const area = slowArea();
  const state = { a: 10 };
  const store = createTopologyStore(area, bookOf(state));
  store.persist(); // the write for a's tab
  state.b = 20;
  store.persist(); // b's tab: this write has a as well
  let aStored = false;
  store.persist("a").then(() => (aStored = true));
  await tick();
  assert.equal(area.writes.length, 2, "a is in a write already: no write more");
  area.finish[0].resolve();
  await tick();
  assert.equal(aStored, true, "a's own write landed; b's need not have");
  let bStored = false;
  store.persist("b").then(() => (bStored = true));
  await tick();
  assert.equal(bStored, false);
  area.finish[1].resolve();
  await tick();
  assert.equal(bStored, true);
  let again = false;
  store.persist("a").then(() => (again = true));
  await tick();
  assert.equal(again, true, "stored, with nothing under way: no wait");
  assert.equal(area.writes.length, 2);
});

test("a workspace changed and changed back waits for the write after the change", async () => {
  const area = slowArea();
  const state = { a: 10 };
  const store = createTopologyStore(area, bookOf(state));
  store.persist();
  state.a = 11;
  store.persist();
  state.a = 10;
  let stored = false;
  store.persist("a").then(() => (stored = true));
  await tick();
  assert.equal(area.writes.length, 3, "the write in between has a as it is not: a new write");
  area.finish[0].resolve();
  area.finish[1].resolve();
  await tick();
  assert.equal(stored, false, "the first write's a would be overwritten by the second's");
  area.finish[2].resolve();
  await tick();
  assert.equal(stored, true);
});
