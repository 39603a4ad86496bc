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

test("after a restart, a tab in a workspace's group stays with the workspace that has it", () => {
  const book = new WorkspaceBook();
  book.setGroup("wsB", 50, 1);
  book.addTab("wsA", 11); // opened by A's page, placed by Chrome in B's group
  book.addTab("wsB", 12);
  book.reconcile([{ id: 11, groupId: 50, windowId: 1 }, { id: 12, groupId: 50, windowId: 1 }], [50]);
  assert.equal(book.workspaceOfTab(11), "wsA");
  assert.equal(book.workspaceOfTab(12), "wsB");
});
