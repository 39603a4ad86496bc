// Console/network buffers, the capture_read operation and window_resize.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { EventBuffers, consoleEntry, hostOf } = await import(lib("event-buffers.js"));
const { createCapture } = await import(lib("capture.js"));
const { resizeWindow } = await import(lib("window-ops.js"));

const logCall = (text, type = "log") => ({
  type,
  args: [{ type: "string", value: text }, { type: "number", value: 42 }],
  timestamp: 1,
  stackTrace: { callFrames: [{ url: "http://a.test/app.js", lineNumber: 9, functionName: "f" }] },
});

test("console entries join their arguments and keep where they came from", () => {
  assert.deepEqual(consoleEntry("Runtime.consoleAPICalled", logCall("hi")), {
    level: "log",
    text: "hi 42",
    url: "http://a.test/app.js",
    line: 10,
    timestamp: 1,
  });
  const thrown = consoleEntry("Runtime.exceptionThrown", {
    timestamp: 2,
    exceptionDetails: { text: "Uncaught", exception: { description: "Error: boom\n    at x" }, url: "http://a.test/", lineNumber: 0 },
  });
  assert.equal(thrown.level, "exception");
  assert.equal(thrown.text, "Error: boom");
  assert.equal(consoleEntry("Runtime.executionContextCreated", {}), null);
});

test("objects in console arguments show their contents, and thrown values keep theirs", () => {
  const object = {
    type: "object", className: "Object", description: "Object",
    preview: {
      type: "object", description: "Object", overflow: false,
      properties: [
        { name: "a", type: "number", value: "1" },
        { name: "s", type: "string", value: "two" },
        { name: "n", type: "object", subtype: "null", value: "null" },
        { name: "b", type: "object", subtype: "array", value: "Array(2)",
          valuePreview: { type: "object", subtype: "array", description: "Array(2)", overflow: false,
            properties: [{ name: "0", type: "number", value: "1" }, { name: "1", type: "number", value: "2" }] } },
      ],
    },
  };
  const map = {
    type: "object", subtype: "map", description: "Map(1)",
    preview: { type: "object", subtype: "map", description: "Map(1)", overflow: false, properties: [],
      entries: [{ key: { type: "number", description: "1", overflow: false, properties: [] },
        value: { type: "string", description: "x", overflow: false, properties: [] } }] },
  };
  const logged = consoleEntry("Runtime.consoleAPICalled", { type: "log", args: [{ type: "string", value: "obj" }, object, map], timestamp: 1 });
  assert.equal(logged.text, 'obj {a: 1, s: "two", n: null, b: [1, 2]} Map(1) {1 => "x"}');
  const thrown = (exception) => consoleEntry("Runtime.exceptionThrown", { exceptionDetails: { text: "Uncaught", exception } }).text;
  assert.equal(thrown({ type: "string", value: "thrown-string" }), "Uncaught thrown-string");
  assert.equal(thrown({ type: "object", subtype: "null", value: null }), "Uncaught null");
  assert.equal(thrown({ ...object, preview: { ...object.preview, properties: [{ name: "code", type: "number", value: "7" }] } }), "Uncaught {code: 7}");
  assert.equal(thrown({ type: "object", subtype: "error", description: "TypeError: x\n    at y" }), "TypeError: x");
});

test("buffers keep the newest entries up to the bound and count what they dropped", () => {
  const buffers = new EventBuffers({ limit: 2 });
  buffers.start(1, "console", "a.test");
  for (const word of ["one", "two", "three"]) buffers.onEvent(1, "Runtime.consoleAPICalled", logCall(word));
  const read = buffers.read(1, "console", { clear: true });
  assert.deepEqual(read.entries.map((e) => e.text), ["two 42", "three 42"]);
  assert.equal(read.dropped, 1);
  assert.equal(buffers.read(1, "console").entries.length, 0, "cleared after the read");
});

test("network entries are joined by request id, including failures and redirects", () => {
  const buffers = new EventBuffers();
  buffers.start(1, "network", "a.test");
  buffers.onEvent(1, "Network.requestWillBeSent", { requestId: "1", request: { method: "GET", url: "http://a.test/x" } });
  buffers.onEvent(1, "Network.responseReceived", { requestId: "1", response: { status: 200, mimeType: "text/html" } });
  buffers.onEvent(1, "Network.requestWillBeSent", { requestId: "2", request: { method: "POST", url: "http://a.test/old" } });
  buffers.onEvent(1, "Network.requestWillBeSent", {
    requestId: "2", request: { method: "GET", url: "http://a.test/new" }, redirectResponse: { status: 302 },
  });
  buffers.onEvent(1, "Network.loadingFailed", { requestId: "2", errorText: "net::ERR_FAILED" });
  buffers.onEvent(1, "Runtime.consoleAPICalled", logCall("ignored: console not captured"));
  const { entries } = buffers.read(1, "network");
  assert.deepEqual(
    entries.map((e) => [e.method, e.url, e.status, e.errorText]),
    [
      ["GET", "http://a.test/x", 200, undefined],
      ["POST", "http://a.test/old", 302, undefined],
      ["GET", "http://a.test/new", 0, "net::ERR_FAILED"],
    ],
  );
  assert.equal(buffers.read(1, "console").entries.length, 0);
});

