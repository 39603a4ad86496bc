// Workspace tab operations: tabs_context, tabs_create, tab_info.
// Topology only: the service decides what a workspace may touch; this module places tabs,
// groups them under the workspace's title and reports what is there. It never moves or
// regroups a tab it did not create.

import { DEFAULT_GROUP_TITLE, ENDED_GROUP_COLOR, GROUP_COLOR, UNKEYED_WORKSPACE_KEY } from "./constants.js";
import { OpError, groupColorOf, groupTitleOf, requireTabId } from "./frames.js";
import { chooseGroup, choosePlacementWindow, indexAfterGroup } from "./placement.js";
import { getTab, groupIdOf, pendingUrlOf, tabUrl } from "./tab-lookup.js";
import { privilegedScheme, protectedTargetError } from "./privileged.js";
import { normalizeNavigateTarget } from "./urls.js";
import { WindowViews } from "./window-views.js";
import { workspaceKey } from "./workspaces.js";

const NEW_TAB_URL = "about:blank";
const ENDED_SUFFIX = " (ended)";

// A tab's title as Chrome gives it, which is its address when its page has none: a blank tab
// reads "about:blank" once its page is in, and is listed so from the moment it is made (a tab
// just made may be listed before that page commits, a few milliseconds later).
function titleOf(tab) {
  return tab.title || (tabUrl(tab) === NEW_TAB_URL ? NEW_TAB_URL : "");
}

// A listed tab, and where it is going when a navigation has not committed yet.
function withPending(entry, tab) {
  const pending = pendingUrlOf(tab);
  return pending ? { ...entry, pendingUrl: pending } : entry;
}

// The title of a group whose workspace is over, from the title it has now.
export function endedTitle(title) {
  const base = typeof title === "string" && title ? title : DEFAULT_GROUP_TITLE;
  return base.endsWith(ENDED_SUFFIX) ? base : `${base}${ENDED_SUFFIX}`;
}

