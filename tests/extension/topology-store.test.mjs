// The workspace book's writes to storage: in order, and coalesced while one is under way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { createTopologyStore } = await import(lib("topology-store.js"));

// A storage area whose writes finish only when the test says so.
function slowArea() {
  const area = { writes: [], finish: [] };
  area.set = (items) => {
    area.writes.push(JSON.parse(JSON.stringify(items)));
    return new Promise((resolve) => area.finish.push(resolve));
  };
  area.get = async () => ({});
  return area;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("changes asked for while a write is under way land together in the next one", async () => {
  const area = slowArea();
  let version = 0;
  const store = createTopologyStore(area, () => ({ snapshot: () => ({ version }) }));
  version = 1;
  const first = store.persist();
  await tick();
  const landed = [];
  for (const v of [2, 3, 4]) {
    version = v;
    store.persist().then(() => landed.push(v));
  }
  await tick();
  assert.equal(area.writes.length, 1, "the later changes wait for the write under way");
  area.finish.shift()();
  await first;
  await tick();
  assert.equal(area.writes.length, 2, "one write for all three");
  assert.deepEqual(Object.values(area.writes[1])[0], { version: 4 });
  assert.deepEqual(landed, [], "not resolved before their write landed");
  area.finish.shift()();
  await tick();
  assert.deepEqual(landed, [2, 3, 4]);
});

test("a failed write does not stop the next one", async () => {
  let calls = 0;
  const area = { set: async () => { calls += 1; if (calls === 1) throw new Error("quota"); }, get: async () => ({}) };
  const store = createTopologyStore(area, () => ({ snapshot: () => ({}) }));
  await store.persist();
  await store.persist();
  assert.equal(calls, 2);
});