test("a new hostname empties the buffers once and says why", () => {
  const buffers = new EventBuffers();
  buffers.start(1, "console", "a.test");
  buffers.onEvent(1, "Runtime.consoleAPICalled", logCall("x"));
  buffers.noteHost(1, "a.test");
  assert.equal(buffers.read(1, "console").entries.length, 1);
  buffers.noteHost(1, "b.test");
  const read = buffers.read(1, "console");
  assert.equal(read.entries.length, 0);
  assert.match(read.reset, /a\.test to b\.test/);
  assert.equal(buffers.read(1, "console").reset, null, "the reset is reported once");
  assert.equal(hostOf("http://b.test:8/x"), "b.test");
});

test("a new hostname keeps what the new site's page did before the read", () => {
  const buffers = new EventBuffers();
  buffers.start(1, "console", "a.test");
  buffers.start(1, "network", "a.test");
  const request = (id, url, type) => ({ requestId: id, loaderId: id, type, request: { method: "GET", url } });
  const context = (origin) => ({ context: { origin, auxData: { isDefault: true, frameId: "F" } } });
  buffers.onEvent(1, "Network.requestWillBeSent", request("1", "http://a.test/", "Document"));
  buffers.onEvent(1, "Network.requestWillBeSent", request("2", "http://a.test/style.css", "Stylesheet"));
  buffers.onEvent(1, "Runtime.consoleAPICalled", logCall("on a"));
  // The tab goes to b.test: its document request comes before the old page's contexts clear.
  buffers.onEvent(1, "Network.requestWillBeSent", request("3", "http://b.test/", "Document"));
  buffers.onEvent(1, "Runtime.executionContextsCleared", {});
  buffers.onEvent(1, "Runtime.executionContextCreated", context("http://b.test"));
  buffers.onEvent(1, "Runtime.executionContextCreated", { context: { origin: "http://c.test", auxData: { isDefault: true } } });
  buffers.onEvent(1, "Runtime.consoleAPICalled", logCall("on b"));
  buffers.onEvent(1, "Network.requestWillBeSent", request("4", "http://b.test/app.js", "Script"));
  buffers.noteHost(1, "b.test");
  const network = buffers.read(1, "network");
  assert.deepEqual(network.entries.map((e) => e.url), ["http://b.test/", "http://b.test/app.js"]);
  assert.match(network.reset, /a\.test to b\.test/);
  const consoleRead = buffers.read(1, "console");
  assert.deepEqual(consoleRead.entries.map((e) => e.text), ["on b 42"]);
  assert.match(consoleRead.reset, /a\.test to b\.test/);
  // Back to a.test: nothing of b's stays, as no page of a.test has begun since.
  buffers.noteHost(1, "a.test");
  assert.equal(buffers.read(1, "network").entries.length, 0);
  assert.equal(buffers.read(1, "console").entries.length, 0);
});

function sessionArea() {
  const data = {};
  return { data, get: async (key) => ({ [key]: data[key] }), set: async (obj) => Object.assign(data, obj) };
}

test("capture_read enables the CDP domain once and reports the first use", async () => {
  const sent = [];
  const buffers = new EventBuffers();
  const chromeApi = { tabs: { get: async (id) => ({ id, url: "http://a.test/" }) } };
  const area = sessionArea();
  const capture = createCapture({ chromeApi, buffers, cdp: async (...a) => sent.push(a), sessionArea: area });
  const first = await capture.captureRead({ tabId: 5, kind: "console" });
  assert.equal(first.started, true);
  assert.deepEqual(sent, [[5, "Runtime.enable", {}]]);
  buffers.onEvent(5, "Runtime.consoleAPICalled", logCall("later"));
  const second = await capture.captureRead({ tabId: 5, kind: "console" });
  assert.equal(second.started, false);
  assert.equal(second.entries[0].text, "later 42");
  assert.equal(sent.length, 1);
  await assert.rejects(capture.captureRead({ tabId: 5, kind: "dom" }), (e) => e.code === "bad_args");

  // A restarted worker has empty buffers; the session record lets the read say so.
  const restarted = createCapture({ chromeApi, buffers: new EventBuffers(), cdp: async () => {}, sessionArea: area });
  const after = await restarted.captureRead({ tabId: 5, kind: "console" });
  assert.match(after.reset, /restarted/);
});

test("window_resize resizes the tab's window and lists that window's tabs", async () => {
  const calls = [];
  const chromeApi = {
    tabs: {
      get: async (id) => ({ id, windowId: 3 }),
      query: async (q) => (q.windowId === 3 ? [{ id: 5 }, { id: 6 }] : []),
    },
    windows: { update: async (id, props) => (calls.push([id, props]), { id, width: props.width, height: props.height }) },
  };
  const out = await resizeWindow(chromeApi, { tabId: 5, width: 800.4, height: 600 });
  assert.deepEqual(out, { windowId: 3, width: 800, height: 600, tabIds: [5, 6] });
  assert.deepEqual(calls, [[3, { state: "normal", width: 800, height: 600 }]]);
  await assert.rejects(resizeWindow(chromeApi, { tabId: 5, width: 10, height: 600 }), (e) => e.code === "bad_args");
});
