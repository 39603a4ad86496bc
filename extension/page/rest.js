// untilRest: after an input action the page waits here, once, until it has come to rest, so
// that the service takes the action's receipt from one answer instead of polling. At rest: a
// frame was rendered since the action (what the page did at once, and in its next frame, is in
// the DOM; and the browser, which renders first after input, runs the page's deferred tasks only
// then), a moment has passed since the action (a change scheduled a moment later is seen), and
// a page that changed since the action has then not changed for a quiet window (one reacting in
// steps is seen to its end). A page that starts to leave (a navigation) answers at once, and
// one still changing at the bound answers then and says so: the receipt reports what it saw,
// never that all is still. An action the page's own script carried out (`scripted`: a value
// set, no browser input) holds none of the page's tasks back: a frame is waited for only once
// the page changed.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.rest) return;

  // How long the DOM must stay unchanged after a change the action brought, to be at rest.
  const QUIET_MS = 12;
  // How long after the action the page is looked at, at the least: a change it deferred by a few
  // milliseconds is seen.
  const MOMENT_MS = 5;
  // The longest wait for a page that keeps changing.
  const MAX_MS = 600;
  // A page that renders no frame (hidden, or throttled) is not waited on for one past this.
  const FRAME_FALLBACK_MS = 100;
  const LIMIT_MS = 10_000;
  // How often a page that sent a form is looked at until it begins to leave.
  const LEAVE_POLL_MS = 5;

  function bounded(value, fallback) {
    const n = Number(value);
    return Number.isFinite(n) ? Math.min(LIMIT_MS, Math.max(0, n)) : fallback;
  }

  // `args`: {quietMs, momentMs, maxMs, sinceMs: how long ago the action's last input went out,
  // scripted}.
  // `page`: {now(), frame(cb), later(cb, ms) -> cancel, idle?(cb) -> cancel: once nothing else
  // waits to run, hidden(), lastChangeAt(), onLeave(cb) -> off,
  // leaveExpected()?: a form was sent and the browser has not begun to leave for its answer}.
  // Resolves {rest: "quiet" | "moving" | "leaving", waitedMs}.
  function untilRest(args, page) {
    const quietMs = bounded(args && args.quietMs, QUIET_MS);
    const momentMs = bounded(args && args.momentMs, MOMENT_MS);
    const maxMs = bounded(args && args.maxMs, MAX_MS);
    const started = page.now();
    // The action happened before this was asked: the moment is counted from it, not from now.
    const actedAt = started - bounded(args && args.sinceMs, 0);
    const scripted = !!args && args.scripted === true;
    return new Promise((resolve) => {
      let framed = page.hidden();
      let cancel = () => {};
      let cancelFallback = () => {};
      let finished = false;
      const finish = (rest) => {
        if (finished) return;
        finished = true;
        cancel();
        cancelFallback();
        offLeave();
        resolve({ rest, waitedMs: Math.round(page.now() - started) });
      };
      const check = () => {
        if (finished) return;
        cancel();
        const now = page.now();
        const changedAt = page.lastChangeAt();
        const moment = actedAt + momentMs;
        const reacted = changedAt >= actedAt;
        const wait = (reacted ? Math.max(changedAt + quietMs, moment) : moment) - now;
        const leaving = typeof page.leaveExpected === "function" && page.leaveExpected();
        const drawn = framed || (scripted && !reacted);
        if (drawn && wait <= 0 && !leaving) return finish("quiet");
        const left = started + maxMs - now;
        if (left <= 0) return finish("moving");
        const next = drawn && !leaving ? wait : Math.min(left, LEAVE_POLL_MS);
        cancel = page.later(check, Math.max(1, Math.min(next, left)));
      };
      // Looked at once the page is idle after the frame, not in it: the page's own tasks held
      // back for the frame (and any other it had waiting) run first.
      const rendered = () => {
        if (framed) return;
        framed = true;
        cancel();
        cancel = page.idle ? page.idle(check) : page.later(check, 0);
      };
      const offLeave = page.onLeave(() => finish("leaving"));
      page.frame(rendered);
      cancelFallback = page.later(rendered, FRAME_FALLBACK_MS);
      check();
    });
  }

  ns.rest = { untilRest, QUIET_MS, MOMENT_MS, MAX_MS };
})(globalThis);
