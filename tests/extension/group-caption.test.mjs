import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { captionTitle, createGroupCaptions } = await import(lib("group-caption.js"));

const OWN = "Ghostlight · claude-code";

// A workspace tab (7) in its group (70), a tab in no group (8), a clock and timers run by hand,
// and a storage area that outlives the worker.
function setup(stored = {}) {
  const chromeApi = fakeChrome({ tabs: [{ id: 7, windowId: 1, index: 0, groupId: 70 }, { id: 8, windowId: 1, index: 1 }] });
  chromeApi.groups.set(70, { id: 70, windowId: 1, title: OWN, color: "blue" });
  const clock = { now: 0 };
  const timers = [];
  const area = {
    data: stored,
    get: async (key) => (key in area.data ? { [key]: area.data[key] } : {}),
    set: async (items) => Object.assign(area.data, structuredClone(items)),
  };
  const captions = createGroupCaptions({
    chromeApi,
    area,
    now: () => clock.now,
    setTimer: (fn, ms) => timers.push({ fn, at: clock.now + ms, live: true }) - 1,
    clearTimer: (index) => {
      if (index !== undefined) timers[index].live = false;
    },
  });
  // Moves the clock on, running the timers that fall due (and what they start) to the end.
  async function advance(ms) {
    clock.now += ms;
    for (const timer of timers) {
      if (timer.live && timer.at <= clock.now) {
        timer.live = false;
        timer.fn();
      }
    }
    for (let i = 0; i < 20; i++) await Promise.resolve();
  }
  const title = () => chromeApi.groups.get(70).title;
  return { chromeApi, area, captions, advance, title };
}

test("the caption's words follow the group's own title, on one line, with nothing to reorder them", () => {
  assert.equal(captionTitle(OWN, "Reading the page"), `${OWN}: Reading the page`);
  assert.equal(captionTitle(OWN, "  two\nlines\t and  gaps "), `${OWN}: two lines and gaps`);
  // A right-to-left override would show the words before the workspace's name.
  assert.equal(captionTitle(OWN, "\u202eeman ym\u202c\u2066x\u2069\u200f"), `${OWN}: eman ym x`);
  assert.equal(captionTitle("", "Only words"), "Only words");
});

test("the group's title carries the caption for its time, then gets its own title back", async () => {
  const { captions, advance, title, area } = setup();
  const shown = await captions.show({ tabId: 7, text: "Paying the invoice", durationMs: 3000 });
  assert.deepEqual(shown, { shown: true, groupId: 70, title: `${OWN}: Paying the invoice`, replaced: false });
  assert.equal(title(), `${OWN}: Paying the invoice`);
  assert.deepEqual(area.data.groupCaptions, { 70: { base: OWN, title: `${OWN}: Paying the invoice`, until: 3000 } });
  await advance(2999);
  assert.equal(title(), `${OWN}: Paying the invoice`);
  await advance(1);
  assert.equal(title(), OWN);
  assert.deepEqual(area.data.groupCaptions, {});
  assert.equal(captions.showing(), 0);
});

test("a later caption replaces one still showing, and the group's own title is what comes back", async () => {
  const { captions, advance, title } = setup();
  await captions.show({ tabId: 7, text: "First", durationMs: 3000 });
  await advance(1000);
  const second = await captions.show({ tabId: 7, text: "Second", durationMs: 5000 });
  assert.equal(second.replaced, true);
  assert.equal(title(), `${OWN}: Second`);
  await advance(2000); // the first caption's time is up: the second stays
  assert.equal(title(), `${OWN}: Second`);
  await advance(3000);
  assert.equal(title(), OWN);
});

test("a title set meanwhile (the workspace ended, the user renamed the group) is left as it is", async () => {
  const { captions, advance, title, chromeApi } = setup();
  await captions.show({ tabId: 7, text: "Working", durationMs: 2000 });
  chromeApi.groups.get(70).title = `${OWN} (ended)`;
  await advance(2000);
  assert.equal(title(), `${OWN} (ended)`);
});

test("a worker that restarts still gives the group its title back", async () => {
  const first = setup();
  await first.captions.show({ tabId: 7, text: "Working", durationMs: 4000 });
  // A new worker: same browser, same session storage, none of the old timers.
  const again = setup(first.area.data);
  again.chromeApi.groups.get(70).title = first.title();
  await again.captions.resume();
  assert.equal(again.captions.showing(), 1);
  await again.advance(3999);
  assert.equal(again.title(), `${OWN}: Working`);
  await again.advance(1);
  assert.equal(again.title(), OWN);
});

test("a tab in no group is said to be so; a closed tab and blank text are errors", async () => {
  const { captions, chromeApi } = setup();
  assert.deepEqual(await captions.show({ tabId: 8, text: "Hi", durationMs: 1000 }), {
    shown: false,
    reason: "the tab is in no tab group",
  });
  await assert.rejects(captions.show({ tabId: 9, text: "Hi", durationMs: 1000 }), (err) => err.code === "tab_not_found");
  await assert.rejects(captions.show({ tabId: 7, text: "  ", durationMs: 1000 }), (err) => err.code === "bad_args");
  assert.deepEqual(chromeApi.calls.filter(([name]) => name === "tabGroups.update"), []);
});
