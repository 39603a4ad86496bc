import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { choosePlacementWindow, chooseGroup, indexAfterGroup } = await import(lib("placement.js"));

const normal = (id, extra = {}) => ({ id, type: "normal", incognito: false, ...extra });

test("the workspace's group window wins", () => {
  const r = choosePlacementWindow({
    group: { id: 5, windowId: 2 },
    workspaceTabs: [{ id: 1, windowId: 3 }],
    windows: [normal(1), normal(2), normal(3)],
    lastFocusedWindowId: 1,
  });
  assert.deepEqual(r, { windowId: 2 });
});

test("else the window holding most of the workspace's tabs", () => {
  const r = choosePlacementWindow({
    workspaceTabs: [
      { id: 1, windowId: 3 },
      { id: 2, windowId: 2 },
      { id: 3, windowId: 2 },
    ],
    windows: [normal(1), normal(2), normal(3)],
    lastFocusedWindowId: 1,
  });
  assert.deepEqual(r, { windowId: 2 });
});

test("else the last focused normal window", () => {
  const r = choosePlacementWindow({ windows: [normal(1), normal(2)], lastFocusedWindowId: 2 });
  assert.deepEqual(r, { windowId: 2 });
});

test("ineligible windows are skipped", () => {
  const r = choosePlacementWindow({
    group: { id: 5, windowId: 7 },
    workspaceTabs: [{ id: 1, windowId: 8 }],
    windows: [normal(7, { incognito: true }), { id: 8, type: "popup" }, normal(9)],
    lastFocusedWindowId: 7,
  });
  assert.deepEqual(r, { windowId: 9 });
});

test("no window, or several without a focus signal, creates a window", () => {
  assert.deepEqual(choosePlacementWindow({ windows: [] }), { createWindow: true });
  assert.deepEqual(choosePlacementWindow({ windows: [normal(1), normal(2)] }), { createWindow: true });
  assert.deepEqual(choosePlacementWindow({}), { createWindow: true });
});

test("a new tab joins the workspace group only in the same window", () => {
  assert.deepEqual(chooseGroup({ group: { id: 5, windowId: 2 }, windowId: 2 }), { joinGroupId: 5 });
  assert.deepEqual(chooseGroup({ group: { id: 5, windowId: 2 }, windowId: 3 }), { createGroup: true });
  assert.deepEqual(chooseGroup({ group: null, windowId: 3 }), { createGroup: true });
});

test("the new tab is inserted right after its group", () => {
  assert.equal(indexAfterGroup([{ index: 4 }, { index: 2 }, { index: 3 }]), 5);
  assert.equal(indexAfterGroup([]), undefined);
});
