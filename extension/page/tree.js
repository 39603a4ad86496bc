// read_page: an accessibility-style outline of visible elements, one line each, with refs.
// Line shape: <indent><role> "<name>" [ref_N] href=".." value=".." type=".." placeholder=".."
// Elements without a role or name are transparent (their children move up a level).
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.tree) return;
  const dom = ns.dom;

  const DEFAULTS = { depth: 15, maxChars: 50_000 };
  const SHOW_CAP = 10_000; // lines
  const MEASURE_CAP = 20_000; // elements examined
  const FOOTER_RESERVE = 240; // room kept for the footers inside max_chars
  const MAX_OPTIONS = 50;

  function quote(text) {
    return `"${String(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, " ")}"`;
  }

  function intArg(value, fallback, min, max) {
    const n = Number(value);
    if (!Number.isFinite(n)) return fallback;
    return Math.min(Math.max(Math.floor(n), min), max);
  }

  // One outline line for an element (pure apart from reading the element).
  function formatLine(el, { role, name, ref, level }) {
    const tag = dom.tagOf(el);
    const parts = [`${"  ".repeat(level)}${role || tag.toLowerCase()}`];
    if (name) parts.push(quote(dom.clip(name, 100)));
    parts.push(`[${ref}]`);
    if (/^H[1-6]$/.test(tag)) parts.push(`level=${tag[1]}`);
    if (tag === "A" && el.hasAttribute("href")) parts.push(`href=${quote(dom.clip(dom.attr(el, "href"), 200))}`);
    if (tag === "INPUT" || tag === "TEXTAREA") {
      const type = dom.attr(el, "type").toLowerCase();
      const isToggle = type === "checkbox" || type === "radio";
      const value = typeof el.value === "string" ? el.value : "";
      if (value && !isToggle) {
        // The service decides whether secret values are shown or redacted.
        parts.push(`${dom.isSecretField(el) ? "secret_value" : "value"}=${quote(dom.clip(value, 80))}`);
      }
      if (tag === "INPUT") parts.push(`type=${quote(type || "text")}`);
      if (isToggle) parts.push(el.checked ? "checked" : "unchecked");
      const placeholder = dom.attr(el, "placeholder");
      if (placeholder && placeholder !== name) parts.push(`placeholder=${quote(dom.clip(placeholder, 80))}`);
    }
    if (dom.isDisabled(el)) parts.push("disabled");
    return parts.join(" ");
  }

  function optionLines(select, level) {
    const lines = [];
    const options = [...(select.options || [])];
    for (const option of options.slice(0, MAX_OPTIONS)) {
      const selected = option.selected ? " (selected)" : "";
      lines.push(`${"  ".repeat(level)}option ${quote(dom.clip(dom.collapse(option.textContent), 100))}${selected} value=${quote(dom.clip(String(option.value), 80))}`);
    }
    if (options.length > MAX_OPTIONS) lines.push(`${"  ".repeat(level)}[${options.length - MAX_OPTIONS} more options]`);
    return lines;
  }

  // Mechanism entry point.
  //   args: {filter?: "all"|"interactive", depth?, max_chars?, ref_id?}
  //   ctx:  {env, refs}
  // Result: {text, shown, matched, truncated, renderSerial, viewport:{width,height}}
  function readPage(doc, args, ctx) {
    const { env, refs } = ctx;
    const filter = args && args.filter === "interactive" ? "interactive" : "all";
    const depth = intArg(args && args.depth, DEFAULTS.depth, 1, 100);
    const maxChars = intArg(args && args.max_chars, DEFAULTS.maxChars, 200, 2_000_000);
    const start = args && args.ref_id ? refs.resolve(args.ref_id) : doc.body || doc.documentElement;
    const budget = Math.max(0, maxChars - FOOTER_RESERVE);

    const lines = [];
    let used = 0;
    let shown = 0;
    let matched = 0;
    let measured = 0;
    let outOfRoom = false;
    let capReached = false;

    function emit(line) {
      if (outOfRoom) return false;
      if (used + line.length + 1 > budget || shown >= SHOW_CAP) {
        outOfRoom = true;
        return false;
      }
      lines.push(line);
      used += line.length + 1;
      return true;
    }

    function walk(el, level, isStart) {
      if (measured >= MEASURE_CAP) {
        capReached = true;
        return;
      }
      if (dom.isSkipped(el) || !dom.isDisplayed(el, env)) return;
      measured += 1;
      const tag = dom.tagOf(el);
      const role = dom.roleOf(el);
      const name = dom.accessibleName(el);
      const visible = dom.isVisible(el, env);
      let include;
      if (filter === "interactive") {
        include = visible && dom.isInteractive(el) && dom.intersectsViewport(dom.rectOf(el), env);
      } else {
        include = visible && (!!role || !!name);
      }
      if (isStart) include = true;

      let childLevel = level;
      if (include) {
        matched += 1;
        if (!outOfRoom && emit(formatLine(el, { role, name, ref: refs.refFor(el), level }))) {
          shown += 1;
          if (tag === "SELECT") for (const line of optionLines(el, level + 1)) emit(line);
        }
        childLevel = level + 1;
      }
      if (dom.OPAQUE_TAGS.has(tag) || childLevel >= depth) return;
      for (const child of dom.childElements(el)) walk(child, childLevel, false);
    }

    if (start) walk(start, 0, !!(args && args.ref_id));

    const footers = [];
    if (capReached) footers.push(`[element cap reached: examined ${MEASURE_CAP} elements; use ref_id to read a part of the page]`);
    if (outOfRoom) {
      footers.push(
        `[showing ${shown} of ${matched} elements: output reached max_chars=${maxChars}. ` +
          'Use ref_id to read a subtree, filter="interactive", or a larger max_chars]',
      );
    }
    if (filter === "interactive") footers.push("[interactive filter: only elements intersecting the viewport are listed]");
    if (lines.length === 0) footers.push("(no matching elements)");
    footers.push(`Viewport: ${env.innerWidth}x${env.innerHeight}`);

    return {
      text: [...lines, ...footers].join("\n"),
      shown,
      matched,
      truncated: outOfRoom || capReached,
      renderSerial: refs.serial(),
      viewport: { width: env.innerWidth, height: env.innerHeight },
    };
  }

  ns.tree = { formatLine, readPage };
})(globalThis);
