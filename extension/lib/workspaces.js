// Bookkeeping of which tabs and tab group belong to which workspace, plus the set of every
// tab Ghostlight placed or adopted ("managed"). Pure data; the worker persists snapshots in
// chrome.storage.session so the book survives service-worker suspension.
//
// This records topology only. Whether a workspace may use a tab is the service's decision.
// Workspaces are keyed by the request's `guid`: the service's browser key for the workspace,
// an opaque string stable for the workspace's life, never the handle its client holds.

import { UNKEYED_WORKSPACE_KEY } from "./constants.js";

const SNAPSHOT_VERSION = 1;

export function workspaceKey(guid) {
  return typeof guid === "string" && guid ? guid : UNKEYED_WORKSPACE_KEY;
}

export class WorkspaceBook {
  constructor() {
    this.workspaces = new Map(); // key -> {groupId, windowId, tabIds:Set}
    this.managed = new Set();
    // New tabs whose opener is still being worked out (their URL is not known yet): no
    // workspace may take them from their group meanwhile. Not persisted.
    this.undecided = new Set();
  }

  static fromSnapshot(snapshot) {
    const book = new WorkspaceBook();
    if (!snapshot || typeof snapshot !== "object" || snapshot.v !== SNAPSHOT_VERSION) return book;
    for (const [key, rec] of Object.entries(snapshot.workspaces || {})) {
      if (!rec || typeof rec !== "object") continue;
      const record = book.ensure(key);
      record.groupId = intOrNull(rec.groupId);
      record.windowId = intOrNull(rec.windowId);
      for (const id of Array.isArray(rec.tabIds) ? rec.tabIds : []) {
        if (Number.isInteger(id)) record.tabIds.add(id);
      }
    }
    for (const id of Array.isArray(snapshot.managed) ? snapshot.managed : []) {
      if (Number.isInteger(id)) book.managed.add(id);
    }
    // Every workspace tab is managed, whatever an older snapshot said.
    for (const rec of book.workspaces.values()) for (const id of rec.tabIds) book.managed.add(id);
    return book;
  }

  snapshot() {
    const workspaces = {};
    for (const [key, rec] of this.workspaces) {
      workspaces[key] = { groupId: rec.groupId, windowId: rec.windowId, tabIds: [...rec.tabIds] };
    }
    return { v: SNAPSHOT_VERSION, workspaces, managed: [...this.managed] };
  }

  get(guid) {
    return this.workspaces.get(workspaceKey(guid)) || null;
  }

  // The keys of every workspace recorded now.
  keys() {
    return [...this.workspaces.keys()];
  }

  ensure(guid) {
    const key = workspaceKey(guid);
    let rec = this.workspaces.get(key);
    if (!rec) {
      rec = { groupId: null, windowId: null, tabIds: new Set() };
      this.workspaces.set(key, rec);
    }
    return rec;
  }

  // Puts a tab in a workspace. A tab belongs to at most one workspace, so it leaves any other.
  addTab(guid, tabId) {
    const key = workspaceKey(guid);
    for (const [otherKey, rec] of this.workspaces) if (otherKey !== key) rec.tabIds.delete(tabId);
    this.ensure(guid).tabIds.add(tabId);
    this.managed.add(tabId);
  }

  // Forgets a closed tab everywhere. Returns true when it was a managed tab.
  removeTab(tabId) {
    const wasManaged = this.managed.delete(tabId);
    for (const rec of this.workspaces.values()) rec.tabIds.delete(tabId);
    return wasManaged;
  }

  // Takes a tab out of its workspace (the user moved it out of the workspace's group); it
  // stays managed, so its closing is still reported.
  releaseTab(tabId) {
    let released = false;
    for (const rec of this.workspaces.values()) released = rec.tabIds.delete(tabId) || released;
    return released;
  }

  isUndecided(tabId) {
    return this.undecided.has(tabId);
  }

  isManaged(tabId) {
    return this.managed.has(tabId);
  }

  workspaceOfTab(tabId) {
    for (const [key, rec] of this.workspaces) if (rec.tabIds.has(tabId)) return key;
    return null;
  }

  setGroup(guid, groupId, windowId) {
    const rec = this.ensure(guid);
    rec.groupId = intOrNull(groupId);
    rec.windowId = intOrNull(windowId);
  }

  // Which workspace recorded this group, or null.
  groupOwner(groupId) {
    if (!Number.isInteger(groupId) || groupId < 0) return null;
    for (const [key, rec] of this.workspaces) if (rec.groupId === groupId) return key;
    return null;
  }

  // A workspace that has ended: its record goes and its tabs are nobody's (no longer managed).
  // Returns the record it had, or null.
  forgetWorkspace(guid) {
    const key = workspaceKey(guid);
    const rec = this.workspaces.get(key);
    if (!rec) return null;
    this.workspaces.delete(key);
    for (const id of rec.tabIds) this.managed.delete(id);
    return rec;
  }

  forgetGroup(groupId) {
    for (const rec of this.workspaces.values()) {
      if (rec.groupId === groupId) {
        rec.groupId = null;
      }
    }
  }

  // Aligns the book with the live browser after a worker restart:
  //   liveTabs: [{id, groupId, windowId}], liveGroupIds: iterable of existing group ids.
  // Dead tabs and groups are dropped; live tabs sitting in a workspace's group are adopted,
  // unless another workspace already has them.
  reconcile(liveTabs, liveGroupIds) {
    const tabIds = new Set(liveTabs.map((t) => t.id));
    const groups = new Set(liveGroupIds);
    for (const id of [...this.managed]) if (!tabIds.has(id)) this.removeTab(id);
    for (const [key, rec] of this.workspaces) {
      if (rec.groupId !== null && !groups.has(rec.groupId)) rec.groupId = null;
      if (rec.groupId === null) continue;
      for (const tab of liveTabs) {
        const owner = this.workspaceOfTab(tab.id);
        if (tab.groupId === rec.groupId && (owner === null || owner === key)) this.addTab(key, tab.id);
      }
    }
  }
}

function intOrNull(value) {
  return Number.isInteger(value) && value >= 0 ? value : null;
}
