// The `cdp_sequence` op: commands go out one after another, and the answer (or the failure)
// says exactly how many were answered, so the service can say how much of an action took effect.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { createCdpCommand, createCdpSequence, requireCommands, MAX_SEQUENCE } = await import(lib("cdp-sequence.js"));
const { DialogBook, createDialogOps } = await import(lib("dialogs.js"));
const { createDialogGate } = await import(lib("dialog-gate.js"));
const { createDispatcher } = await import(lib("dispatcher.js"));
const { OpError, stoppedError } = await import(lib("frames.js"));

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
const ALERT = { type: "alert", message: "hi", defaultPrompt: "", url: "http://a.test/" };
const key = (k) => ({ method: "Input.dispatchKeyEvent", params: { type: "keyDown", key: k } });

// The worker's wiring over a scripted CDP: `answer(method, params)` is what Chrome replies.
function world(answer = async () => ({})) {
  const book = new DialogBook({ now: () => 1 });
  const sent = [];
  const cdp = async (tabId, method, params, signal) => {
    if (signal && signal.aborted) throw stoppedError(signal.reason);
    if (method !== "Page.enable") sent.push(params.key ?? method);
    return answer(method, params);
  };
  const dialogs = createDialogOps({ book, cdp, waitMs: 200 });
  const gate = createDialogGate({ book, watch: (tabId) => dialogs.watch(tabId) });
  const sequence = createCdpSequence({ send: cdp, gate });
  const dispatcher = createDispatcher({
    cdp_sequence: (args, _request, { signal }) => sequence(args.tabId, requireCommands(args), signal),
  });
  const run = (commands, id = "r1") =>
    dispatcher.dispatch({ type: "request", id, op: "cdp_sequence", args: { tabId: 5, commands } });
  const open = () => book.onEvent(5, "Page.javascriptDialogOpening", ALERT);
  return { sent, run, open, dispatcher };
}

// A world whose Chrome takes a moment per command, counting the most commands out at once.
function countingWorld() {
  const counted = { outstanding: 0, most: 0 };
  const w = world(async () => {
    counted.outstanding += 1;
    counted.most = Math.max(counted.most, counted.outstanding);
    await tick(1);
    counted.outstanding -= 1;
    return {};
  });
  return { w, counted };
}

test("commands go out in order, each after the previous answer, and the answer counts them", async () => {
  const { w, counted } = countingWorld();
  const frame = await w.run(["a", "b", "c"].map(key));
  assert.deepEqual(frame, { type: "response", id: "r1", result: { completed: 3 } });
  assert.deepEqual(w.sent, ["a", "b", "c"]);
  assert.equal(counted.most, 1, "never two commands out at once");
});

const joined = (command) => ({ ...command, joined: true });

test("a joined command goes out behind the one before it without waiting for its answer", async () => {
  const { w, counted } = countingWorld();
  const frame = await w.run([key("a"), joined(key("A")), key("b"), joined(key("B"))]);
  assert.deepEqual(frame.result, { completed: 4 });
  assert.deepEqual(w.sent, ["a", "A", "b", "B"], "in order");
  assert.equal(counted.most, 2, "a press and its release out together, never the next press");
});

test("a dialog met by a press says its joined release went out, and nothing after it", async () => {
  let release;
  const w = world(async (method, params) => {
    if (params.key === "b") await new Promise((r) => (release = r));
    return {};
  });
  const reply = w.run([key("a"), joined(key("A")), key("b"), joined(key("B")), key("c")]);
  await tick();
  w.open();
  const frame = await reply;
  assert.deepEqual(frame.result, { dialog: { ...ALERT, openedAt: 1 }, completed: 2, delivered: true, sent: 4 });
  release();
  await tick();
  assert.deepEqual(w.sent, ["a", "A", "b", "B"], "the next press never goes out");
});

test("a failed press reports what was answered before it, and stops there", async () => {
  const w = world(async (method, params) => {
    if (params.key === "b") throw new OpError("Input.dispatchKeyEvent failed: boom", { hop: "cdp", code: "cdp_failed" });
    return {};
  });
  const frame = await w.run([key("a"), joined(key("A")), key("b"), joined(key("B")), key("c")]);
  assert.equal(frame.error.code, "cdp_failed");
  assert.equal(frame.error.completed, 2);
  assert.deepEqual(w.sent, ["a", "A", "b", "B"]);
});

test("a failure stops the sequence and says how many commands were answered before it", async () => {
  const w = world(async (method, params) => {
    if (params.key === "b") throw new OpError("Input.dispatchKeyEvent failed: boom", { hop: "cdp", code: "cdp_failed" });
    return {};
  });
  const frame = await w.run(["a", "b", "c"].map(key));
  assert.equal(frame.type, "error");
  assert.equal(frame.error.code, "cdp_failed");
  assert.equal(frame.error.completed, 1);
  assert.deepEqual(w.sent, ["a", "b"], "nothing after the failure is sent");
});

