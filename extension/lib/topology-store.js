// Persists the workspace book in chrome.storage.session (survives service-worker suspension,
// cleared when the browser exits).
//
// Each change is written at once, without waiting for writes under way: the browser applies an
// extension's storage writes in the order they were asked for, so a later snapshot never lands
// first, and a caller waits for its own write only. (Chained writes made tabs made at once wait
// for each other: every caller's write queued behind the one under way, and all of them were
// answered together when the last landed.) A book unchanged since the last write is not written
// again: the caller waits for that write, which carries it. A caller that needs one workspace
// stored (`persist(guid)`) waits for the last write when that one carries the workspace as it is
// now, however the other workspaces have changed since.

import { STORAGE_KEYS } from "./constants.js";
import { workspaceKey } from "./workspaces.js";

export function createTopologyStore(sessionArea, book) {
  let sentText = null; // the snapshot (JSON text) the last write sent carries
  let sentSnapshot = null; // and the snapshot itself
  let sent = Promise.resolve();

  async function load() {
    const stored = await sessionArea.get(STORAGE_KEYS.topology);
    return stored ? stored[STORAGE_KEYS.topology] : undefined;
  }

  // Resolves once the book as it is now is stored (or its write failed); with `guid`, once that
  // workspace as it is now is.
  function persist(guid = undefined) {
    const snapshot = book().snapshot();
    if (guid !== undefined && sentSnapshot && carries(sentSnapshot, snapshot, workspaceKey(guid))) return sent;
    const text = JSON.stringify(snapshot);
    if (text === sentText) return sent;
    sentText = text;
    sentSnapshot = snapshot;
    sent = Promise.resolve(sessionArea.set({ [STORAGE_KEYS.topology]: snapshot })).catch(() => {
      // Not stored: the next change, or the next caller with this book, writes it again.
      if (sentText === text) sentText = sentSnapshot = null;
    });
    return sent;
  }

  return { load, persist };
}

// Whether `stored` (a snapshot written) has workspace `key` as `now` has it: its record, and
// each of its tabs among the managed ones.
function carries(stored, now, key) {
  const then = stored.workspaces[key];
  const record = now.workspaces[key];
  if (!then || !record) return then === record;
  if (JSON.stringify(then) !== JSON.stringify(record)) return false;
  const managed = new Set(stored.managed);
  return record.tabIds.every((id) => managed.has(id));
}
