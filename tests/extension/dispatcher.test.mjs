import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { createDispatcher } = await import(lib("dispatcher.js"));
const { OpError } = await import(lib("frames.js"));

test("runs the handler and replies with a response", async () => {
  const d = createDispatcher({ echo: async (args, req) => ({ args, guid: req.guid }) });
  const reply = await d.dispatch({ type: "request", id: "r1", guid: "w", op: "echo", args: { a: 1 } });
  assert.deepEqual(reply, { type: "response", id: "r1", result: { args: { a: 1 }, guid: "w" } });
});

test("missing args become an empty object", async () => {
  const d = createDispatcher({ echo: async (args) => args });
  assert.deepEqual((await d.dispatch({ id: "r1", op: "echo" })).result, {});
});

test("failures become error frames with hop and code", async () => {
  const d = createDispatcher({
    cdp: async () => {
      throw new OpError("Page.navigate failed: x", { hop: "cdp", code: "cdp_failed" });
    },
    oops: async () => {
      throw new TypeError("bad");
    },
  });
  assert.deepEqual(await d.dispatch({ id: "r1", op: "cdp" }), {
    type: "error",
    id: "r1",
    error: { message: "Page.navigate failed: x", hop: "cdp", code: "cdp_failed" },
  });
  assert.deepEqual((await d.dispatch({ id: "r2", op: "oops" })).error, { message: "bad", hop: "extension" });
});

test("unknown ops are answered, not ignored", async () => {
  const d = createDispatcher({});
  assert.deepEqual(await d.dispatch({ id: "r1", op: "toString" }), {
    type: "error",
    id: "r1",
    error: { message: "Unknown operation: toString", hop: "extension", code: "unknown_op" },
  });
});

test("a second copy of an in-flight request gets no second reply", async () => {
  let release;
  const gate = new Promise((r) => (release = r));
  const d = createDispatcher({ slow: () => gate.then(() => ({ done: true })) });
  const first = d.dispatch({ id: "r1", op: "slow" });
  assert.equal(await d.dispatch({ id: "r1", op: "slow" }), null);
  assert.equal(d.inFlightCount(), 1);
  release();
  assert.deepEqual((await first).result, { done: true });
  assert.equal(d.inFlightCount(), 0);
});
