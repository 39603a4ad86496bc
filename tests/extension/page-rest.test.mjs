// rest.untilRest: the page's one wait after an input action, on a fake clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPageScripts } from "./helpers/fake-dom.mjs";

const { rest } = loadPageScripts();

// A page with a manual clock: timers and frames run only when the test advances time.
function fakePage({ hidden = false, lastChangeAt = -Infinity } = {}) {
  const page = {
    time: 1000,
    changed: lastChangeAt,
    timers: [],
    frames: [],
    leave: null,
    now: () => page.time,
    frame: (cb) => page.frames.push(cb),
    later: (cb, ms) => {
      const timer = { at: page.time + ms, cb };
      page.timers.push(timer);
      return () => (page.timers = page.timers.filter((t) => t !== timer));
    },
    hidden: () => hidden,
    lastChangeAt: () => page.changed,
    onLeave: (cb) => {
      page.leave = cb;
      return () => (page.leave = null);
    },
    renderFrame() {
      const frames = page.frames.splice(0);
      for (const cb of frames) cb();
    },
    advance(ms) {
      const end = page.time + ms;
      for (;;) {
        const due = page.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        page.timers = page.timers.filter((t) => t !== due);
        page.time = due.at;
        due.cb();
      }
      page.time = end;
    },
  };
  return page;
}

async function settled(promise) {
  let value = null;
  promise.then((v) => (value = JSON.parse(JSON.stringify(v)))); // a plain object of this realm
  await new Promise((r) => setImmediate(r));
  return value;
}

test("a page that did not react is at rest once a frame was rendered and a moment passed", async () => {
  const page = fakePage({ lastChangeAt: 900 }); // its last change came before the action
  const waiting = rest.untilRest({ sinceMs: 2 }, page);
  page.renderFrame();
  assert.equal(await settled(waiting), null, "not before a moment after the action");
  page.advance(rest.MOMENT_MS - 2);
  assert.deepEqual(await settled(waiting), { rest: "quiet", waitedMs: rest.MOMENT_MS - 2 });
});

test("after a scripted action, a page that did not react needs no frame; one that did, does", async () => {
  const still = fakePage({ lastChangeAt: 900 });
  const quiet = rest.untilRest({ sinceMs: 0, scripted: true }, still);
  still.advance(rest.MOMENT_MS);
  assert.deepEqual(await settled(quiet), { rest: "quiet", waitedMs: rest.MOMENT_MS });

  const moved = fakePage();
  const waiting = rest.untilRest({ sinceMs: 0, scripted: true }, moved);
  moved.advance(2);
  moved.changed = moved.time; // the page reacts to the value
  moved.advance(rest.QUIET_MS + 10);
  assert.equal(await settled(waiting), null, "not before a frame");
  moved.renderFrame();
  moved.advance(0);
  assert.deepEqual(await settled(waiting), { rest: "quiet", waitedMs: rest.QUIET_MS + 12 });
});

test("a page that reacted at once is at rest a quiet window after its change", async () => {
  const page = fakePage({ lastChangeAt: 997 }); // the click's own change, before this was asked
  const waiting = rest.untilRest({ sinceMs: 5 }, page);
  page.renderFrame();
  page.advance(rest.QUIET_MS - 4);
  assert.equal(await settled(waiting), null);
  page.advance(1);
  assert.deepEqual(await settled(waiting), { rest: "quiet", waitedMs: rest.QUIET_MS - 3 });
});

test("after the frame, the page is looked at only once it is idle (its held-back tasks ran)", async () => {
  const page = fakePage({ lastChangeAt: 900 });
  const idle = [];
  page.idle = (cb) => {
    idle.push(cb);
    return () => idle.splice(idle.indexOf(cb), 1);
  };
  const waiting = rest.untilRest({ sinceMs: 50 }, page); // the moment has passed
  page.renderFrame();
  page.advance(10);
  assert.equal(await settled(waiting), null, "not before the page was idle");
  assert.equal(idle.length, 1);
  idle.shift()();
  assert.deepEqual(await settled(waiting), { rest: "quiet", waitedMs: 10 });
});

