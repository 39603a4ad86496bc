import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const frames = await import(lib("frames.js"));
const { FEATURES } = await import(lib("constants.js"));

test("hello carries identity, wire and features", () => {
  const hello = frames.helloFrame({ browserId: "b", generation: "g", extensionVersion: "0.1.0" });
  assert.deepEqual(hello, {
    type: "hello",
    wire: 1,
    browserId: "b",
    generation: "g",
    extensionVersion: "0.1.0",
    features: ["chunkingV1", "tabGroupsV1", "stopV1", "dialogsV1", "stopRequestV1"],
    headless: false,
  });
  assert.equal(frames.helloFrame({ browserId: "b", headless: true }).headless, true);
  assert.deepEqual([...FEATURES], ["chunkingV1", "tabGroupsV1", "stopV1", "dialogsV1", "stopRequestV1"]);
});

test("response and error frames", () => {
  assert.deepEqual(frames.responseFrame("r1", { a: 1 }), { type: "response", id: "r1", result: { a: 1 } });
  assert.deepEqual(frames.responseFrame("r1", undefined), { type: "response", id: "r1", result: {} });
  assert.deepEqual(frames.errorFrame("r2", "boom", "cdp", "x"), {
    type: "error",
    id: "r2",
    error: { message: "boom", hop: "cdp", code: "x" },
  });
  // Unknown hops are reported as the extension's.
  assert.equal(frames.errorFrame("r3", "m", "ipc").error.hop, "extension");
});

test("thrown errors become error frames with their hop", () => {
  const page = frames.errorFrameFrom("r1", new frames.OpError("gone", { hop: "page", code: "stale_ref" }));
  assert.deepEqual(page.error, { message: "gone", hop: "page", code: "stale_ref" });
  const plain = frames.errorFrameFrom("r2", new Error("plain"));
  assert.deepEqual(plain.error, { message: "plain", hop: "extension" });
  assert.equal(frames.errorFrameFrom("r3", "text").error.message, "text");
});

test("events", () => {
  assert.deepEqual(frames.tabRemovedFrame(5), { type: "tab_removed", tabId: 5 });
  assert.deepEqual(frames.tabCreatedFrame(6, 5), { type: "tab_created", tabId: 6, openerTabId: 5, active: false });
  assert.deepEqual(frames.tabCreatedFrame(6, 5, true), { type: "tab_created", tabId: 6, openerTabId: 5, active: true });
  assert.deepEqual(frames.tabCreatedFrame(6), { type: "tab_created", tabId: 6, active: false });
  assert.deepEqual(frames.tabReleasedFrame(7), { type: "tab_released", tabId: 7 });
  assert.deepEqual(frames.focusFrame(), { type: "focus" });
});

test("classifies incoming frames", () => {
  assert.deepEqual(frames.classifyIncoming({ type: "welcome", wire: 1, slot: 2, features: ["chunkingV1", 3], serviceVersion: "1" }), {
    kind: "welcome",
    slot: 2,
    features: ["chunkingV1"],
    serviceVersion: "1",
    liveWorkspaces: null, // an older service says nothing of other workspaces
  });
  const live = frames.classifyIncoming({ type: "welcome", slot: 2, liveWorkspaces: ["ws-a", 7, "ws-b"] });
  assert.deepEqual(live.liveWorkspaces, ["ws-a", "ws-b"]);
  assert.equal(frames.classifyIncoming({ type: "incompatible", message: "wire 2" }).kind, "incompatible");
  assert.equal(frames.classifyIncoming({ type: "chunk" }).kind, "chunk");
  const req = { type: "request", id: "r1", guid: null, op: "ping", args: {} };
  assert.deepEqual(frames.classifyIncoming(req), { kind: "request", request: req });
  assert.deepEqual(
    frames.classifyIncoming({ type: "workspace_ended", guid: "w1", workspace: { groupTitle: "Ghostlight · a (ended)" } }),
    { kind: "workspace_ended", guid: "w1", title: "Ghostlight · a (ended)", closeTabs: false },
  );
  assert.deepEqual(frames.classifyIncoming({ type: "workspace_ended", guid: "w1", closeTabs: true }), {
    kind: "workspace_ended", guid: "w1", title: null, closeTabs: true,
  });
  assert.equal(frames.isHeadless("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36"), true);
  assert.equal(frames.isHeadless("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"), false);
  assert.equal(frames.isHeadless(undefined), false);
  for (const guid of [undefined, null, "", 5]) {
    assert.equal(frames.classifyIncoming({ type: "workspace_ended", guid }).kind, "ignore");
  }
});

test("unknown or malformed frames are ignored, malformed requests with an id are answered", () => {
  for (const f of [null, 3, [], {}, { type: "mystery" }, { type: "request", op: "ping" }]) {
    assert.equal(frames.classifyIncoming(f).kind, "ignore");
  }
  assert.deepEqual(frames.classifyIncoming({ type: "request", id: "r9", op: "" }), {
    kind: "invalid_request",
    id: "r9",
    message: "request without an op",
  });
  assert.equal(frames.classifyIncoming({ type: "request", id: "r9", op: "ping", args: [] }).kind, "invalid_request");
  assert.equal(frames.classifyIncoming({ type: "request", id: "r9", op: "ping", guid: 4 }).kind, "invalid_request");
});

test("group title and tab id helpers", () => {
  assert.equal(frames.groupTitleOf({ workspace: { groupTitle: "Ghostlight · a" } }, "x"), "Ghostlight · a");
  assert.equal(frames.groupTitleOf({ workspace: { groupTitle: "  " } }, "x"), "x");
  assert.equal(frames.groupTitleOf({}, "x"), "x");
  assert.equal(frames.groupColorOf({ workspace: { groupColor: "purple" } }, "blue"), "purple");
  for (const groupColor of ["grey", "Purple", "", null, 3]) {
    assert.equal(frames.groupColorOf({ workspace: { groupColor } }, "blue"), "blue");
  }
  assert.equal(frames.groupColorOf({}, "blue"), "blue");
  assert.equal(frames.requireTabId({ tabId: 7 }), 7);
  for (const args of [{}, { tabId: "7" }, { tabId: -1 }, { tabId: 1.5 }, undefined]) {
    assert.throws(() => frames.requireTabId(args), (e) => e instanceof frames.OpError && e.code === "bad_args");
  }
});
