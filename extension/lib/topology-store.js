// Persists the workspace book in chrome.storage.session (survives service-worker suspension,
// cleared when the browser exits).
//
// Each change is written at once, without waiting for writes under way: the browser applies an
// extension's storage writes in the order they were asked for, so a later snapshot never lands
// first, and a caller waits for its own write only. (Chained writes made tabs made at once wait
// for each other: every caller's write queued behind the one under way, and all of them were
// answered together when the last landed.) A book unchanged since the last write is not written
// again: the caller waits for that write, which carries it.
//
// A caller that needs one workspace stored (`persist(guid)`) waits for the first write that
// has the workspace as it is now and is followed only by writes that have it too: once that one
// lands, the stored book has it, whatever the later writes carry of other workspaces. The tab
// operations ask for that write and answer without waiting for it to land (tab-ops.js `sendBook`).

import { STORAGE_KEYS } from "./constants.js";
import { workspaceKey } from "./workspaces.js";

export function createTopologyStore(sessionArea, book) {
  let stored = null; // the last write that landed: {snapshot, text}
  const pending = []; // writes sent and not landed, oldest first: {snapshot, text, done}

  async function load() {
    const stored = await sessionArea.get(STORAGE_KEYS.topology);
    return stored ? stored[STORAGE_KEYS.topology] : undefined;
  }

  // Resolves once the book as it is now is stored (or its write failed); with `guid`, once that
  // workspace as it is now is.
  function persist(guid = undefined) {
    const snapshot = book().snapshot();
    const text = JSON.stringify(snapshot);
    const key = guid === undefined ? null : workspaceKey(guid);
    const has = (write) => (key === null ? write.text === text : carries(write.snapshot, snapshot, key));
    // The first of the latest writes that all have it: stored once that one lands.
    let first = null;
    for (let i = pending.length - 1; i >= 0 && has(pending[i]); i--) first = pending[i];
    if (first) return first.done;
    if (!pending.length && stored && has(stored)) return Promise.resolve();
    return write(snapshot, text);
  }

  function write(snapshot, text) {
    const entry = { snapshot, text, done: null };
    pending.push(entry);
    // A failed write leaves the book as the last one stored it: the next caller writes again.
    entry.done = Promise.resolve(sessionArea.set({ [STORAGE_KEYS.topology]: snapshot }))
      .then(() => (stored = entry), () => {})
      .finally(() => pending.splice(pending.indexOf(entry), 1))
      .then(() => {});
    return entry.done;
  }

  return { load, persist };
}

// Whether `written` (a snapshot sent) has workspace `key` as `now` has it: its record, and each
// of its tabs among the managed ones.
function carries(written, now, key) {
  const then = written.workspaces[key];
  const record = now.workspaces[key];
  if (!then || !record) return then === record;
  if (JSON.stringify(then) !== JSON.stringify(record)) return false;
  const managed = new Set(written.managed);
  return record.tabIds.every((id) => managed.has(id));
}
