// The service's `stop_request` frame (feature stopRequestV1): one request in flight is answered
// at once with the `stopped` error and its waits end; every other request, running or arriving
// later, is untouched, and an id not in flight is ignored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { createDispatcher, ONE_STOPPED_REASON } = await import(lib("dispatcher.js"));
const frames = await import(lib("frames.js"));
const { navigate } = await import(lib("navigation.js"));
const { FEATURES } = await import(lib("constants.js"));

const REASON = "the caller cancelled its navigate";
const never = () => new Promise(() => {});
const tick = () => new Promise((r) => setTimeout(r, 5));

function isStopped(reply, id) {
  return reply.type === "error" && reply.id === id && reply.error.code === "stopped" && reply.error.hop === "extension";
}

// A dispatcher whose `wait` op records its signal and finishes when released.
function waiting() {
  const signals = new Map();
  const releases = new Map();
  const d = createDispatcher({
    wait: (args, request, { signal }) => {
      signals.set(request.id, signal);
      return new Promise((resolve) => releases.set(request.id, () => resolve({ finished: request.id })));
    },
    hang: (args, request, { signal }) => {
      signals.set(request.id, signal);
      return never();
    },
  });
  return { d, signals, release: (id) => releases.get(id)() };
}

test("the feature is advertised in the hello", () => {
  assert.ok(FEATURES.includes("stopRequestV1"));
  assert.ok(frames.helloFrame({ browserId: "b", generation: "g", extensionVersion: "0" }).features.includes("stopRequestV1"));
});

test("a stop_request frame is classified with its id and reason", () => {
  assert.deepEqual(frames.classifyIncoming({ type: "stop_request", id: "r7", reason: REASON }), {
    kind: "stop_request",
    id: "r7",
    reason: REASON,
  });
  assert.deepEqual(frames.classifyIncoming({ type: "stop_request", id: "r7" }), { kind: "stop_request", id: "r7", reason: "" });
  assert.deepEqual(frames.classifyIncoming({ type: "stop_request", id: "r7", reason: 5 }), {
    kind: "stop_request",
    id: "r7",
    reason: "",
  });
});

test("a stop_request frame without a usable id is ignored", () => {
  for (const frame of [
    { type: "stop_request" },
    { type: "stop_request", id: "" },
    { type: "stop_request", id: 7, reason: REASON },
    { type: "stop_request", id: null },
    { type: "stop_request", id: ["r7"] },
  ]) {
    assert.deepEqual(frames.classifyIncoming(frame), { kind: "ignore" }, JSON.stringify(frame));
  }
});

test("stopOne answers that request stopped with the reason and aborts its signal", async () => {
  const { d, signals, release } = waiting();
  const reply = d.dispatch({ id: "r1", op: "wait" });
  await tick();
  assert.equal(d.stopOne("r1", REASON), true);
  const answer = await reply;
  assert.ok(isStopped(answer, "r1"), JSON.stringify(answer));
  assert.match(answer.error.message, /caller cancelled its navigate/);
  assert.match(answer.error.message, /may or may not have taken effect/);
  assert.equal(signals.get("r1").aborted, true);
  assert.equal(d.inFlightCount(), 0);
  release("r1"); // the handler finishing later changes nothing: its reply was already given
  await tick();
  assert.equal(d.stopOne("r1", REASON), false, "an answered request is no longer in flight");
});

test("stopOne without a reason says the request was stopped, and a long reason is clipped", async () => {
  const { d } = waiting();
  const plain = d.dispatch({ id: "r1", op: "hang" });
  const long = d.dispatch({ id: "r2", op: "hang" });
  await tick();
  d.stopOne("r1");
  d.stopOne("r2", "x".repeat(500));
  const a = await plain;
  const b = await long;
  assert.ok(isStopped(a, "r1") && isStopped(b, "r2"));
  assert.ok(a.error.message.includes(ONE_STOPPED_REASON), a.error.message);
  assert.doesNotMatch(a.error.message, /stopped all browser work/);
  assert.ok(b.error.message.includes("x".repeat(200)) && !b.error.message.includes("x".repeat(201)), b.error.message);
});

