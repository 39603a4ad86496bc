import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { DialogBook, createDialogOps } = await import(lib("dialogs.js"));
const { createDialogGate, DIALOG_OPEN_CODE } = await import(lib("dialog-gate.js"));
const { createDispatcher } = await import(lib("dispatcher.js"));

// A promise with its settle functions, standing in for a CDP command Chrome has not answered.
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

// Lets pending callbacks and short timers run.
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

const ALERT = { type: "alert", message: "hi", defaultPrompt: "", url: "http://a.test/" };

// The worker's wiring of the `cdp` op, over a scripted CDP: `commands` maps a method to what
// its sendCommand returns (a value, or a function of the params).
function world({ commands = {}, waitMs = 200 } = {}) {
  const book = new DialogBook({ now: () => 1 });
  const sent = [];
  const cdp = async (tabId, method, params) => {
    sent.push([tabId, method, params]);
    const answer = commands[method];
    return typeof answer === "function" ? answer(params, tabId) : answer ?? {};
  };
  const dialogs = createDialogOps({ book, cdp, waitMs });
  const gate = createDialogGate({ book, watch: (tabId) => dialogs.watch(tabId) });
  const dispatcher = createDispatcher({
    cdp: async (args) => {
      const out = await gate.run(args.tabId, () => cdp(args.tabId, args.method, args.params), { method: args.method });
      return out.dialog ? { dialog: out.dialog } : { result: out.value };
    },
    dialog: (args) => dialogs.dialog(args),
  });
  const open = (tabId, dialog = ALERT) => book.onEvent(tabId, "Page.javascriptDialogOpening", dialog);
  return { book, sent, dialogs, gate, dispatcher, open };
}

const request = (id, op, args) => ({ type: "request", id, op, args });