// `prepareTab(tabId)`: readies a new workspace tab before it loads anything (its debugger
// session, which keeps service workers out of its pages); best effort.
export function createTabOps({ chromeApi, book, persist, prepareTab = null }) {
  // Group changes this module makes itself, so they are not taken for the user's: tabs being
  // grouped right now, and the group each was last put in.
  const placing = new Set();
  const placedIn = new Map();
  const windowViews = new WindowViews(chromeApi);

  // The book with the workspace as it is now is written (or being written) before the answer,
  // which does not wait for it to land: Chrome carries out an extension's storage writes in the
  // order they were asked for, and one asked for even if the worker stops meanwhile, so a worker
  // that starts again reads it. Waiting would only hold the answer behind the write.
  function sendBook(guid) {
    persist(guid);
  }

  async function grouping(tabId, work) {
    placing.add(tabId);
    try {
      const groupId = await work();
      placedIn.set(tabId, groupId);
      return groupId;
    } finally {
      placing.delete(tabId);
    }
  }

  async function liveGroup(guid) {
    const rec = book.get(guid);
    if (!rec || rec.groupId === null) return null;
    try {
      return await chromeApi.tabGroups.get(rec.groupId);
    } catch {
      book.forgetGroup(rec.groupId);
      return null;
    }
  }

  // The workspace's live tabs: its recorded tabs, tabs in its group, and any extra ids the
  // service vouches for. Dead ids are dropped from the book on the way.
  // `knownGroup`: the workspace's group as this operation just made or joined it (no need to
  // ask the browser whether it is still there).
  async function workspaceTabs(guid, extraIds = [], knownGroup = undefined) {
    const rec = book.ensure(guid);
    const group = knownGroup === undefined ? await liveGroup(guid) : knownGroup;
    // A workspace with no tab and no group (a new one) has nothing to look for.
    if (!group && rec.tabIds.size === 0 && extraIds.length === 0) return { group, tabs: [] };
    const wanted = new Set([...rec.tabIds, ...extraIds]);
    // Most often every tab a workspace has is in its group: only the group's are asked for
    // then (each tab listed is the browser's work to describe), every tab when one is missing.
    const listed = async (query) => new Map((await chromeApi.tabs.query(query)).map((t) => [t.id, t]));
    let byId = group ? await listed({ groupId: group.id }) : null;
    if (!byId || [...wanted].some((id) => !byId.has(id))) byId = await listed({});
    // A tab in the group is this workspace's unless the book gives it to another one: Chrome
    // puts a tab opened from a background tab next to the active one, in its group.
    if (group) {
      for (const t of byId.values()) {
        const owner = book.workspaceOfTab(t.id);
        if (t.groupId !== group.id || book.isUndecided(t.id)) continue;
        if (owner === null || owner === workspaceKey(guid)) wanted.add(t.id);
      }
    }
    const tabs = [];
    for (const id of wanted) {
      const tab = byId.get(id);
      if (tab) {
        book.addTab(guid, id);
        tabs.push(tab);
      } else if (rec.tabIds.has(id)) {
        book.removeTab(id);
      }
    }
    tabs.sort((a, b) => a.windowId - b.windowId || a.index - b.index);
    return { group, tabs };
  }

  async function tabsContext(args, request) {
    const guid = request.guid;
    const extra = Array.isArray(args.ownedTabIds) ? args.ownedTabIds.filter((id) => Number.isInteger(id) && id >= 0) : [];
    let { group, tabs } = await workspaceTabs(guid, extra);
    if (tabs.length === 0 && args.createIfEmpty === true) {
      const created = await createWorkspaceTab(request, NEW_TAB_URL);
      group = created.group;
      tabs = [(await listedAfter(request, created)).tab];
    }
    sendBook(guid);
    return {
      groupId: group ? group.id : null,
      tabs: tabs.map((t) => withPending({ tabId: t.id, title: titleOf(t), url: tabUrl(t) }, t)),
    };
  }

  async function tabsCreate(args, request) {
    let url = NEW_TAB_URL;
    if (args.url !== undefined && args.url !== null && args.url !== "") {
      let target;
      try {
        target = normalizeNavigateTarget(args.url);
      } catch (err) {
        throw new OpError(err.message, { code: "bad_args" });
      }
      if (target.kind !== "url") throw new OpError("tabs_create needs a URL, not back/forward", { code: "bad_args" });
      const refused = privilegedScheme(target.url);
      if (refused) throw protectedTargetError(refused);
      url = target.url;
    }
    const created = await createWorkspaceTab(request, url);
    const { tab, group } = created;
    if (prepareTab) {
      const preparing = prepareTab(tab.id).catch(() => {
        // best effort: the tab's first command makes its session instead
      });
      // A blank tab loads nothing until it is navigated, and a navigation waits for the session
      // (debugger.js `made`): its answer need not. A tab made with its page waits for it here.
      if (url !== NEW_TAB_URL) await preparing;
    }
    // The workspace's tabs as they are now, so the service needs no listing of its own; the
    // new tab among them as it is by now (a blank one has its title once committed).
    const { tabs, tab: fresh } = await listedAfter(request, created);
    sendBook(request.guid);
    return {
      tabId: tab.id,
      title: titleOf(fresh),
      url: tabUrl(fresh) || url,
      groupId: group ? group.id : null,
      tabs: tabs.map((t) => withPending({ tabId: t.id, title: titleOf(t), url: tabUrl(t) }, t)),
    };
  }

  // Creates one active tab for the workspace and puts it in the workspace's titled group.
  async function createWorkspaceTab(request, url) {
    const guid = request.guid;
    const title = groupTitleOf(request, DEFAULT_GROUP_TITLE);
    const color = groupColorOf(request, GROUP_COLOR);
    // Asked together: each waits its turn in a browser that may be busy loading pages.
    const [{ group, tabs }, { windows, lastFocusedWindowId }] = await Promise.all([
      workspaceTabs(guid),
      windowViews.read(),
    ]);
    const placement = choosePlacementWindow({ group, workspaceTabs: tabs, windows, lastFocusedWindowId });

    let tab;
    let groupChoice = { createGroup: true };
    if (placement.createWindow) {
      const win = await chromeApi.windows.create({ url, focused: true, type: "normal" });
      tab = win.tabs && win.tabs[0];
      if (!tab) throw new OpError("Could not create a browser window for the workspace", { code: "create_failed" });
    } else {
      groupChoice = chooseGroup({ group, windowId: placement.windowId });
      let index;
      if (groupChoice.joinGroupId !== undefined) {
        index = indexAfterGroup(await chromeApi.tabs.query({ groupId: groupChoice.joinGroupId }));
      }
      const props = { windowId: placement.windowId, url, active: true };
      if (index !== undefined) props.index = index;
      tab = await chromeApi.tabs.create(props);
    }
    // Record ownership before grouping so a quick close or child tab is attributed correctly.
    book.addTab(guid, tab.id);

    const joining = groupChoice.joinGroupId !== undefined;
    let groupId;
    try {
      groupId = await grouping(tab.id, async () => {
        const id = joining
          ? await chromeApi.tabs.group({ groupId: groupChoice.joinGroupId, tabIds: [tab.id] })
          : await chromeApi.tabs.group({ tabIds: [tab.id], createProperties: { windowId: tab.windowId } });
        book.setGroup(guid, id, tab.windowId);
        return id;
      });
    } finally {
      // One write for the tab and its group (or the tab alone, when grouping failed), sent
      // while the group is titled and the workspace listed: the caller's own `sendBook` then
      // finds it under way and sends no other (topology-store.js). A write more, sent as soon
      // as the tab was made, would only queue before this one in a busy browser.
      persist();
    }
    // The group's name and colour are set while the caller lists the workspace: each is a wait
    // in a busy browser, and neither needs the other. The caller waits for `titled` too.
    const titled =
      joining && group.title === title && group.color === color
        ? Promise.resolve()
        : chromeApi.tabGroups.update(groupId, { title, color });
    titled.catch(() => {}); // awaited by the caller; not unhandled if the caller fails first
    return { tab, group: { id: groupId, windowId: tab.windowId }, titled };
  }

  // The workspace's tabs, the new `tab` among them as it is by now, once `titled` is done too.
  async function listedAfter(request, { tab, group, titled }) {
    const [{ tabs }] = await Promise.all([workspaceTabs(request.guid, [], group), titled]);
    return { tabs, tab: await listedTab(tab, tabs) };
  }

  // `tab` as `listing` (the workspace's tabs, read after it was made) has it; read on its own
  // when the listing missed it (it closes as the listing is read: then tab_not_found).
  async function listedTab(tab, listing) {
    return listing.find((t) => t.id === tab.id) || (await getTab(chromeApi, tab.id));
  }

  // The service says a workspace is over: its group, if still there, is retitled and greyed
  // so it no longer looks live; its tabs stay open and are nobody's from now on. With
  // `closeTabs` (a browser no one sees) its tabs are closed instead, each window keeping a tab.
  async function workspaceEnded(guid, title, { closeTabs = false } = {}) {
    const rec = book.forgetWorkspace(guid);
    await persist();
    if (rec && closeTabs) return closeEndedTabs([...rec.tabIds]);
    if (!rec || rec.groupId === null) return false;
    const update = { color: ENDED_GROUP_COLOR };
    if (title) update.title = title;
    try {
      await chromeApi.tabGroups.update(rec.groupId, update);
      return true;
    } catch {
      return false; // the user closed the group already
    }
  }

  // The service's welcome names the workspaces it has live. Every other one the book keeps is
  // over: the service restarted since and never had it, so it will never say so itself. Each is
  // ended as if it had: its group retitled "… (ended)" and greyed, or its tabs closed in a
  // browser no one sees. Returns how many were ended.
  async function workspacesLive(liveGuids, { closeTabs = false } = {}) {
    const live = new Set(liveGuids.map(workspaceKey));
    let ended = 0;
    for (const key of book.keys()) {
      const rec = book.get(key);
      if (!rec || live.has(key) || key === UNKEYED_WORKSPACE_KEY) continue;
      let title = null;
      if (rec.groupId !== null && !closeTabs) {
        try {
          title = endedTitle((await chromeApi.tabGroups.get(rec.groupId)).title);
        } catch {
          // the group is gone: nothing to retitle
        }
      }
      if (await workspaceEnded(key, title, { closeTabs })) ended += 1;
    }
    return ended;
  }

  // A child tab just attributed to `owner`: Chrome puts a tab opened from a background tab
  // next to the active tab, in its group, which may be another workspace's. The child joins its
  // own workspace's group (same window) or leaves the group, so the group a tab is shown in
  // names the workspace that has it.
  async function placeChild(tab, owner) {
    const record = book.get(owner);
    const groupId = Number.isInteger(tab.groupId) ? tab.groupId : -1;
    if (!record || groupId === record.groupId) return;
    if (record.groupId !== null && record.windowId === tab.windowId) {
      await grouping(tab.id, async () => {
        await chromeApi.tabs.group({ groupId: record.groupId, tabIds: [tab.id] });
        return record.groupId;
      });
    } else if (groupId !== -1) {
      await grouping(tab.id, async () => {
        await chromeApi.tabs.ungroup([tab.id]);
        return -1;
      });
    }
  }

  // Chrome says a tab's group changed. A workspace's tab that the user moved out of its group
  // (to no group, or into another group) leaves the workspace: the group a tab is shown in
  // must name the agent that can drive it. Returns true when the tab was released.
  async function groupChanged(tabId, groupId) {
    if (placing.has(tabId)) return false;
    if (placedIn.has(tabId) && placedIn.get(tabId) === groupId) return false;
    placedIn.delete(tabId);
    const owner = book.workspaceOfTab(tabId);
    if (owner === null) return false;
    const record = book.get(owner);
    if (record.groupId === null ? groupId === -1 : groupId === record.groupId) return false;
    book.releaseTab(tabId);
    await persist();
    return true;
  }

  async function closeEndedTabs(tabIds) {
    const all = await chromeApi.tabs.query({});
    const closing = new Set(tabIds.filter((id) => all.some((t) => t.id === id)));
    if (closing.size === 0) return false;
    for (const windowId of new Set(all.filter((t) => closing.has(t.id)).map((t) => t.windowId))) {
      // Closing a window's last tab would close the window (and a headless browser with it).
      if (all.every((t) => t.windowId !== windowId || closing.has(t.id))) {
        await chromeApi.tabs.create({ windowId, url: NEW_TAB_URL, active: false });
      }
    }
    try {
      await chromeApi.tabs.remove([...closing]);
    } catch {
      return false; // closed meanwhile
    }
    return true;
  }

  async function tabInfo(args) {
    const tab = await getTab(chromeApi, requireTabId(args));
    return withPending({
      tabId: tab.id,
      url: tabUrl(tab),
      title: titleOf(tab),
      windowId: tab.windowId,
      status: tab.status || "unloaded",
      active: !!tab.active,
      groupId: groupIdOf(tab),
    }, tab);
  }

  return { tabsContext, tabsCreate, tabInfo, workspaceEnded, workspacesLive, placeChild, groupChanged };
}