// A world whose Chrome holds its answer to key "b" until `release()`; a, b, c already sent.
async function heldAtB() {
  let release;
  const w = world(async (method, params) => {
    if (params.key === "b") await new Promise((r) => (release = r));
    return {};
  });
  const reply = w.run(["a", "b", "c"].map(key));
  await tick();
  return { w, reply, release: () => release() };
}

test("a dialog opening during a command answers at once, and nothing more is sent", async () => {
  const { w, reply, release } = await heldAtB();
  w.open();
  const frame = await reply;
  assert.deepEqual(frame.result, { dialog: { ...ALERT, openedAt: 1 }, completed: 1, delivered: true, sent: 2 });
  release(); // Chrome answers "b" once the dialog is closed: "c" still never goes out
  await tick();
  assert.deepEqual(w.sent, ["a", "b"]);
});

test("an open dialog refuses the whole sequence before anything is sent", async () => {
  const w = world();
  w.open();
  const frame = await w.run(["a"].map(key));
  assert.equal(frame.type, "error");
  assert.equal(frame.error.code, "dialog_open");
  assert.equal(frame.error.completed, undefined);
  assert.deepEqual(w.sent, []);
});

test("a stop ends the sequence: the request is answered stopped and sends nothing more", async () => {
  const { w, reply, release } = await heldAtB();
  w.dispatcher.stop("the user engaged the kill switch");
  const frame = await reply;
  assert.equal(frame.error.code, "stopped");
  release();
  await tick();
  assert.deepEqual(w.sent, ["a", "b"]);
});

test("malformed command lists are refused with what is wrong", () => {
  for (const [args, wrong] of [
    [{}, /list of 1 to/],
    [{ commands: [] }, /list of 1 to/],
    [{ commands: new Array(MAX_SEQUENCE + 1).fill(key("a")) }, /list of 1 to/],
    [{ commands: [key("a"), { params: {} }] }, /commands\[1\]\.method/],
    [{ commands: [{ method: "Input.insertText", params: [1] }] }, /commands\[0\]\.params/],
  ]) {
    assert.throws(() => requireCommands(args), (err) => err.code === "bad_args" && wrong.test(err.message));
  }
  assert.deepEqual(requireCommands({ commands: [{ method: "Page.reload" }] }), [{ method: "Page.reload", params: {} }]);
  assert.deepEqual(requireCommands({ commands: [{ method: "Page.reload", joined: "yes" }] }), [{ method: "Page.reload", params: {} }]);
  assert.deepEqual(requireCommands({ commands: [key("a"), joined(key("A"))] })[1].joined, true);
});

// The single `cdp` op over the same scripted Chrome: `waitMs` answers "pending" for a command
// still out by then, and leaves it running.
function single(answer) {
  const book = new DialogBook({ now: () => 1 });
  const cdp = async (tabId, method, params) => answer(method, params);
  const dialogs = createDialogOps({ book, cdp, waitMs: 200 });
  const gate = createDialogGate({ book, watch: (tabId) => dialogs.watch(tabId) });
  return { command: createCdpCommand({ send: cdp, gate }), open: () => book.onEvent(5, "Page.javascriptDialogOpening", ALERT) };
}

test("a cdp command answered in time gives its result; one still out at waitMs is pending", async () => {
  let settle;
  let late = null;
  const s = single(async (method) => {
    if (method === "Runtime.evaluate") {
      await new Promise((r) => (settle = r));
      late = "answered";
      throw new OpError("Runtime.evaluate failed: gone", { hop: "cdp", code: "cdp_failed" });
    }
    return { ok: method };
  });
  assert.deepEqual(await s.command(5, "Page.getFrameTree", {}, { waitMs: 100 }), { result: { ok: "Page.getFrameTree" } });
  assert.deepEqual(await s.command(5, "Runtime.evaluate", { expression: "await new Promise(() => {})" }, { waitMs: 30 }), { pending: true });
  settle(); // Chrome answers long after: a failure then goes nowhere, unhandled by no one
  await tick();
  assert.equal(late, "answered");
});

test("without waitMs a cdp command waits for Chrome; a dialog still answers at once", async () => {
  let settle;
  const s = single(async (method) => {
    if (method === "Runtime.evaluate") await new Promise((r) => (settle = r));
    return {};
  });
  const reply = s.command(5, "Runtime.evaluate", { expression: "alert(1)" });
  await tick(40);
  s.open();
  assert.deepEqual(await reply, { dialog: { ...ALERT, openedAt: 1 } });
  settle();
});