test("no answer before a frame was rendered, however long ago the page changed", async () => {
  const page = fakePage();
  const waiting = rest.untilRest({ sinceMs: 500 }, page);
  page.advance(50);
  assert.equal(await settled(waiting), null);
  page.renderFrame();
  assert.equal(await settled(waiting), null, "looked at in a task after the frame, not in it");
  page.advance(0);
  assert.equal((await settled(waiting)).rest, "quiet");
});

test("a change after the action restarts the quiet window", async () => {
  const page = fakePage();
  const waiting = rest.untilRest({ sinceMs: 0 }, page);
  page.advance(3);
  page.changed = page.time; // the page reacts
  page.advance(5);
  page.renderFrame();
  page.advance(rest.QUIET_MS - 6); // still within the quiet window of the first change
  assert.equal(await settled(waiting), null);
  page.changed = page.time; // and reacts again
  page.advance(rest.QUIET_MS - 1);
  assert.equal(await settled(waiting), null);
  page.advance(1);
  assert.deepEqual(await settled(waiting), { rest: "quiet", waitedMs: 2 * rest.QUIET_MS + 2 });
});

test("a page that never stops changing is answered at the bound as moving", async () => {
  const page = fakePage();
  const waiting = rest.untilRest({ sinceMs: 0, maxMs: 200 }, page);
  page.changed = page.time;
  page.renderFrame();
  for (let t = 0; t < 200; t += 10) {
    page.changed = page.time;
    page.advance(10);
  }
  assert.deepEqual(await settled(waiting), { rest: "moving", waitedMs: 200 });
});

test("a page that starts to leave answers at once", async () => {
  const page = fakePage();
  const waiting = rest.untilRest({ sinceMs: 0 }, page);
  page.advance(3);
  page.leave();
  assert.deepEqual(await settled(waiting), { rest: "leaving", waitedMs: 3 });
  assert.equal(page.leave, null, "the leave watch is removed");
  assert.equal(page.timers.length, 0, "no timer is left behind");
});

test("a page that renders no frame is not waited on for one past the fallback", async () => {
  const page = fakePage();
  const waiting = rest.untilRest({ sinceMs: 500 }, page);
  page.advance(99);
  assert.equal(await settled(waiting), null);
  page.advance(1);
  assert.equal((await settled(waiting)).rest, "quiet");
});

test("a hidden page needs no frame, and bounds that are no numbers fall back to the defaults", async () => {
  const page = fakePage({ hidden: true, lastChangeAt: 1000 });
  const waiting = rest.untilRest({ sinceMs: "x", maxMs: NaN, quietMs: "soon" }, page);
  page.advance(rest.QUIET_MS - 1);
  assert.equal(await settled(waiting), null, "the action counts as just now, with its change");
  page.advance(1);
  assert.deepEqual(await settled(waiting), { rest: "quiet", waitedMs: rest.QUIET_MS });
});

test("a page that sent a form is not at rest until it begins to leave", async () => {
  const page = fakePage();
  let expected = true;
  page.leaveExpected = () => expected;
  const waiting = rest.untilRest({ sinceMs: 50 }, page);
  page.renderFrame();
  page.advance(100);
  assert.equal(await settled(waiting), null, "still, but the form's answer is on its way");
  page.leave();
  assert.equal((await settled(waiting)).rest, "leaving");
  expected = false;
});

test("a sent form whose navigation never begins is waited on only to the bound", async () => {
  const page = fakePage();
  page.leaveExpected = () => true;
  const waiting = rest.untilRest({ sinceMs: 50, maxMs: 300 }, page);
  page.renderFrame();
  page.advance(300);
  assert.equal((await settled(waiting)).rest, "moving");
});
