// narrate: a short caption for the person watching the browser, drawn at the top or bottom
// edge. It lives in a closed shadow root outside the body: it takes no clicks
// (pointer-events: none), is hidden from assistive technology, and the page's own scripts
// cannot read its words. A new caption replaces one still showing; "auto" puts it at the edge
// away from where the last action happened.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.narrate) return;

  const TAG = "ghostlight-narration";
  const MIN_MS = 1000;
  const MAX_MS = 30000;
  let current = null; // {host, timer}
  let lastActivityY = null;

  function noteActivity(y) {
    if (Number.isFinite(y)) lastActivityY = y;
  }

  // Pure: the edge to use for a requested position, given the last action's height.
  function chooseEdge(position, viewportHeight, activityY = lastActivityY) {
    if (position === "top" || position === "bottom") return position;
    return activityY !== null && activityY > viewportHeight * 0.6 ? "top" : "bottom";
  }

  function hide() {
    if (!current) return;
    root.clearTimeout(current.timer);
    current.host.remove();
    current = null;
  }

  // Whether the caption's box is drawn at all, as far as its own styles say.
  function isShown(host, env) {
    const style = env && env.getComputedStyle ? env.getComputedStyle(host) : null;
    if (!style) return true;
    return style.display !== "none" && style.visibility !== "hidden" && Number(style.opacity) !== 0;
  }

  function show(doc, args, env) {
    const text = String(args.text || "").slice(0, 240);
    if (!text.trim()) throw new ns.PageError("narrate needs some text", "bad_args");
    const edge = chooseEdge(args.position, env.innerHeight);
    const requested = Number(args.durationMs);
    const duration = Number.isFinite(requested) ? Math.min(MAX_MS, Math.max(MIN_MS, requested)) : 5000;
    const replaced = current !== null;
    hide();
    const host = doc.createElement(TAG);
    host.setAttribute("aria-hidden", "true");
    // Important inline declarations outrank any page rule, so a page's styles cannot hide it.
    host.style.cssText =
      "all: initial !important; display: block !important; visibility: visible !important; opacity: 1 !important;" +
      " position: fixed !important; left: 0 !important; right: 0 !important; z-index: 2147483647 !important;" +
      " pointer-events: none !important; " +
      (edge === "top" ? "top: 0 !important;" : "bottom: 0 !important;");
    const shadow = host.attachShadow({ mode: "closed" });
    const bar = doc.createElement("div");
    bar.textContent = text;
    bar.style.cssText =
      "margin: 8px auto; width: fit-content; max-width: 80%; padding: 6px 14px; border-radius: 6px;" +
      " background: rgba(20, 20, 28, 0.88); color: #fff; font: 14px/1.4 system-ui, sans-serif;" +
      " text-align: center; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.3); pointer-events: none;";
    shadow.appendChild(bar);
    (doc.documentElement || doc.body).appendChild(host);
    current = { host, timer: root.setTimeout(hide, duration) };
    return { shown: true, visible: isShown(host, env), position: edge, durationMs: duration, replaced };
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

  // True for a mutation record that only adds or removes our own captions and cues (not a
  // page change).
  function isOwnMutation(record) {
    if (record.type !== "childList") return false;
    const nodes = [...(record.addedNodes || []), ...(record.removedNodes || [])];
    return nodes.length > 0 && nodes.every((node) => String(node.nodeName).startsWith("GHOSTLIGHT-"));
  }

  ns.narrate = { show, hide, cue, chooseEdge, noteActivity, isOwnMutation };
})(globalThis);
