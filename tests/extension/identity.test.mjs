import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { loadIdentity } = await import(lib("identity.js"));

// Minimal chrome.storage area.
function area(initial = {}) {
  const data = { ...initial };
  return {
    data,
    get: async (key) => (key in data ? { [key]: data[key] } : {}),
    set: async (obj) => Object.assign(data, obj),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("mints once and then reuses both ids", async () => {
  const local = area();
  const session = area();
  const first = await loadIdentity(local, session);
  assert.match(first.browserId, UUID);
  assert.match(first.generation, UUID);
  assert.deepEqual(await loadIdentity(local, session), first);
});

test("a new browser process keeps browserId and gets a new generation", async () => {
  const local = area();
  const first = await loadIdentity(local, area());
  const second = await loadIdentity(local, area());
  assert.equal(second.browserId, first.browserId);
  assert.notEqual(second.generation, first.generation);
});
