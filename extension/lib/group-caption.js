// narrate's caption in the browser's own UI: while a caption lasts, the title of its tab's group
// carries the words after the workspace's name ("Ghostlight · claude-code: Reading the page"),
// and the group gets its own title back when the caption's time is up. No page can read or
// change a tab group's title, so this copy of the caption is the one the person watching can
// trust; the one drawn in the page (page/narrate.js) can be removed, covered or imitated by the
// page.
//
// The title given back is the one the group had before the caption, and only while the group
// still shows the caption: a title set meanwhile (the workspace ended, a new tab retitled the
// group, the user renamed it) stays. What is to be given back, and when, is kept in
// chrome.storage.session too, so a worker that restarts meanwhile still gives it back.

import { OpError, requireTabId } from "./frames.js";
import { getTab } from "./tab-lookup.js";

const STORE_KEY = "groupCaptions";
const MIN_MS = 1000;
const MAX_MS = 30000;
const TEXT_MAX = 240;
// Controls, and the marks that reorder text (which could make the words read as if they came
// before the workspace's name).
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// Pure: the group's title while the caption shows: its own title, then the words on one line.
export function captionTitle(base, text) {
  const words = String(text).slice(0, TEXT_MAX).replace(UNSHOWN, " ").replace(/\s+/g, " ").trim();
  return base ? `${base}: ${words}` : words;
}

// `area`: where the titles to give back are kept (chrome.storage.session).
export function createGroupCaptions({
  chromeApi,
  area,
  now = () => Date.now(),
  setTimer = (fn, ms) => setTimeout(fn, ms),
  clearTimer = (timer) => clearTimeout(timer),
  log = () => {},
}) {
  const entries = new Map(); // groupId -> {base, title, until}
  const timers = new Map(); // groupId -> timer

  async function persist() {
    await area.set({ [STORE_KEY]: Object.fromEntries(entries) });
  }

  function schedule(groupId, entry) {
    clearTimer(timers.get(groupId));
    const timer = setTimer(() => {
      giveBack(groupId, entry).catch((err) => log("giving a group its title back failed", err));
    }, Math.max(0, entry.until - now()));
    timers.set(groupId, timer);
  }

  async function giveBack(groupId, entry) {
    if (entries.get(groupId) !== entry) return; // a later caption took its place
    entries.delete(groupId);
    timers.delete(groupId);
    await persist();
    let group;
    try {
      group = await chromeApi.tabGroups.get(groupId);
    } catch {
      return; // the group is gone
    }
    if (group.title === entry.title) await chromeApi.tabGroups.update(groupId, { title: entry.base });
  }

  // Puts the caption in the title of the tab's group for `durationMs` (1000..30000).
  // Answers {shown: true, groupId, title, replaced} or {shown: false, reason}.
  async function show(args) {
    const tabId = requireTabId(args);
    if (typeof args.text !== "string" || !args.text.trim()) {
      throw new OpError("group_caption needs some text", { code: "bad_args" });
    }
    const requested = Number(args.durationMs);
    const duration = Number.isFinite(requested) ? Math.min(MAX_MS, Math.max(MIN_MS, requested)) : 5000;
    const tab = await getTab(chromeApi, tabId);
    const groupId = Number.isInteger(tab.groupId) ? tab.groupId : -1;
    if (groupId < 0) return { shown: false, reason: "the tab is in no tab group" };
    let group;
    try {
      group = await chromeApi.tabGroups.get(groupId);
    } catch {
      return { shown: false, reason: "the tab's group is gone" };
    }
    const prior = entries.get(groupId);
    // A caption still showing is replaced, and the title given back stays the one from before it.
    const replaced = !!prior && group.title === prior.title;
    const base = replaced ? prior.base : group.title || "";
    const title = captionTitle(base, args.text);
    await chromeApi.tabGroups.update(groupId, { title });
    const entry = { base, title, until: now() + duration };
    entries.set(groupId, entry);
    await persist();
    schedule(groupId, entry);
    return { shown: true, groupId, title, replaced };
  }

  // After a worker restart: the titles still to be given back, each at its time (at once when
  // that has passed).
  async function resume() {
    const kept = ((await area.get(STORE_KEY)) || {})[STORE_KEY];
    if (!kept || typeof kept !== "object") return;
    for (const [key, entry] of Object.entries(kept)) {
      const groupId = Number(key);
      if (!Number.isInteger(groupId) || !entry || typeof entry.title !== "string" || typeof entry.base !== "string") continue;
      const until = Number.isFinite(entry.until) ? entry.until : 0;
      const record = { base: entry.base, title: entry.title, until };
      entries.set(groupId, record);
      schedule(groupId, record);
    }
  }

  return { show, resume, showing: () => entries.size };
}
