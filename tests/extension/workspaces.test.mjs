import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { WorkspaceBook, workspaceKey } = await import(lib("workspaces.js"));

test("null and missing guids share the unkeyed workspace", () => {
  assert.equal(workspaceKey(null), "");
  assert.equal(workspaceKey(undefined), "");
  assert.equal(workspaceKey("w1"), "w1");
});

test("adding tabs marks them managed and keeps one owner per tab", () => {
  const book = new WorkspaceBook();
  book.addTab("w1", 10);
  book.addTab("w1", 11);
  book.addTab("w2", 20);
  assert.deepEqual([...book.get("w1").tabIds], [10, 11]);
  assert.equal(book.workspaceOfTab(20), "w2");
  assert.ok(book.isManaged(10) && book.isManaged(20));
  book.addTab("w2", 11);
  assert.deepEqual([...book.get("w1").tabIds], [10]);
  assert.equal(book.workspaceOfTab(11), "w2");
});

test("removing a tab forgets it everywhere and says whether it was managed", () => {
  const book = new WorkspaceBook();
  book.addTab("w1", 10);
  assert.equal(book.removeTab(10), true);
  assert.equal(book.removeTab(10), false);
  assert.equal(book.removeTab(99), false);
  assert.equal(book.workspaceOfTab(10), null);
  assert.equal(book.isManaged(10), false);
});

test("groups are recorded per workspace and forgotten when removed", () => {
  const book = new WorkspaceBook();
  book.setGroup("w1", 5, 1);
  assert.deepEqual({ g: book.get("w1").groupId, w: book.get("w1").windowId }, { g: 5, w: 1 });
  assert.equal(book.groupOwner(5), "w1");
  assert.equal(book.groupOwner(-1), null);
  book.forgetGroup(5);
  assert.equal(book.get("w1").groupId, null);
  book.setGroup("w1", -1, 1); // chrome's "no group"
  assert.equal(book.get("w1").groupId, null);
});

test("snapshot round trip", () => {
  const book = new WorkspaceBook();
  book.addTab("w1", 10);
  book.addTab(null, 30);
  book.setGroup("w1", 5, 1);
  const snap = JSON.parse(JSON.stringify(book.snapshot()));
  assert.deepEqual(snap, {
    v: 1,
    workspaces: { w1: { groupId: 5, windowId: 1, tabIds: [10] }, "": { groupId: null, windowId: null, tabIds: [30] } },
    managed: [10, 30],
  });
  const again = WorkspaceBook.fromSnapshot(snap);
  assert.deepEqual(again.snapshot(), snap);
});

test("rehydration tolerates junk and re-derives managed tabs", () => {
  assert.deepEqual(WorkspaceBook.fromSnapshot(undefined).snapshot(), { v: 1, workspaces: {}, managed: [] });
  assert.deepEqual(WorkspaceBook.fromSnapshot({ v: 99 }).snapshot().workspaces, {});
  const book = WorkspaceBook.fromSnapshot({
    v: 1,
    workspaces: { w1: { groupId: "x", windowId: 2, tabIds: [1, "2", 3] }, bad: null },
    managed: [7, "8"],
  });
  assert.deepEqual(book.snapshot(), {
    v: 1,
    workspaces: { w1: { groupId: null, windowId: 2, tabIds: [1, 3] } },
    managed: [7, 1, 3],
  });
});

test("reconcile drops dead tabs and groups and adopts live group members", () => {
  const book = WorkspaceBook.fromSnapshot({
    v: 1,
    workspaces: {
      w1: { groupId: 5, windowId: 1, tabIds: [10, 11] },
      w2: { groupId: 6, windowId: 1, tabIds: [20] },
    },
    managed: [10, 11, 20, 40],
  });
  const liveTabs = [
    { id: 10, groupId: 5, windowId: 1 },
    { id: 12, groupId: 5, windowId: 1 }, // dragged into w1's group meanwhile
    { id: 20, groupId: -1, windowId: 1 },
    { id: 99, groupId: -1, windowId: 1 }, // a user tab: untouched
  ];
  book.reconcile(liveTabs, [5]);
  assert.deepEqual([...book.get("w1").tabIds].sort(), [10, 12]);
  assert.equal(book.get("w2").groupId, null);
  assert.deepEqual([...book.get("w2").tabIds], [20]);
  assert.equal(book.isManaged(11), false);
  assert.equal(book.isManaged(40), false);
  assert.equal(book.isManaged(99), false);
});
