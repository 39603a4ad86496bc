// narrate: a short caption for the person watching the browser, drawn at the top or bottom
// edge; "auto" puts it at the edge away from where the last action happened. It takes no clicks
// and is hidden from assistive technology; a new caption replaces one still showing.
//
// The page shares the DOM, so it can always tell that a caption is there (it sees the element
// and its box), and it can remove it, cover it or draw a look-alike of its own elsewhere. What
// is done about that here:
// - The words never reach the page's scripts. The caption is built in a detached document and
//   given a closed shadow root there, so a custom element the page defined under its tag is
//   upgraded only once the root exists (its ElementInternals then do not hand the root over).
//   The words are generated content (`::before`), which window.find, selections and the caret
//   do not reach, and the caption's styles are `!important` rules of its shadow tree, which
//   outrank whatever the page sets on it, inline styles and pseudo-elements included.
// - It is raised into the top layer (a manual popover), above everything of the page's but
//   the page's own top-layer elements raised after it.
// - While it lasts it is watched. Taken out, moved, altered or dropped from the top layer, it
//   is put back at once (at most once per RESTORE_GAP_MS, so a page that takes it out again as
//   soon as it is back cannot hold the page in a loop). Overlapped by a page element raised
//   into the top layer after it, not the topmost element at its own points (hit-tested as if
//   it took clicks), or shrunk past reading (a zoom on the page's root), it is raised again.
//   Each is counted, and show() answers after the first WATCH_MS (half the caption's time, if
//   that is shorter) with how often each happened.
// What the checks cannot see: a page element that takes no clicks, raised again into the top
// layer with its toggle event kept from the content script, or shown from inside a shadow
// tree; and a look-alike drawn where the caption is not. The tab group's title (the worker's
// group-caption.js) carries the same words where no page can reach.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.narrate) return;

  const TAG = "ghostlight-narration";
  const MIN_MS = 1000;
  const MAX_MS = 30000;
  const WATCH_MS = 1000;
  const CHECK_MS = 50;
  const RESTORE_GAP_MS = 10;
  const MIN_SIDE_PX = 16; // smaller than this (a page's zoom on its root shrinks it), it cannot be read
  const TOP_LAYER = ":popover-open, :modal, :fullscreen";
  const OWN_ATTRIBUTES = { "aria-hidden": "true", popover: "manual" };
  let current = null; // the caption showing, with its guard
  let lastActivityY = null;

  function noteActivity(y) {
    if (Number.isFinite(y)) lastActivityY = y;
  }

  // Pure: the edge to use for a requested position, given the last action's height.
  function chooseEdge(position, viewportHeight, activityY = lastActivityY) {
    if (position === "top" || position === "bottom") return position;
    return activityY !== null && activityY > viewportHeight * 0.6 ? "top" : "bottom";
  }

  // Pure: `text` as a CSS string literal. Everything but letters, digits and spaces is escaped,
  // so no text can end the string or the rule.
  function cssString(text) {
    let out = '"';
    for (const ch of String(text)) out += /[\p{L}\p{N} ]/u.test(ch) ? ch : `\\${ch.codePointAt(0).toString(16)} `;
    return `${out}"`;
  }

  function captionRules(text, edge) {
    const inset = edge === "top" ? "0 0 auto 0" : "auto 0 0 0";
    return (
      // A flex box, so that the page's ::first-line and ::first-letter rules for the element do
      // not reach its words; its ::before and ::after hold nothing the page could put there.
      `:host { all: initial !important; display: flex !important; visibility: visible !important;` +
      ` opacity: 1 !important; position: fixed !important; inset: ${inset} !important;` +
      ` z-index: 2147483647 !important; margin: 0 !important; padding: 0 !important; border: 0 !important;` +
      ` width: auto !important; height: auto !important; overflow: visible !important;` +
      ` background: transparent !important; pointer-events: none !important; user-select: none !important; }` +
      ` :host::before, :host::after { content: none !important; display: none !important; }` +
      ` .bar { display: block; margin: 8px auto; width: fit-content; max-width: 80%; padding: 6px 14px;` +
      ` border-radius: 6px; background: rgba(20, 20, 28, 0.88); color: #fff; font: 14px/1.4 system-ui, sans-serif;` +
      ` text-align: center; overflow-wrap: anywhere; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.3); pointer-events: none; }` +
      ` .bar::before { content: ${cssString(text)}; }`
    );
  }

  // The caption's element and what only this script holds of it: its closed shadow root, the
  // bar drawn in it, and the rule that lets it be hit-tested for a moment.
  function build(doc, text, edge) {
    const scratch = doc.implementation.createHTMLDocument("");
    const host = scratch.createElement(TAG);
    const shadow = host.attachShadow({ mode: "closed" });
    const style = scratch.createElement("style");
    style.textContent = captionRules(text, edge);
    const bar = scratch.createElement("div");
    bar.className = "bar";
    shadow.append(style, bar);
    const probe = scratch.createElement("style");
    probe.textContent = ":host, .bar { pointer-events: auto !important; }";
    for (const [name, value] of Object.entries(OWN_ATTRIBUTES)) host.setAttribute(name, value);
    return { host, shadow, bar, probe };
  }

  function attributesIntact(host) {
    const names = Object.keys(OWN_ATTRIBUTES);
    return host.attributes.length === names.length && names.every((name) => host.getAttribute(name) === OWN_ATTRIBUTES[name]);
  }

  function inTopLayer(host) {
    try {
      return host.matches(":popover-open");
    } catch {
      return true; // a browser without popovers: the z-index is all there is
    }
  }

  // Whether the caption's box is drawn at all, as far as its own styles say.
  function isShown(host, env) {
    const style = env && env.getComputedStyle ? env.getComputedStyle(host) : null;
    if (!style) return true;
    return style.display !== "none" && style.visibility !== "hidden" && Number(style.opacity) !== 0;
  }

  // The page's elements in the top layer, as far as the document's own tree shows them.
  function topLayer(doc, host) {
    try {
      return [...doc.querySelectorAll(TOP_LAYER)].filter((el) => el !== host);
    } catch {
      return [];
    }
  }

  function overlaps(a, b) {
    return a.width > 0 && a.height > 0 && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }

  // Keeps the caption up while it lasts and counts what the page did to it.
  function guard(doc, caption, env, durationMs, onEnd) {
    const { host, shadow, bar, probe } = caption;
    const now = () => root.performance.now();
    const startedAt = now();
    const counts = { removed: 0, covered: 0 };
    let below = new WeakSet(); // the page's top-layer elements raised before the caption was
    let down = false; // seen taken out and not put back yet
    let lastRestore = -Infinity;
    let restoreTimer = null;
    let tick = null;
    let lifetime = null;
    let ended = false;
    const watchers = [];

    const observer = new root.MutationObserver(() => check(false));
    function observe() {
      observer.observe(doc, { childList: true });
      if (doc.documentElement) observer.observe(doc.documentElement, { childList: true });
      observer.observe(host, { attributes: true });
    }

    function placed() {
      return host.isConnected && !!doc.documentElement && host.parentNode === doc.documentElement && attributesIntact(host) && inTopLayer(host) && isShown(host, env);
    }

    function raise() {
      try {
        if (host.matches(":popover-open")) host.hidePopover();
        host.showPopover();
      } catch {
        // taken out again meanwhile, or refused: the next check sees it
      }
      below = new WeakSet(topLayer(doc, host));
    }

    function restore() {
      restoreTimer = null;
      if (ended) return;
      lastRestore = now();
      for (const { name } of [...host.attributes]) if (!(name in OWN_ATTRIBUTES)) host.removeAttribute(name);
      for (const [name, value] of Object.entries(OWN_ATTRIBUTES)) if (host.getAttribute(name) !== value) host.setAttribute(name, value);
      const parent = doc.documentElement;
      if (parent && host.parentNode !== parent) {
        parent.appendChild(host);
        observe(); // the page may have put a new root element in place
      }
      raise();
      down = !placed();
    }

    // Whether the page hides the caption or draws something over it.
    function covered() {
      const box = bar.getBoundingClientRect();
      if (!(box.width >= MIN_SIDE_PX && box.height >= MIN_SIDE_PX)) return true;
      for (const el of topLayer(doc, host)) if (!below.has(el) && overlaps(el.getBoundingClientRect(), box)) return true;
      const width = env.innerWidth || box.right;
      const height = env.innerHeight || box.bottom;
      const y = Math.min(height - 1, Math.max(0, box.top + box.height / 2));
      const xs = [box.left + 2, box.left + box.width / 2, box.right - 2].map((x) => Math.min(width - 1, Math.max(0, x)));
      shadow.appendChild(probe);
      try {
        return xs.some((x) => doc.elementFromPoint(x, y) !== host);
      } finally {
        probe.remove();
      }
    }

    function check(full) {
      if (ended) return;
      if (!placed()) {
        if (!down) counts.removed += 1;
        down = true;
        if (restoreTimer === null) {
          const wait = lastRestore + RESTORE_GAP_MS - now();
          if (wait <= 0) restore();
          else restoreTimer = root.setTimeout(restore, wait);
        }
        return;
      }
      down = false;
      if (full && covered()) {
        counts.covered += 1;
        raise();
      }
    }

    // A page element shown as a popover after the caption may be drawn over it.
    const onToggle = (event) => {
      if (event.target === host || event.newState !== "open") return;
      below.delete(event.target);
    };

    // Checked every CHECK_MS while it is watched, less often after that.
    function loop() {
      tick = null;
      check(true);
      if (!ended) tick = root.setTimeout(loop, now() - startedAt < WATCH_MS ? CHECK_MS : 4 * CHECK_MS);
    }

    function stop() {
      if (ended) return;
      ended = true;
      observer.disconnect();
      root.clearTimeout(tick);
      root.clearTimeout(restoreTimer);
      root.clearTimeout(lifetime);
      root.removeEventListener("beforetoggle", onToggle, true);
      try {
        if (host.matches(":popover-open")) host.hidePopover();
      } catch {
        // gone already
      }
      host.remove();
      for (const resolve of watchers.splice(0)) resolve();
    }

    observe();
    root.addEventListener("beforetoggle", onToggle, true);
    doc.documentElement.appendChild(host);
    raise();
    loop();
    lifetime = root.setTimeout(() => onEnd(), durationMs);

    // Resolves after `ms` (or when the caption goes first) with what the page did meanwhile.
    function watch(ms) {
      return new Promise((resolve) => {
        const timer = root.setTimeout(() => {
          check(true);
          resolve();
        }, ms);
        watchers.push(() => {
          root.clearTimeout(timer);
          resolve();
        });
      }).then(() => ({
        removed: counts.removed,
        covered: counts.covered,
        watchedMs: Math.round(Math.min(now() - startedAt, ms)),
        ...(ended ? { cutShort: true } : {}),
      }));
    }

    return { stop, watch };
  }

  function hide() {
    if (!current) return;
    const { guarded } = current;
    current = null;
    guarded.stop();
  }

  // Draws the caption and answers after WATCH_MS (half its time, when that is shorter; sooner
  // when a later caption replaces it) with how often the page took it out, or hid it or drew
  // over it, meanwhile. It stays up, guarded, for the rest of its time.
  async function show(doc, args, env) {
    const text = String(args.text || "").slice(0, 240);
    if (!text.trim()) throw new ns.PageError("narrate needs some text", "bad_args");
    if (!doc.documentElement) throw new ns.PageError("the page has no root element to draw the caption on", "page_error");
    const edge = chooseEdge(args.position, env.innerHeight);
    const requested = Number(args.durationMs);
    const duration = Number.isFinite(requested) ? Math.min(MAX_MS, Math.max(MIN_MS, requested)) : 5000;
    const replaced = current !== null;
    hide();
    const caption = build(doc, text, edge);
    const entry = {};
    entry.guarded = guard(doc, caption, env, duration, () => {
      if (current === entry) hide();
    });
    current = entry;
    // Half its time at most, so the caption is still up when the answer comes.
    const seen = await entry.guarded.watch(Math.min(WATCH_MS, duration / 2));
    return { shown: true, position: edge, durationMs: duration, replaced, ...seen };
  }

  // A brief outline around the element an action is about to reach (act_on), so the person
  // watching sees what will be clicked. Like the caption it takes no clicks.
  const CUE_TAG = "ghostlight-cue";
  const CUE_MS = 900;
  function cue(doc, rect) {
    const host = doc.createElement(CUE_TAG);
    host.setAttribute("aria-hidden", "true");
    const pad = 3;
    host.style.cssText =
      `all: initial; position: fixed; z-index: 2147483647; pointer-events: none; box-sizing: border-box;` +
      ` left: ${rect.x - pad}px; top: ${rect.y - pad}px; width: ${rect.width + 2 * pad}px;` +
      ` height: ${rect.height + 2 * pad}px; border: 3px solid rgba(230, 30, 30, 0.9); border-radius: 4px;`;
    (doc.documentElement || doc.body).appendChild(host);
    root.setTimeout(() => host.remove(), CUE_MS);
    return { shown: true, ms: CUE_MS };
  }

  // True for a mutation record that only adds, removes or re-attributes our own captions and
  // cues (not a page change).
  function isOwnMutation(record) {
    const own = (node) => String(node && node.nodeName).startsWith("GHOSTLIGHT-");
    if (record.type === "attributes") return own(record.target);
    if (record.type !== "childList") return false;
    const nodes = [...(record.addedNodes || []), ...(record.removedNodes || [])];
    return nodes.length > 0 && nodes.every(own);
  }

  ns.narrate = { show, hide, cue, chooseEdge, cssString, noteActivity, isOwnMutation };
})(globalThis);
