// Persists the workspace book in chrome.storage.session (survives service-worker suspension,
// cleared when the browser exits). Writes are chained so a later snapshot never lands first.

import { STORAGE_KEYS } from "./constants.js";

export function createTopologyStore(sessionArea, book) {
  let chain = Promise.resolve();

  async function load() {
    const stored = await sessionArea.get(STORAGE_KEYS.topology);
    return stored ? stored[STORAGE_KEYS.topology] : undefined;
  }

  function persist() {
    const snapshot = book().snapshot();
    chain = chain.then(
      () => sessionArea.set({ [STORAGE_KEYS.topology]: snapshot }),
      () => sessionArea.set({ [STORAGE_KEYS.topology]: snapshot }),
    );
    return chain.catch(() => {});
  }

  return { load, persist };
}
