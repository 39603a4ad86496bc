// A tab whose page crashed (renderer gone) and a tab that closed under a command: every
// operation answers at once with what happened (`page_crashed`, `tab_not_found`), never with a
// wait to the bound, "Chrome does not let extensions into this page" or "Could not attach".
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { event, fakeChrome } from "./helpers/fake-chrome.mjs";

const { DebuggerSessions, tabCrashes } = await import(lib("debugger.js"));
const { runContent } = await import(lib("content-bridge.js"));
const { errorFrameFrom } = await import(lib("frames.js"));
const { createScreenshots } = await import(lib("screenshot.js"));

// The fake chrome plus chrome.debugger.onEvent, which Chrome uses to say a page crashed.
function world() {
  const chromeApi = fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "https://a.test/", title: "A", active: true }] });
  chromeApi.debugger.onEvent = event();
  chromeApi.crash = (tabId = 7) => chromeApi.debugger.onEvent.fire({ tabId }, "Inspector.targetCrashed", {});
  return chromeApi;
}

const never = () => new Promise(() => {});
const sentMethods = (chromeApi) => chromeApi.calls.filter(([n]) => n === "debugger.sendCommand").map(([, , m]) => m);

test("a crashed tab's commands are refused at once, unsent, until the tab loads again", async () => {
  const chromeApi = world();
  const sessions = new DebuggerSessions(chromeApi);
  await sessions.send(7, "Page.enable");
  chromeApi.crash();
  assert.equal(sessions.crashed(7), true);
  chromeApi.onCommand = never; // what a page-bound command does on a crashed tab
  for (const method of ["Runtime.evaluate", "Input.dispatchMouseEvent", "Page.captureScreenshot"]) {
    await assert.rejects(sessions.send(7, method, {}), (e) => {
      assert.equal(e.code, "page_crashed");
      assert.equal(e.hop, "page");
      assert.match(e.message, /The page in tab 7 crashed \(its renderer process is gone/);
      assert.match(e.message, /nothing was sent$/);
      return true;
    });
  }
  const setup = new Set(["Inspector.enable", "Emulation.setFocusEmulationEnabled", "Network.enable", "Network.setBypassServiceWorker"]);
  assert.deepEqual(sentMethods(chromeApi).filter((m) => !setup.has(m)), ["Page.enable"]);
  // The browser answers its history for a crashed tab: navigating away is still possible.
  chromeApi.onCommand = async () => ({ entries: [] });
  assert.deepEqual(await sessions.send(7, "Page.getNavigationHistory"), { entries: [] });

  chromeApi.debugger.onEvent.fire({ tabId: 7 }, "Inspector.targetReloadedAfterCrash", {});
  assert.deepEqual(await sessions.send(7, "Runtime.evaluate", { expression: "1" }), { entries: [] });
  chromeApi.crash();
  chromeApi.tabs.onUpdated.fire(7, { status: "loading" }, {}); // e.g. navigated by the user
  assert.equal(sessions.crashed(7), false);
  chromeApi.crash();
  chromeApi.tabs.onRemoved.fire(7, {});
  assert.equal(sessions.crashed(7), false);
});

test("a command under way when the page crashes is answered then, naming it", async () => {
  const chromeApi = world();
  const sessions = new DebuggerSessions(chromeApi);
  await sessions.send(7, "Page.enable");
  chromeApi.onCommand = never;
  const running = sessions.send(7, "Runtime.evaluate", { expression: "await new Promise(() => {})" });
  await new Promise((r) => setImmediate(r));
  chromeApi.crash();
  await assert.rejects(running, (e) => {
    assert.equal(e.code, "page_crashed");
    assert.match(e.message, /crashed .* while Runtime\.evaluate was under way, so no answer came; whether it took effect before the crash is not known/);
    // The service is told the command had reached the page: its outcome is unknown.
    assert.equal(errorFrameFrom("r1", e).error.delivered, true);
    return true;
  });
  // Refused unsent now: nothing reached the page, so no `delivered`.
  await assert.rejects(sessions.send(7, "Runtime.evaluate", {}), (e) => {
    assert.equal(errorFrameFrom("r2", e).error.delivered, undefined);
    return /nothing was sent$/.test(e.message);
  });
  // Other tabs are not affected.
  chromeApi.onCommand = async () => ({ ok: 1 });
  assert.deepEqual(await sessions.send(8, "Runtime.evaluate", {}), { ok: 1 });
});

test("a page that crashed before the session began is seen on attaching, and not asked for focus", async () => {
  const chromeApi = world();
  chromeApi.onCommand = async (tabId, method) => {
    // Chrome sends Inspector.targetCrashed to a session that enables Inspector on a dead page,
    // before its answer; focus emulation, like every page-bound command, would never answer.
    if (method === "Inspector.enable") chromeApi.crash(tabId);
    if (method === "Emulation.setFocusEmulationEnabled") return never();
    return {};
  };
  const sessions = new DebuggerSessions(chromeApi);
  await assert.rejects(sessions.send(7, "Page.enable"), (e) => e.code === "page_crashed");
  assert.deepEqual(sentMethods(chromeApi), ["Inspector.enable"]);
});

test("a tab that closed is tab_not_found, also when it closed under a command", async () => {
  const chromeApi = world();
  chromeApi.onAttach = async (tabId) => {
    throw new Error(`No tab with given id ${tabId}.`);
  };
  await assert.rejects(new DebuggerSessions(chromeApi).send(7, "Page.enable"), (e) => {
    assert.equal(e.code, "tab_not_found");
    assert.equal(e.message, "No tab with id 7 (it was closed or never existed)");
    return true;
  });

  const closing = world();
  const sessions = new DebuggerSessions(closing);
  await sessions.send(7, "Page.enable");
  closing.onCommand = async () => {
    throw new Error("Detached while handling command.");
  };
  closing.onAttach = async (tabId) => {
    throw new Error(`No tab with given id ${tabId}.`);
  };
  await assert.rejects(sessions.send(7, "Runtime.evaluate", {}), (e) => {
    assert.equal(e.code, "tab_not_found");
    assert.equal(e.message, "Tab 7 closed while Runtime.evaluate was under way, so no answer came (whether it took effect before the tab closed is not known)");
    assert.doesNotMatch(e.message, /attach/);
    return true;
  });
});

test("content on a crashed tab says so before sending anything", async () => {
  const chromeApi = world();
  new DebuggerSessions(chromeApi); // the worker's sessions: they listen for crashes
  chromeApi.crash();
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "page_text" }, { files: ["content.js"] }), (e) => {
    assert.equal(e.code, "page_crashed");
    assert.equal(e.hop, "page");
    assert.doesNotMatch(e.message, /does not let extensions/);
    return true;
  });
  assert.equal(chromeApi.calls.filter(([n]) => n === "scripting.executeScript").length, 0);
});

