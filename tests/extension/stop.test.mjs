// The service's `stop` frame (the kill switch): every request in flight is answered at once with
// the `stopped` error, requests that arrived before it never run, and the operations' own waits
// (load waits, reload polling, page answers, screencast frames) end instead of running out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { createDispatcher } = await import(lib("dispatcher.js"));
const frames = await import(lib("frames.js"));
const { navigate } = await import(lib("navigation.js"));
const { createTabControl } = await import(lib("tab-control.js"));
const { runContent } = await import(lib("content-bridge.js"));
const { createScreenshots } = await import(lib("screenshot.js"));
const { DebuggerSessions } = await import(lib("debugger.js"));

const REASON = "the user engaged the kill switch";
const world = () => fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "https://a.test/", title: "A" }] });
const never = () => new Promise(() => {});
const tick = () => new Promise((r) => setTimeout(r, 5));

function isStopped(reply, id) {
  return reply.type === "error" && reply.id === id && reply.error.code === "stopped" && reply.error.hop === "extension";
}

test("the stop frame is classified and its error names the reason and code", () => {
  assert.deepEqual(frames.classifyIncoming({ type: "stop", reason: REASON }), { kind: "stop", reason: REASON });
  assert.deepEqual(frames.classifyIncoming({ type: "stop" }), { kind: "stop", reason: "" });
  const err = frames.stoppedError(REASON);
  assert.equal(err.code, "stopped");
  assert.match(err.message, /kill switch/);
  assert.match(err.message, /may or may not have taken effect/);
  assert.match(frames.stoppedError("").message, /service stopped all browser work/);
});

test("stop answers every request in flight at once, exactly once, and aborts their signals", async () => {
  const signals = [];
  let release;
  const late = new Promise((r) => (release = r));
  const d = createDispatcher({
    wait: (args, request, { signal }) => {
      signals.push(signal);
      return late.then(() => ({ finished: true }));
    },
    hang: (args, request, { signal }) => {
      signals.push(signal);
      return never();
    },
  });
  const first = d.dispatch({ id: "r1", op: "wait" });
  const second = d.dispatch({ id: "r2", op: "hang" });
  await tick();
  assert.equal(d.inFlightCount(), 2);
  assert.deepEqual(d.stop(REASON), ["r1", "r2"]);
  const [a, b] = await Promise.all([first, second]);
  assert.ok(isStopped(a, "r1") && isStopped(b, "r2"), JSON.stringify([a, b]));
  assert.match(a.error.message, /kill switch/);
  assert.ok(signals.every((s) => s.aborted));
  assert.equal(d.inFlightCount(), 0);
  release(); // the handler finishing later changes nothing: its reply was already given
  await tick();
  const again = await d.dispatch({ id: "r3", op: "wait" });
  assert.deepEqual(again, { type: "response", id: "r3", result: { finished: true } }, "later requests run normally");
});

test("a failure after the stop is still reported as stopped", async () => {
  const d = createDispatcher({
    fails: (args, request, { signal }) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("torn down")))),
  });
  const reply = d.dispatch({ id: "r1", op: "fails" });
  await tick();
  d.stop(REASON);
  assert.ok(isStopped(await reply, "r1"));
});

test("a request that arrived before the stop is answered stopped and never runs", async () => {
  let ran = 0;
  const d = createDispatcher({ effect: async () => ((ran += 1), {}) });
  const arrivedAt = d.epoch(); // stamped on arrival, dispatched later (e.g. behind worker startup)
  d.stop(REASON);
  assert.ok(isStopped(await d.dispatch({ id: "r1", op: "effect" }, arrivedAt), "r1"));
  assert.equal(ran, 0);
  assert.equal((await d.dispatch({ id: "r2", op: "effect" }, d.epoch())).type, "response");
  assert.equal(ran, 1);
});

test("stop ends a navigation's load wait and removes its listeners and timers", async () => {
  const chromeApi = world(); // the page never finishes loading
  const d = createDispatcher({ navigate: (args, request, { signal }) => navigate(chromeApi, args, { signal }) });
  const reply = d.dispatch({ id: "r1", op: "navigate", args: { tabId: 7, url: "http://127.0.0.1:9/hang", timeoutMs: 120_000 } });
  await tick();
  assert.deepEqual(chromeApi.calls.at(-1), ["tabs.update", 7, { url: "http://127.0.0.1:9/hang" }]);
  assert.equal(chromeApi.tabs.onUpdated.size, 1);
  d.stop(REASON);
  assert.ok(isStopped(await reply, "r1"));
  await tick();
  assert.equal(chromeApi.tabs.onUpdated.size, 0, "load listener removed");
  assert.equal(chromeApi.tabs.onRemoved.size, 0, "close listener removed");
});