describe("dialog gate", () => {
  test("a dialog opening during an input command answers the request at once with the dialog", async () => {
    const release = deferred();
    const w = world({ commands: { "Input.dispatchMouseEvent": () => release.promise } });
    const reply = w.dispatcher.dispatch(
      request("r1", "cdp", { tabId: 5, method: "Input.dispatchMouseEvent", params: { type: "mouseReleased" } }),
    );
    await tick();
    assert.equal(w.dispatcher.inFlightCount(), 1, "Chrome has not answered the mouse event");
    w.open(5);
    const frame = await reply;
    assert.deepEqual(frame, {
      type: "response",
      id: "r1",
      result: { dialog: { ...ALERT, openedAt: 1 } },
    });
    assert.equal(w.dispatcher.inFlightCount(), 0);
    assert.equal(w.book.listeners.size, 0, "the request stops listening once answered");
  });

  test("the late CDP answer, after the dialog is handled, is dropped and the tab works again", async () => {
    const release = deferred();
    let mouse = 0;
    const w = world({
      commands: {
        "Input.dispatchMouseEvent": () => (++mouse === 1 ? release.promise : { ok: mouse }),
        "Page.handleJavaScriptDialog": () => {
          w.book.onEvent(5, "Page.javascriptDialogClosed", { result: true });
          return {};
        },
      },
    });
    const frames = [];
    const first = w.dispatcher
      .dispatch(request("r1", "cdp", { tabId: 5, method: "Input.dispatchMouseEvent", params: {} }))
      .then((f) => frames.push(f));
    await tick();
    w.open(5);
    await first;
    const accepted = await w.dispatcher.dispatch(request("r2", "dialog", { tabId: 5, action: "accept" }));
    assert.equal(accepted.result.resolved, true);
    release.resolve({ late: true }); // Chrome answers the mouse event once the dialog closed
    await tick();
    assert.equal(frames.length, 1, "one reply per request id, whatever arrives later");
    assert.deepEqual(frames[0].result.dialog.message, "hi");
    const again = await w.dispatcher.dispatch(request("r3", "cdp", { tabId: 5, method: "Input.dispatchMouseEvent", params: {} }));
    assert.deepEqual(again, { type: "response", id: "r3", result: { result: { ok: 2 } } });
  });

  test("a late failure of the answered command is not an unhandled rejection", async () => {
    const release = deferred();
    const w = world({ commands: { "Runtime.evaluate": () => release.promise } });
    const unhandled = [];
    const onUnhandled = (reason) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const reply = w.dispatcher.dispatch(request("r1", "cdp", { tabId: 2, method: "Runtime.evaluate", params: {} }));
      await tick();
      w.open(2, { type: "confirm", message: "Sure?" });
      const frame = await reply;
      assert.equal(frame.result.dialog.type, "confirm");
      release.reject(new Error("Runtime.evaluate failed: Debugger detached"));
      await tick(20);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  test("while a dialog is open, page commands fail at once with the dialog and send nothing", async () => {
    const w = world();
    w.open(7, { type: "prompt", message: "Name?", defaultPrompt: "x" });
    const frame = await w.dispatcher.dispatch(request("r1", "cdp", { tabId: 7, method: "Input.dispatchKeyEvent", params: {} }));
    assert.equal(frame.type, "error");
    assert.equal(frame.error.code, DIALOG_OPEN_CODE);
    assert.equal(frame.error.hop, "page");
    assert.match(frame.error.message, /prompt dialog is open in tab 7/);
    assert.deepEqual(frame.error.dialog, { type: "prompt", message: "Name?", defaultPrompt: "x", url: "", openedAt: 1 });
    assert.deepEqual(
      w.sent.map(([, method]) => method),
      ["Page.enable"],
      "only the watch went out, no input",
    );
    // Commands Chrome answers during a dialog still pass.
    const history = await w.dispatcher.dispatch(request("r2", "cdp", { tabId: 7, method: "Page.getNavigationHistory", params: {} }));
    assert.equal(history.type, "response");
    // Other tabs are not affected.
    const other = await w.dispatcher.dispatch(request("r3", "cdp", { tabId: 8, method: "Input.dispatchKeyEvent", params: {} }));
    assert.equal(other.type, "response");
  });

  test("a page that never answers Page.enable is reported as not responding, not waited on", async () => {
    const w = world({ commands: { "Page.enable": () => new Promise(() => {}) }, waitMs: 30 });
    const began = Date.now();
    const frame = await w.dispatcher.dispatch(request("r1", "cdp", { tabId: 3, method: "Input.dispatchMouseEvent", params: {} }));
    assert.equal(frame.error.code, "page_unresponsive");
    assert.match(frame.error.message, /answer it in the browser window, or close the tab/);
    const status = await w.dispatcher.dispatch(request("r2", "dialog", { tabId: 3, action: "status" }));
    assert.equal(status.error.code, "page_unresponsive");
    assert.ok(Date.now() - began < 1_000);
    assert.equal(w.sent.filter(([, m]) => m === "Page.enable").length, 1, "one enable, waited on by both");
    assert.equal(w.sent.some(([, m]) => m === "Input.dispatchMouseEvent"), false);
  });

  test("a tab the debugger cannot watch still runs its request (the command reports the failure)", async () => {
    const book = new DialogBook();
    const gate = createDialogGate({
      book,
      watch: async () => {
        throw new Error("Could not attach the debugger");
      },
    });
    assert.deepEqual(await gate.run(4, async () => "done"), { value: "done" });
    await assert.rejects(gate.run(4, async () => Promise.reject(new Error("attach_failed"))), /attach_failed/);
  });

  test("browser-side requests run during a dialog, name the dialog they close and stop at a new one", async () => {
    const book = new DialogBook({ now: () => 1 });
    const gate = createDialogGate({ book, watch: async () => true });
    book.onEvent(9, "Page.javascriptDialogOpening", { type: "alert", message: "old" });
    const through = await gate.browserSide(9, async () => {
      book.onEvent(9, "Page.frameNavigated", { frame: { id: "top" } });
      return { url: "http://b.test/", loaded: true };
    });
    assert.deepEqual(through.value, { url: "http://b.test/", loaded: true });
    assert.equal(through.closed.type, "alert");

    book.onEvent(9, "Page.javascriptDialogOpening", { type: "confirm", message: "stay?" });
    const focused = await gate.browserSide(9, async () => ({ active: true }));
    assert.equal(focused.closed, undefined, "a dialog still open afterwards was not closed by it");
    book.onEvent(9, "Page.javascriptDialogClosed", {});

    const stuck = deferred(); // a navigation waiting on the page's beforeunload answer
    const pending = gate.browserSide(9, () => stuck.promise);
    await tick();
    book.onEvent(9, "Page.javascriptDialogOpening", { type: "beforeunload", message: "" });
    const out = await pending;
    assert.equal(out.dialog.type, "beforeunload");
    assert.equal(out.closed, undefined);
    stuck.resolve({ loaded: true });
  });

  test("a navigation is refused while a beforeunload dialog is open, other browser-side requests are not", async () => {
    const book = new DialogBook({ now: () => 1 });
    const gate = createDialogGate({ book, watch: async () => true });
    book.onEvent(3, "Page.javascriptDialogOpening", { type: "beforeunload", message: "" });
    let started = 0;
    const start = async () => {
      started += 1;
      return { loaded: false };
    };
    await assert.rejects(
      gate.browserSide(3, start, { navigates: true }),
      (e) => e.code === DIALOG_OPEN_CODE && e.dialog.type === "beforeunload",
    );
    assert.equal(started, 0, "nothing was sent");
    assert.deepEqual(await gate.browserSide(3, start), { value: { loaded: false } }); // e.g. focus
    assert.equal(started, 1);

    book.onEvent(3, "Page.javascriptDialogClosed", {});
    book.onEvent(3, "Page.javascriptDialogOpening", { type: "alert", message: "hi" });
    await gate.browserSide(3, start, { navigates: true }); // an alert: the navigation closes it
    assert.equal(started, 2);
  });

  test("a browser-side request may skip the watch, so closing an unresponsive tab is not delayed", async () => {
    const book = new DialogBook();
    let watches = 0;
    const gate = createDialogGate({
      book,
      watch: () => {
        watches += 1;
        return new Promise(() => {}); // a page that never answers Page.enable
      },
    });
    const out = await gate.browserSide(6, async () => ({ closed: true }), { watch: false });
    assert.deepEqual(out, { value: { closed: true } });
    assert.equal(watches, 0);
  });
});
