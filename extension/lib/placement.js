// Where a workspace's new tab goes. Pure decisions over plain snapshots of chrome.windows /
// chrome.tabs / chrome.tabGroups data, so the rules are testable without a browser.
// The rules never move an existing tab: a new tab is created in the chosen window and only
// that new tab is grouped.

function isEligibleWindow(win) {
  return !!win && win.type === "normal" && !win.incognito;
}

// Picks the window for a new workspace tab.
//   group: the workspace's live tab group {id, windowId} or null
//   workspaceTabs: the workspace's live tabs [{id, windowId}]
//   windows: all open windows [{id, type, incognito}]
//   lastFocusedWindowId: id from chrome.windows.getLastFocused, or null
// Returns {windowId} to use an existing window, or {createWindow: true}.
export function choosePlacementWindow({ group = null, workspaceTabs = [], windows = [], lastFocusedWindowId = null }) {
  const eligible = new Map(windows.filter(isEligibleWindow).map((w) => [w.id, w]));

  // 1. Stay with the workspace: its group's window, else the window holding most of its tabs.
  if (group && eligible.has(group.windowId)) return { windowId: group.windowId };
  const counts = new Map();
  for (const tab of workspaceTabs) {
    if (eligible.has(tab.windowId)) counts.set(tab.windowId, (counts.get(tab.windowId) || 0) + 1);
  }
  let best = null;
  for (const [windowId, n] of counts) if (best === null || n > counts.get(best)) best = windowId;
  if (best !== null) return { windowId: best };

  // 2. The window the user used last.
  if (lastFocusedWindowId !== null && eligible.has(lastFocusedWindowId)) return { windowId: lastFocusedWindowId };

  // 3. The only normal window. With several and no focus signal, guessing could drop the tab
  //    into an unrelated window, so a fresh window is clearer.
  if (eligible.size === 1) return { windowId: [...eligible.keys()][0] };
  return { createWindow: true };
}

// Decides whether the new tab joins the workspace's existing group (only when that group is
// in the same window) or needs a new group. Returns {joinGroupId} or {createGroup: true}.
export function chooseGroup({ group = null, windowId }) {
  if (group && group.windowId === windowId) return { joinGroupId: group.id };
  return { createGroup: true };
}

// Index right after the group's last tab, so joining the group does not need to move the new
// tab across the user's tabs. groupTabs: [{index}] of the group. Undefined = append.
export function indexAfterGroup(groupTabs = []) {
  let last = -1;
  for (const tab of groupTabs) if (Number.isInteger(tab.index) && tab.index > last) last = tab.index;
  return last >= 0 ? last + 1 : undefined;
}