test("navigate alone rejects with the stopped error, and a stopped request never starts navigating", async () => {
  const chromeApi = world();
  const controller = new AbortController();
  const going = navigate(chromeApi, { tabId: 7, url: "https://slow.test/", timeoutMs: 60_000 }, { signal: controller.signal });
  await tick();
  controller.abort(REASON);
  await assert.rejects(going, (e) => e.code === "stopped");

  const before = chromeApi.calls.length;
  await assert.rejects(navigate(chromeApi, { tabId: 7, url: "https://x.test/" }, { signal: controller.signal }), (e) => e.code === "stopped");
  assert.equal(chromeApi.calls.length, before, "no tabs.update after the stop");
});

test("stop ends a reload's wait for the new load", async () => {
  const chromeApi = fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 11, windowId: 1, index: 0, url: "https://b.test/" }] });
  chromeApi.tabs.reload = async (id) => {
    chromeApi.calls.push(["tabs.reload", id]);
    chromeApi.tabMap.get(id).status = "loading"; // and it never completes
  };
  const ops = createTabControl({ chromeApi });
  const controller = new AbortController();
  const reloading = ops.tabControl({ tabId: 11, action: "reload", timeoutMs: 120_000 }, { signal: controller.signal });
  await tick();
  controller.abort(REASON);
  await assert.rejects(reloading, (e) => e.code === "stopped");
  assert.equal(chromeApi.tabs.onUpdated.size, 0, "listeners are removed");
  await assert.rejects(ops.tabControl({ tabId: 11, action: "close" }, { signal: controller.signal }), (e) => e.code === "stopped");
  assert.ok(chromeApi.tabMap.has(11), "a stopped request closes nothing");
});

test("stop ends the wait for a page's answer and injects nothing more", async () => {
  const chromeApi = world();
  chromeApi.onMessage = never; // e.g. a page busy in a long script
  const controller = new AbortController();
  const asking = runContent(chromeApi, { tabId: 7, fn: "wait_probe" }, { files: ["content.js"], timeoutMs: 60_000, signal: controller.signal });
  await tick();
  controller.abort(REASON);
  await assert.rejects(asking, (e) => e.code === "stopped" && e.hop === "extension");
  assert.equal(chromeApi.calls.filter(([name]) => name === "scripting.executeScript").length, 0);
});

test("stop ends a screenshot's wait for a screencast frame and the cast is stopped", async () => {
  const sent = [];
  const chromeApi = {
    tabs: { get: async (tabId) => ({ id: tabId, active: false, windowId: 9 }) },
    windows: { get: async () => ({ id: 9, state: "normal" }) },
  };
  const cdp = async (tabId, method) => {
    sent.push(method);
    return {}; // the screencast starts but no frame ever comes
  };
  const shots = createScreenshots({ chromeApi, cdp, timing: { directMs: 60_000, frameMs: 60_000, clippedMs: 60_000 } });
  const controller = new AbortController();
  const taking = shots.screenshot({ tabId: 3, params: {} }, { signal: controller.signal });
  await tick();
  assert.deepEqual(sent, ["Page.startScreencast"]);
  controller.abort(REASON);
  await assert.rejects(taking, (e) => e.code === "stopped");
  assert.deepEqual(sent, ["Page.startScreencast", "Page.stopScreencast"]);
});

test("a stopped request sends no CDP command", async () => {
  const chromeApi = fakeChrome({ tabs: [{ id: 7, windowId: 1, index: 0 }] });
  const sessions = new DebuggerSessions(chromeApi);
  const controller = new AbortController();
  controller.abort(REASON);
  await assert.rejects(sessions.send(7, "Input.dispatchMouseEvent", {}, controller.signal), (e) => e.code === "stopped");
  const commands = chromeApi.calls.filter(([name, , method]) => name === "debugger.sendCommand" && method === "Input.dispatchMouseEvent");
  assert.equal(commands.length, 0);
});
