// Which managed tab opened a new tab: the one page that announced a window (Page.windowOpen)
// in the last moments, never the tab Chrome's tab strip links the new tab to.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { Openers, WINDOW_OPEN_MS } = await import(lib("openers.js"));
const { WorkspaceBook } = await import(lib("workspaces.js"));

test("the one tab that announced a window is the opener, once", () => {
  let now = 1000;
  const openers = new Openers(() => now);
  openers.onEvent(7, "Page.loadEventFired");
  assert.equal(openers.take(), null, "nobody announced a window");
  openers.onEvent(7, "Page.windowOpen");
  assert.equal(openers.take(), 7);
  assert.equal(openers.take(), null, "one announcement, one new tab");
});

test("an old announcement, or several at once, attribute the new tab to nobody", () => {
  let now = 1000;
  const openers = new Openers(() => now);
  openers.onEvent(7, "Page.windowOpen");
  now += WINDOW_OPEN_MS + 1;
  assert.equal(openers.take(), null);
  openers.onEvent(7, "Page.windowOpen");
  openers.onEvent(8, "Page.windowOpen");
  assert.equal(openers.take(), null, "two pages opened windows: never guessed");
  openers.forget(8);
  assert.equal(openers.take(), 7);
});

test("an announcement claims only a tab for the URL it announced", () => {
  let now = 1000;
  const openers = new Openers(() => now);
  // A page keeps asking for popups the blocker stops: announcements with no tab behind them.
  openers.onEvent(7, "Page.windowOpen", { url: "http://127.0.0.1:8000/popup" });
  now += 200;
  openers.onEvent(7, "Page.windowOpen", { url: "http://127.0.0.1:8000/popup" });
  // Meanwhile someone else opens a tab (a ctrl-click, a middle-click): it is nobody's.
  assert.equal(openers.take("http://127.0.0.1:8000/secret-of-B"), null);
  assert.equal(openers.take(""), null, "a blank new tab is no match for a page announced by URL");
  // Its own popup, when one does open, is still its own, once per announcement.
  assert.equal(openers.take("http://127.0.0.1:8000/popup"), 7);
  assert.equal(openers.take("http://127.0.0.1:8000/popup"), 7);
  assert.equal(openers.take("http://127.0.0.1:8000/popup"), null);
});

test("two pages opening different URLs at once each get their own tab", () => {
  const openers = new Openers(() => 5000);
  openers.onEvent(7, "Page.windowOpen", { url: "https://a.test/x" });
  openers.onEvent(8, "Page.windowOpen", { url: "https://b.test/y" });
  openers.onEvent(9, "Page.windowOpen", { url: "" });
  assert.equal(openers.take("https://b.test/y"), 8);
  assert.equal(openers.take("https://A.test/x"), 7, "URLs compare as the browser spells them");
  assert.equal(openers.take("about:blank"), 9, "window.open() with no URL opens a blank page");
  openers.onEvent(7, "Page.windowOpen", { url: "https://same.test/" });
  openers.onEvent(8, "Page.windowOpen", { url: "https://same.test/" });
  assert.equal(openers.take("https://same.test/"), null, "two pages opened the same URL: never guessed");
});

test("after a restart, a tab in a workspace's group stays with the workspace that has it", () => {
  const book = new WorkspaceBook();
  book.setGroup("wsB", 50, 1);
  book.addTab("wsA", 11); // opened by A's page, placed by Chrome in B's group
  book.addTab("wsB", 12);
  book.reconcile([{ id: 11, groupId: 50, windowId: 1 }, { id: 12, groupId: 50, windowId: 1 }], [50]);
  assert.equal(book.workspaceOfTab(11), "wsA");
  assert.equal(book.workspaceOfTab(12), "wsB");
});

test("a fresh announcement is expected until it is old or taken", () => {
  let now = 1_000;
  const openers = new Openers(() => now);
  assert.equal(openers.expecting(), false);
  openers.onEvent(7, "Page.windowOpen", { url: "https://a.test/x" });
  assert.equal(openers.expecting(), true);
  now += WINDOW_OPEN_MS + 1;
  assert.equal(openers.expecting(), false);
});

test("a window announced since an action is awaited until a new tab takes it", () => {
  let now = 1000;
  const openers = new Openers(() => now);
  openers.onEvent(7, "Page.windowOpen", { url: "http://a.test/child" });
  assert.equal(openers.awaiting(7, 1000), true);
  assert.equal(openers.awaiting(7, 1001), false, "an announcement before the action is not its");
  assert.equal(openers.awaiting(8, 0), false, "another tab announced nothing");
  now = 1010;
  assert.equal(openers.take("http://a.test/child"), 7);
  assert.equal(openers.awaiting(7, 1000), false, "taken by the tab it opened");
});