test("content: a crash while the page is asked ends the wait at once", async () => {
  const chromeApi = world();
  tabCrashes(chromeApi);
  chromeApi.onMessage = never;
  const asking = runContent(chromeApi, { tabId: 7, fn: "form_input", args: { ref: "ref_1", value: "x" } }, { files: [], timeoutMs: 600_000 });
  await new Promise((r) => setImmediate(r));
  chromeApi.crash();
  await assert.rejects(asking, (e) => e.code === "page_crashed" && /while the form_input mechanism was under way/.test(e.message));
});

test("content: a crash seen only at injection, and a tab with no running page, are not 'no extensions here'", async () => {
  const chromeApi = world();
  tabCrashes(chromeApi);
  chromeApi.onMessage = async () => {
    throw new Error("Could not establish connection. Receiving end does not exist.");
  };
  const blocked = new Error("Cannot access contents of the page. Extension manifest must request permission to access the respective host.");
  chromeApi.onInject = async () => {
    chromeApi.crash();
    throw blocked;
  };
  await assert.rejects(runContent(chromeApi, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.code === "page_crashed" && /nothing was sent$/.test(e.message));

  const unseen = world(); // e.g. a crash no debugger session was there to see
  unseen.onMessage = chromeApi.onMessage;
  unseen.onInject = async () => {
    throw blocked;
  };
  unseen.tabMap.get(7).status = "unloaded";
  await assert.rejects(runContent(unseen, { tabId: 7, fn: "ping" }, { files: [] }), (e) => {
    assert.equal(e.code, "page_unloaded");
    assert.match(e.message, /The page in tab 7 is not running \(its renderer process is gone \(the page crashed\) or Chrome has not loaded it\)/);
    return true;
  });
  unseen.tabMap.get(7).discarded = true;
  await assert.rejects(runContent(unseen, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.code === "page_unloaded" && /Chrome discarded it to free memory/.test(e.message));
  unseen.tabMap.get(7).status = "complete"; // a page Chrome keeps extensions out of
  await assert.rejects(runContent(unseen, { tabId: 7, fn: "ping" }, { files: [] }), (e) => e.code === "content_unavailable");
});

test("a screenshot of a crashed tab fails at once, and a crash during the frame wait ends it", async () => {
  const chromeApi = world();
  const sessions = new DebuggerSessions(chromeApi);
  const shots = createScreenshots({ chromeApi, cdp: (...c) => sessions.send(...c), timing: { directMs: 600_000, frameMs: 600_000, clippedMs: 600_000 } });
  chromeApi.onCommand = async (tabId, method) => (method === "Page.captureScreenshot" ? never() : {});
  chromeApi.tabMap.get(7).active = false; // a background tab: forced through a screencast
  const taking = shots.screenshot({ tabId: 7, params: {} });
  await new Promise((r) => setTimeout(r, 5)); // the screencast started; no frame comes
  assert.ok(sentMethods(chromeApi).includes("Page.startScreencast"));
  chromeApi.crash();
  await assert.rejects(taking, (e) => e.code === "page_crashed" && /while the screenshot was under way/.test(e.message));
  await assert.rejects(shots.screenshot({ tabId: 7, params: {} }), (e) => e.code === "page_crashed" && /nothing was sent$/.test(e.message));
});
