// The browser's identity for the hello frame. browserId is minted once per profile
// (storage.local); generation once per browser process (storage.session is cleared when the
// browser exits but kept across service-worker restarts).
// Takes the storage areas as arguments so tests can pass fakes.

import { STORAGE_KEYS } from "./constants.js";

async function mintOnce(area, key) {
  const stored = await area.get(key);
  const existing = stored ? stored[key] : undefined;
  if (typeof existing === "string" && existing) return existing;
  const fresh = crypto.randomUUID();
  await area.set({ [key]: fresh });
  return fresh;
}

export async function loadIdentity(localArea, sessionArea) {
  const browserId = await mintOnce(localArea, STORAGE_KEYS.browserId);
  const generation = await mintOnce(sessionArea, STORAGE_KEYS.generation);
  return { browserId, generation };
}
