// read_page: an accessibility-style outline of visible elements, one line each, with refs.
// Line shape: <indent><role> "<name>" [ref_N] href=".." value=".." type=".." placeholder=".."
// Elements without a role or name are transparent (their children move up a level).
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.tree) return;
  const dom = ns.dom;

  const DEFAULTS = { depth: 15, maxChars: 50_000 };
  // Link targets are listed while the whole outline stays within this many characters. On a
  // larger (link-heavy) page they are left out first, so that every element keeps its line and
  // ref within the budget; find and smaller ref_id reads still give them.
  const HREF_BUDGET = 40_000;
  const SHOW_CAP = 10_000; // lines
  const MEASURE_CAP = 20_000; // elements examined
  // Controls checked by the interactive view's scan of a page too large to walk whole.
  const SCAN_CAP = 100_000;
  const FOOTER_RESERVE = 240; // room kept for the footers inside max_chars
  const MAX_OPTIONS = 50;
  const INDENT = " "; // per outline level
  // Containers that add nothing of their own once the lines below them carry their text:
  // unnamed, or named only by text that includes interactive descendants (which get their own
  // lines), they are transparent in the "all" view. A label around its control is the
  // control's name already. Own text (a cell's "Acme" beside its link) is kept as the name.
  const STRUCTURAL_ROLES = new Set(["list", "listitem", "cell", "columnheader", "rowheader", "label", "group", "generic", "paragraph"]);

  function quote(text) {
    return `"${String(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, " ")}"`;
  }

  function intArg(value, fallback, min, max) {
    const n = Number(value);
    if (!Number.isFinite(n)) return fallback;
    return Math.min(Math.max(Math.floor(n), min), max);
  }

  // One outline line for an element (pure apart from reading the element).
  // A link's target as a line part (' href="..."'), or "".
  function hrefPart(el) {
    const href = dom.hrefOf(el);
    return href === null ? "" : ` href=${quote(dom.clip(href, 200))}`;
  }

  function formatLine(el, { role, name, ref, level, omitHref = false }) {
    const tag = dom.tagOf(el);
    const parts = [`${INDENT.repeat(level)}${role || tag.toLowerCase()}`];
    if (name) parts.push(quote(dom.clip(name, 100)));
    parts.push(`[${ref}]`);
    if (/^H[1-6]$/.test(tag)) parts.push(`level=${tag[1]}`);
    if (!omitHref && dom.hrefOf(el) !== null) parts.push(hrefPart(el).slice(1));
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
    // A select's chosen option is its value, shown like a field's (its name is its label).
    if (tag === "SELECT") {
      const chosen = dom.selectValueText(el);
      if (chosen) parts.push(`value=${quote(dom.clip(chosen, 80))}`);
    }
    const checked = dom.ariaChecked(el);
    if (checked !== null) parts.push(checked ? "checked" : "unchecked");
    const expanded = expandedState(el);
    if (expanded !== null) parts.push(expanded ? "expanded" : "collapsed");
    if (dom.isDisabled(el)) parts.push("disabled");
    return parts.join(" ");
  }

  // Whether a disclosure shows what it controls: a <details>'s summary by the open
  // attribute, anything else by aria-expanded; null when it is no disclosure. What a collapsed
  // one holds is hidden, and opened by clicking it.
  function expandedState(el) {
    const parent = el.parentElement;
    if (dom.tagOf(el) === "SUMMARY" && parent && dom.tagOf(parent) === "DETAILS") return !!parent.open;
    const aria = dom.attr(el, "aria-expanded").trim().toLowerCase();
    return aria === "true" ? true : aria === "false" ? false : null;
  }

  // The line for a frame element; a frame whose document cannot be read says so.
  function frameLine(el, { name, ref, level, readable }) {
    const parts = [`${INDENT.repeat(level)}iframe`];
    if (name) parts.push(quote(dom.clip(name, 100)));
    parts.push(`[${ref}]`);
    const src = dom.attr(el, "src");
    if (src) parts.push(`src=${quote(dom.clip(src, 200))}`);
    if (!readable) parts.push("(cross-origin: contents not readable)");
    return parts.join(" ");
  }

  function optionLines(select, level) {
    const lines = [];
    const options = [...(select.options || [])];
    for (const option of options.slice(0, MAX_OPTIONS)) {
      const selected = option.selected ? " (selected)" : "";
      lines.push(`${INDENT.repeat(level)}option ${quote(dom.clip(dom.collapse(option.textContent), 100))}${selected} value=${quote(dom.clip(String(option.value), 80))}`);
    }
    if (options.length > MAX_OPTIONS) lines.push(`${INDENT.repeat(level)}[${options.length - MAX_OPTIONS} more options]`);
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
    // A small max_chars still shows the first lines: the footers' room shrinks with it.
    const budget = maxChars - Math.min(FOOTER_RESERVE, Math.ceil(maxChars * 0.75));

    const lines = [];
    const hrefs = []; // [line index, insertion offset, ' href="..."']
    let hrefChars = 0;
    let used = 0;
    let shown = 0;
    let matched = 0;
    let measured = 0;
    let outOfRoom = false;
    let capReached = false;
    let opaqueFrames = 0;

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

    // An element's line, its link target kept aside (added at the end if they all fit); true
    // when the line was emitted.
    function emitElement(el, { role, name, ref, level }) {
      const line = formatLine(el, { role, name, ref, level, omitHref: true });
      if (!emit(line)) return false;
      shown += 1;
      const href = hrefPart(el);
      if (href) {
        hrefs.push([lines.length - 1, line.indexOf(`[${ref}]`) + ref.length + 2, href]);
        hrefChars += href.length;
      }
      return true;
    }

    // A frame: one line for the frame itself, then (same-origin) its document's elements
    // one level deeper; a cross-origin frame stays opaque and says so.
    function walkFrame(el, level, isStart, clip) {
      const frameDoc = dom.frameDocument(el);
      const visible = dom.isVisible(el, env);
      let include = visible && (filter === "all" || inView(el, clip));
      if (isStart) include = true;
      if (include) {
        matched += 1;
        if (!frameDoc) opaqueFrames += 1;
        const ref = refs.refFor(el);
        if (emit(frameLine(el, { name: dom.accessibleName(el), ref, level, readable: !!frameDoc }))) shown += 1;
      }
      if (!frameDoc || !(visible || isStart)) return;
      const childLevel = include ? level + 1 : level;
      if (childLevel >= depth) return;
      if (ctx.watchDocument) ctx.watchDocument(frameDoc);
      const inner = frameDoc.body || frameDoc.documentElement;
      walk(inner, childLevel, false, dom.frameClip(inner));
    }

    // Whether the element shows in the viewport: inside its frame's visible part and inside
    // its scroll containers (one scrolled out of its box is out of view, as below the fold).
    function inView(el, clip) {
      const rect = dom.rectOf(el);
      if (!dom.intersectsViewport(rect, env, clip)) return false;
      const region = dom.clipping(el, env, rect).region;
      return !region || dom.intersectsViewport(rect, env, region);
    }

    // parentName: the name of the interactive element around (its image adds nothing).
    function walk(el, level, isStart, clip, parentName = "") {
      if (measured >= MEASURE_CAP) {
        capReached = true;
        return;
      }
      if (dom.isSkipped(el) || !dom.isDisplayed(el, env)) return;
      measured += 1;
      if (dom.isFrame(el)) {
        walkFrame(el, level, isStart, clip);
        return;
      }
      const tag = dom.tagOf(el);
      const role = dom.roleOf(el);
      let name = dom.accessibleName(el);
      const visible = dom.isVisible(el, env);
      let include;
      if (filter === "interactive") {
        include = visible && dom.isInteractive(el) && inView(el, clip);
      } else if ((role === "img" || dom.isSvgText(el)) && name && name === parentName) {
        include = false; // the image or drawn words of a link or button already named by them
      } else {
        // A name taken from text that interactive descendants carry on their own lines is
        // reduced to the element's own text (a heading around its link keeps its line).
        if (name && !dom.isInteractive(el) && !dom.hasAuthoredName(el) && dom.hasInteractiveDescendant(el)) {
          name = role === "label" ? "" : dom.clip(dom.ownText(el), 100);
        }
        const structural = STRUCTURAL_ROLES.has(role) && !dom.isInteractive(el);
        include = visible && (!!name || (!!role && !structural));
      }
      if (isStart) include = true;

      let childLevel = level;
      if (include) {
        matched += 1;
        const ref = refs.refFor(el);
        if (emitElement(el, { role, name, ref, level }) && tag === "SELECT") {
          for (const line of optionLines(el, level + 1)) emit(line);
        }
        childLevel = level + 1;
      }
      if (dom.isOpaque(el) || childLevel >= depth) return;
      const named = include && dom.isInteractive(el) ? name : "";
      for (const child of dom.childElements(el)) walk(child, childLevel, false, clip, named);
    }

    // The controls an interactive view lists, wherever they are: as the browser finds them in
    // each root (the document, its shadow roots and readable frames), one flat line each. For
    // a page too large to walk whole, whose part in view may lie past the walk's cap.
    function scanInteractive(startDoc) {
      const roots = [startDoc];
      let checked = 0;
      for (let i = 0; i < roots.length; i++) {
        const node = roots[i];
        if (typeof node.querySelectorAll !== "function") continue;
        for (const host of dom.shadowHosts(node)) roots.push(dom.shadowOf(host));
        for (const frame of node.querySelectorAll("iframe, frame")) {
          if (!dom.isVisible(frame, env)) continue;
          const frameDoc = dom.frameDocument(frame);
          if (frameDoc) {
            if (ctx.watchDocument) ctx.watchDocument(frameDoc);
            roots.push(frameDoc);
          } else if (inView(frame, dom.frameClip(frame))) {
            matched += 1;
            opaqueFrames += 1;
            const line = frameLine(frame, { name: dom.accessibleName(frame), ref: refs.refFor(frame), level: 0, readable: false });
            if (emit(line)) shown += 1;
          }
        }
        for (const el of node.querySelectorAll(dom.INTERACTIVE_SELECTOR)) {
          checked += 1;
          if (checked > SCAN_CAP) return { checked: SCAN_CAP, capped: true };
          if (dom.isSkipped(el) || !dom.isVisible(el, env) || !inView(el, dom.frameClip(el))) continue;
          matched += 1;
          emitElement(el, { role: dom.roleOf(el), name: dom.accessibleName(el), ref: refs.refFor(el), level: 0 });
        }
      }
      return { checked, capped: false };
    }

    if (start) walk(start, 0, !!(args && args.ref_id), dom.frameClip(start));
    let scanned = null;
    if (capReached && filter === "interactive" && !(args && args.ref_id)) {
      // The walk ran out before the end of the page: what it listed may miss what is in view.
      lines.length = 0;
      hrefs.length = 0;
      used = shown = matched = hrefChars = opaqueFrames = 0;
      outOfRoom = false;
      scanned = scanInteractive(doc);
      capReached = scanned.capped;
    }

    const withHrefs = !outOfRoom && !capReached && used + hrefChars <= Math.min(budget, HREF_BUDGET);
    if (withHrefs) {
      for (const [index, at, href] of hrefs) lines[index] = lines[index].slice(0, at) + href + lines[index].slice(at);
    }

    const footers = [];
    if (scanned && !scanned.capped) {
      footers.push(`[a large page: its ${scanned.checked} controls were checked one by one, so they are listed without nesting]`);
    }
    if (capReached && scanned) footers.push(`[control cap reached: checked ${SCAN_CAP} controls; use ref_id to read a part of the page]`);
    else if (capReached) footers.push(`[element cap reached: examined ${MEASURE_CAP} elements; use ref_id to read a part of the page]`);
    if (outOfRoom) {
      footers.push(
        `[showing ${shown} of ${matched} elements: output reached max_chars=${maxChars}. ` +
          'Use ref_id to read a subtree, filter="interactive", or a larger max_chars]',
      );
    }
    if (hrefs.length && !withHrefs) {
      // Why, in the terms that held: the outline was cut short, or the links would not fit.
      const why = outOfRoom || capReached
        ? "the outline was cut short"
        : `this outline is over ${Math.min(budget, HREF_BUDGET)} characters with them`;
      footers.push(
        `[link targets (href) left out: ${why}. ` +
          "find returns a link's href; read_page with ref_id lists them for a smaller part]",
      );
    }
    if (opaqueFrames) {
      footers.push(
        `[${opaqueFrames} cross-origin frame(s) shown as opaque: their contents cannot be read from this page; ` +
          "use a screenshot and coordinates inside them]",
      );
    }
    if (filter === "interactive") footers.push("[interactive filter: only elements intersecting the viewport are listed]");
    if (lines.length === 0) footers.push(capReached ? "(no matching elements in the part examined)" : "(no matching elements)");
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

  ns.tree = { HREF_BUDGET, formatLine, frameLine, readPage };
})(globalThis);
