// wait_probe: one observation for wait_for. Which elements match a CSS selector and/or contain
// a text (whitespace-collapsed, case-insensitive), how many of them are visible, and the first
// visible match (else the first match) described with a ref. Like find, the search covers open
// shadow roots and readable (same-origin) frames. Text without a selector matches the deepest
// elements whose text contains it, so a match names the element showing the text rather than
// <body>. A page too large to read whole says so (capped), so that an absence is never
// reported from a partial read; so do shown cross-origin frames, which cannot be read at all
// (opaqueFrames): an absence holds for this document only.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.wait) return;
  const dom = ns.dom;

  // Elements read for text per observation; past it the answer is partial and says so.
  const ELEMENT_CAP = 200_000;
  // Matches whose visibility is counted one by one; past it only a first visible one is sought.
  const VISIBLE_CAP = 5_000;
  const FRAME_DEPTH = 8;
  const ROOT_CAP = 2_000;
  const KEEP = 50;

  // Text as find matches it (dom.fold: no accents, width or case), whitespace collapsed.
  function normalize(text) {
    return dom.collapse(dom.fold(text));
  }

  // --- text -------------------------------------------------------------------------------

  // One document's text as a single folded string with whitespace runs collapsed, open
  // shadow roots read before their host's light children. Element boundaries count as
  // whitespace (adjacent text nodes run together). Each text node's piece is recorded with
  // its span and the element holding it. Readable frame documents met are added to scan.docs.
  function readDocument(start, depth, scan) {
    const read = { parts: [], length: 0, spaced: true, starts: [], ends: [], owners: [] };
    const stack = [start];
    const containers = [null];
    let lastContainer = null;
    let boundary = true;
    while (stack.length) {
      const node = stack.pop();
      const container = containers.pop();
      if (node.nodeType === 3) {
        const apart = boundary || container !== lastContainer;
        const owner = container.nodeType === 11 ? container.host : container;
        addPiece(read, node.nodeValue, owner, apart);
        lastContainer = container;
        boundary = false;
        continue;
      }
      if (node.nodeType !== 1) continue;
      boundary = true;
      if (scan.elements >= ELEMENT_CAP) {
        scan.capped = true;
        break;
      }
      scan.elements += 1;
      if (dom.isSkipped(node)) continue;
      if (dom.isFrame(node)) {
        addFrame(node, depth, scan);
        continue;
      }
      pushChildren(stack, containers, node, node);
      // Pushed last, so read first: the shadow tree is what the host shows.
      const shadow = dom.shadowOf(node);
      if (shadow) pushChildren(stack, containers, shadow, shadow);
    }
    return { text: read.parts.join(""), starts: read.starts, ends: read.ends, owners: read.owners };
  }

  // Child nodes, last first (sibling links are the cheapest walk on a large page).
  function pushChildren(stack, containers, parent, container) {
    for (let child = parent.lastChild; child; child = child.previousSibling) {
      stack.push(child);
      containers.push(container);
    }
  }

  function addPiece(read, value, owner, apart) {
    // Folded piece by piece, so each piece's span is in the folded text the needle is sought in.
    let piece = dom.fold(value).replace(/\s+/g, " ");
    if (read.spaced && piece.startsWith(" ")) piece = piece.slice(1);
    if (!piece) return;
    if (apart && !read.spaced && !piece.startsWith(" ")) {
      read.parts.push(" ");
      read.length += 1;
    }
    read.starts.push(read.length);
    read.parts.push(piece);
    read.length += piece.length;
    read.ends.push(read.length);
    read.owners.push(owner);
    read.spaced = piece.endsWith(" ");
  }

  function addFrame(el, depth, scan) {
    if (depth >= FRAME_DEPTH) return;
    const doc = dom.frameDocument(el);
    if (!doc) {
      noteOpaque(el, scan);
      return;
    }
    if (scan.watch) scan.watch(doc);
    scan.docs.push({ doc, depth: depth + 1 });
  }

  // Index of the piece holding text position `pos` (the last piece starting at or before it).
  function pieceAt(starts, pos) {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  function commonAncestor(a, b) {
    if (a === b) return a;
    const around = new Set();
    for (let el = a; el; el = dom.composedParent(el)) around.add(el);
    for (let el = b; el; el = dom.composedParent(el)) if (around.has(el)) return el;
    return a;
  }

  // For each occurrence of `needle` in a read document, the deepest element around all of it.
  function holdersIn(read, needle, out) {
    const { text, starts, ends, owners } = read;
    let from = 0;
    for (let at = text.indexOf(needle, from); at !== -1; at = text.indexOf(needle, from)) {
      const first = pieceAt(starts, at);
      const last = pieceAt(starts, at + needle.length - 1);
      out.add(commonAncestor(owners[first], owners[last]));
      // Further occurrences inside the same piece have the same holder: skip to those leaving it.
      from = first === last ? Math.max(at + 1, ends[first] - needle.length + 1) : at + 1;
    }
  }

  // Elements whose text contains `needle` (normalized) across the page: `deepest` (in text
  // order) and `contains`, a test for any element.
  function textSearch(doc, needle, scan) {
    const holders = new Set();
    scan.docs.push({ doc, depth: 0 });
    for (let i = 0; i < scan.docs.length && !scan.capped; i++) {
      const { doc: current, depth } = scan.docs[i];
      const start = current.body || current.documentElement;
      if (start) holdersIn(readDocument(start, depth, scan), needle, holders);
    }
    const below = new Set();
    for (const el of holders) {
      for (let up = dom.composedParent(el); up && !below.has(up); up = dom.composedParent(up)) below.add(up);
    }
    return {
      deepest: [...holders].filter((el) => !below.has(el)),
      contains: (el) => holders.has(el) || below.has(el),
    };
  }

  // Deepest elements whose text contains `text`, across the page (shadow roots, open or closed, and
  // readable frames included).
  function textMatches(doc, text, ctx = {}) {
    const needle = normalize(text);
    if (!needle) return [];
    return textSearch(doc, needle, newScan(ctx)).deepest;
  }

  // --- selector -----------------------------------------------------------------------------

  // The document, the shadow roots (open or closed) and the readable frame documents in it: a
  // selector is matched in each.
  function selectorRoots(doc, scan) {
    const roots = [doc];
    const depths = [0];
    for (let i = 0; i < roots.length && roots.length < ROOT_CAP; i++) {
      if (typeof roots[i].querySelectorAll !== "function") continue;
      for (const el of roots[i].querySelectorAll("*")) {
        const shadow = dom.shadowOf(el);
        if (shadow) {
          roots.push(shadow);
          depths.push(depths[i]);
        } else if (dom.isFrame(el) && depths[i] < FRAME_DEPTH) {
          const frameDoc = dom.frameDocument(el);
          if (!frameDoc) {
            noteOpaque(el, scan);
            continue;
          }
          if (scan.watch) scan.watch(frameDoc);
          roots.push(frameDoc);
          depths.push(depths[i] + 1);
        }
      }
    }
    return roots;
  }

  function selectorMatches(doc, selector, scan) {
    const out = [];
    try {
      for (const searched of selectorRoots(doc, scan)) dom.appendAll(out, searched.querySelectorAll(selector));
    } catch (err) {
      throw new ns.PageError(`Invalid CSS selector ${JSON.stringify(selector)}: ${err.message}`, "bad_selector");
    }
    return out;
  }

  // --- observation --------------------------------------------------------------------------

  function newScan(ctx) {
    return { elements: 0, capped: false, docs: [], watch: ctx.watchDocument, env: ctx.env || {}, opaque: ns.find.opaqueFrames(), seen: new Set() };
  }

  // A cross-origin frame met by the text read or the selector roots (once, however often met).
  // A frame not shown (display:none, no size) holds nothing visible and is not counted.
  function noteOpaque(el, scan) {
    if (scan.seen.has(el) || !dom.isVisible(el, scan.env)) return;
    scan.seen.add(el);
    scan.opaque.add(el);
  }

  // Visible matches: every match up to VISIBLE_CAP is checked; past it, only until one shows.
  function countVisible(matches, env) {
    let visible = 0;
    let checked = 0;
    let first = null;
    for (const el of matches) {
      if (checked >= VISIBLE_CAP && visible > 0) break;
      checked += 1;
      if (dom.isVisible(el, env)) {
        visible += 1;
        first = first || el;
      }
    }
    return { visible, checked, first };
  }

  // Result: {count, visible, element, kept}, plus visibleChecked when only that many matches
  // were checked for visibility, {capped, scanned} when the text search stopped after
  // `scanned` elements (the page was not read whole), and opaqueFrames ({count, origins})
  // when shown cross-origin frames could not be searched.
  function probe(doc, args, ctx) {
    const selector = typeof args.selector === "string" && args.selector.trim() ? args.selector : null;
    const needle = typeof args.text === "string" ? normalize(args.text) : "";
    const scan = newScan(ctx);
    let matches = [];
    if (needle) {
      const found = textSearch(doc, needle, scan);
      matches = selector ? selectorMatches(doc, selector, scan).filter(found.contains) : found.deepest;
    } else if (selector) {
      matches = selectorMatches(doc, selector, scan);
    }
    const { visible, checked, first } = countVisible(matches, ctx.env);
    const chosen = first || matches[0];
    const out = {
      count: matches.length,
      visible,
      element: chosen ? ns.find.describeElement(chosen, ctx) : null,
      kept: Math.min(matches.length, KEEP),
    };
    if (checked < matches.length) out.visibleChecked = checked;
    if (scan.capped) Object.assign(out, { capped: true, scanned: scan.elements });
    if (scan.opaque.frames.count) out.opaqueFrames = scan.opaque.frames;
    return out;
  }

  ns.wait = { ELEMENT_CAP, normalize, textMatches, probe };
})(globalThis);
