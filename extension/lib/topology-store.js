// Persists the workspace book in chrome.storage.session (survives service-worker suspension,
// cleared when the browser exits). Writes are chained so a later snapshot never lands first,
// and coalesced: a write not yet started takes the book as it is when it starts, so every
// change asked for until then is in it and many tabs made at once cost a few writes, not one
// each (each waiting for all before it).

import { STORAGE_KEYS } from "./constants.js";

export function createTopologyStore(sessionArea, book) {
  let running = Promise.resolve();
  let queued = null;

  async function load() {
    const stored = await sessionArea.get(STORAGE_KEYS.topology);
    return stored ? stored[STORAGE_KEYS.topology] : undefined;
  }

  function write() {
    queued = null; // under way: a change from now on needs the next write
    running = sessionArea.set({ [STORAGE_KEYS.topology]: book().snapshot() });
    return running;
  }

  // Resolves once a write that began after this call has landed (or failed).
  function persist() {
    if (!queued) queued = running.then(write, write);
    return queued.catch(() => {});
  }

  return { load, persist };
}