test("another request in flight keeps running and is answered normally", async () => {
  const { d, signals, release } = waiting();
  const first = d.dispatch({ id: "r1", op: "wait" });
  const second = d.dispatch({ id: "r2", op: "wait" });
  await tick();
  assert.equal(d.inFlightCount(), 2);
  d.stopOne("r1", REASON);
  assert.ok(isStopped(await first, "r1"));
  assert.equal(signals.get("r2").aborted, false);
  assert.equal(d.inFlightCount(), 1);
  release("r2");
  assert.deepEqual(await second, { type: "response", id: "r2", result: { finished: "r2" } });
});

test("stopOne of an unknown id returns false and changes nothing", async () => {
  const { d, signals, release } = waiting();
  const reply = d.dispatch({ id: "r1", op: "wait" });
  await tick();
  const epoch = d.epoch();
  assert.equal(d.stopOne("nope", REASON), false);
  assert.equal(d.stopOne("", REASON), false);
  assert.equal(d.epoch(), epoch);
  assert.equal(d.inFlightCount(), 1);
  assert.equal(signals.get("r1").aborted, false);
  release("r1");
  assert.deepEqual(await reply, { type: "response", id: "r1", result: { finished: "r1" } });
  // Nothing is remembered: a request later sent under that id runs normally.
  const later = d.dispatch({ id: "nope", op: "wait" });
  await tick();
  release("nope");
  assert.deepEqual(await later, { type: "response", id: "nope", result: { finished: "nope" } });
});

test("a request arriving after stopOne runs normally: the epoch is unchanged", async () => {
  const { d, release } = waiting();
  const stamped = d.epoch(); // a request that arrived before the stopOne, dispatched later
  const reply = d.dispatch({ id: "r1", op: "hang" });
  await tick();
  d.stopOne("r1", REASON);
  assert.ok(isStopped(await reply, "r1"));
  assert.equal(d.epoch(), stamped);
  const waitingOne = d.dispatch({ id: "r2", op: "wait" }, stamped);
  const newOne = d.dispatch({ id: "r3", op: "wait" }, d.epoch());
  await tick();
  release("r2");
  release("r3");
  assert.deepEqual(await waitingOne, { type: "response", id: "r2", result: { finished: "r2" } });
  assert.deepEqual(await newOne, { type: "response", id: "r3", result: { finished: "r3" } });
});

test("stopOne leaves the kill switch's stopped tabs as they were", async () => {
  const { d } = waiting();
  const a = d.dispatch({ id: "r1", op: "hang", args: { tabId: 4 } });
  await tick();
  d.stop("kill switch");
  await a;
  assert.deepEqual(d.stoppedTabIds(), [4]);
  const b = d.dispatch({ id: "r2", op: "hang", args: { tabId: 9 } });
  await tick();
  d.stopOne("r2", REASON);
  assert.ok(isStopped(await b, "r2"));
  assert.deepEqual(d.stoppedTabIds(), [4]);
});

test("stopOne ends a navigation's load wait without undoing the navigation", async () => {
  const chromeApi = fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "https://a.test/", title: "A" }] });
  const d = createDispatcher({ navigate: (args, request, { signal }) => navigate(chromeApi, args, { signal }) });
  const reply = d.dispatch({ id: "r1", op: "navigate", args: { tabId: 7, url: "http://127.0.0.1:9/hang", timeoutMs: 120_000 } });
  await tick();
  assert.deepEqual(chromeApi.calls.at(-1), ["tabs.update", 7, { url: "http://127.0.0.1:9/hang" }]);
  assert.equal(chromeApi.tabs.onUpdated.size, 1);
  const callsBefore = chromeApi.calls.length;
  assert.equal(d.stopOne("r1", REASON), true);
  assert.ok(isStopped(await reply, "r1"));
  await tick();
  assert.equal(chromeApi.tabs.onUpdated.size, 0, "load listener removed");
  assert.equal(chromeApi.tabs.onRemoved.size, 0, "close listener removed");
  assert.deepEqual(chromeApi.calls.slice(callsBefore), [], "nothing is sent to the tab after the stop");
});
