// page_text: the page's readable text, article first, bounded with an honest truncation note.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.text) return;

  // Likely containers of the main content, in order of preference for ties.
  const ARTICLE_SELECTORS = [
    "article",
    "main",
    '[role="main"]',
    '[itemprop="articleBody"]',
    ".entry-content",
    ".content-body",
    ".article-body",
    ".articleBody",
    ".post-content",
    ".story-body",
    "#content",
    ".content",
  ];
  // A container is read instead of the body only when it holds at least this share of the
  // body's text: then it is the page's main text with the chrome (nav, footer) left out. Less,
  // and it is one part of the page (a card of a list, a review beside a table): the body is
  // read. More than half, so at most one of two disjoint containers can qualify.
  const MAIN_SHARE = 0.6;
  const DEFAULT_MAX_CHARS = 50_000;
  const MIN_READABLE = 10;
  const SHADOW_LIMIT = 2_000;

  // Line endings to \n, no trailing spaces, at most one blank line in a row.
  function normalizeText(text) {
    return String(text || "")
      .replace(/\r\n?/g, "\n")
      .replace(/[ \t\u00a0]+$/gm, "")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }

  // candidates: [{selector, text}] in ARTICLE_SELECTORS order (every matching element);
  // bodyText: the whole body's. The longest candidate holding most of the body's text wins
  // (first wins ties); without one the body is read, so the text is never silently a part of
  // the page (one of several articles of a list is no such candidate). A candidate with more
  // text than the body is hidden (innerText of an unrendered element is all its text).
  function chooseSource(candidates, bodyText) {
    const whole = bodyText.length;
    let best = null;
    for (const c of candidates) {
      const size = c.text.length;
      if (!size || size < whole * MAIN_SHARE || size > whole) continue;
      if (!best || size > best.text.length) best = c;
    }
    return best || { selector: "body", text: bodyText };
  }

  function thousands(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // How the source is named to the caller: a part of the page says how much of it it is.
  function describeSource(source, bodyText) {
    const shown = source.text.length;
    const whole = bodyText.length;
    if (source.selector === "body" || shown >= whole) return source.selector;
    return `${source.selector} (${thousands(shown)} of ${thousands(whole)} characters of the page's text)`;
  }

  function truncate(text, maxChars) {
    const total = text.length;
    if (total <= maxChars) return { text, truncated: false, totalChars: total };
    const note =
      `\n\n[Truncated: showing the first ${maxChars} of ${total} characters. ` +
      "Call get_page_text with a larger max_chars, or use read_page / find to target a section.]";
    return { text: text.slice(0, maxChars) + note, truncated: true, totalChars: total };
  }

  function maxCharsOf(args) {
    const n = args && Number(args.max_chars);
    return Number.isFinite(n) && n >= 1 ? Math.floor(n) : DEFAULT_MAX_CHARS;
  }

  function readText(el) {
    return normalizeText(typeof el.innerText === "string" ? el.innerText : el.textContent);
  }

  // --- shadow roots (open or closed) ------------------------------------------------
  // innerText leaves shadow trees out (a host's innerText is its light text only). Where an
  // element holds shadow hosts it is read part by part, in document order: innerText for the
  // parts without shadow roots or slots, a host's shadow tree in its place, and a slot's
  // assigned light nodes where the slot shows them (so slotted text is read once).

  function isShown(el) {
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    return !view || !ns.dom || ns.dom.isDisplayed(el, view);
  }

  // Whether the browser lays out the text held by `holder`, met on a path read part by part:
  // innerText leaves out the text of an invisible element (visibility:hidden, a closed <details>).
  function isLaidOut(holder) {
    const view = holder && holder.ownerDocument && holder.ownerDocument.defaultView;
    if (!view || typeof view.getComputedStyle !== "function") return true;
    const style = view.getComputedStyle(holder);
    if (style && (style.visibility === "hidden" || style.visibility === "collapse")) return false;
    return typeof holder.checkVisibility !== "function" || holder.checkVisibility() || (!!style && style.display === "contents");
  }

  // Adds `node` and the nodes above it, up to `el`, to `marked`.
  function markPath(marked, node, el) {
    for (let n = node; n && n !== el && !marked.has(n); n = ns.dom.composedParent(n)) marked.add(n);
  }

  // The roots to read under `el` (itself and the shadow roots inside it), and the nodes on the
  // way from `el` down to every shadow host and slot below it.
  function composedMarks(el) {
    const dom = ns.dom;
    const marked = new Set();
    const roots = [el];
    for (let i = 0; i < roots.length && i < SHADOW_LIMIT; i++) {
      const inShadow = roots[i].nodeType === 11;
      for (const node of roots[i].querySelectorAll("*")) {
        const shadow = dom.shadowOf(node);
        if (shadow) {
          roots.push(shadow);
          markPath(marked, node, el);
        } else if (inShadow && dom.tagOf(node) === "SLOT") {
          markPath(marked, node, el);
        }
      }
    }
    return { marked, roots };
  }

  // marks: {marked, unseen}: nodes read part by part, and text nodes left out. `holder`: the
  // element whose box holds `node` (for a text node).
  function composeInto(node, marks, out, holder = null) {
    const dom = ns.dom;
    if (node.nodeType === 3) {
      if (marks.unseen.has(node) || !isLaidOut(holder || holderOf(node))) return;
      const text = String(node.nodeValue || "").replace(/[ \t\n\r\f]+/g, " ").trim();
      if (text) out.push(text);
      return;
    }
    if (node.nodeType === 11) {
      for (const child of node.childNodes || []) composeInto(child, marks, out, node.host);
      return;
    }
    if (node.nodeType !== 1 || dom.isSkipped(node) || !isShown(node)) return;
    const shadow = dom.shadowOf(node);
    if (shadow) {
      // The host shows its shadow tree; its light children show only through slots.
      composeInto(shadow, marks, out);
    } else if (dom.tagOf(node) === "SLOT") {
      const assigned = typeof node.assignedNodes === "function" ? node.assignedNodes({ flatten: true }) : [];
      for (const child of assigned.length ? assigned : node.childNodes || []) composeInto(child, marks, out, node);
    } else if (marks.marked.has(node)) {
      for (const child of node.childNodes || []) composeInto(child, marks, out, node);
    } else {
      const text = readText(node);
      if (text) out.push(text);
    }
  }

  function holdsShadow(el) {
    return !!(ns.dom && el && (ns.dom.shadowOf(el) || ns.dom.shadowHosts(el).length));
  }

  // --- text no person can see ---------------------------------------------------------
  // innerText gives all text the page lays out, including text no person can see (opacity 0,
  // font-size 0, pushed off the page, cut away by a box without area): a way to put words
  // before the reader alone. Such text is left out, and counted for a note. A control's own
  // text (a select's options) is left as innerText gives it.
  const UNSEEN_CHECK_LIMIT = 5_000;
  const CONTROL_TEXT_TAGS = new Set(["OPTION", "OPTGROUP", "SELECT", "DATALIST", "TEXTAREA"]);
  const SHOW_TEXT = 4; // NodeFilter.SHOW_TEXT

  // What one page_text read has left out: elements whose text was dropped, elements checked,
  // and whether it stopped checking before the end.
  function newTally() {
    return { hidden: 0, checked: 0, capped: false };
  }

  // The text nodes of a root, not inside the shadow roots below it (each is read on its own),
  // as [text node, the element whose box holds it].
  function* textNodesOf(root) {
    const doc = root.nodeType === 9 ? root : root.ownerDocument;
    if (doc && typeof doc.createTreeWalker === "function") {
      const walker = doc.createTreeWalker(root, SHOW_TEXT);
      while (walker.nextNode()) yield [walker.currentNode, holderOf(walker.currentNode)];
      return;
    }
    const top = root.nodeType === 11 ? root.host : root;
    const stack = [...(root.childNodes || [])].reverse().map((node) => [node, top]);
    while (stack.length) {
      const [node, parent] = stack.pop();
      if (node.nodeType === 3) yield [node, parent];
      else if (node.nodeType === 1) for (let i = (node.childNodes || []).length - 1; i >= 0; i--) stack.push([node.childNodes[i], node]);
    }
  }

  // The element whose box holds a text node: its parent, or a shadow root's host.
  function holderOf(node) {
    if (node.parentElement) return node.parentElement;
    const parent = node.parentNode;
    return parent && parent.nodeType === 11 && parent.host ? parent.host : null;
  }

  // The text nodes under `roots` that no person can see, and the elements holding them,
  // checking at most what the tally has left of UNSEEN_CHECK_LIMIT elements. `env`: the
  // document's window.
  function unseenTextNodes(roots, env, tally) {
    const dom = ns.dom;
    const unseen = { nodes: new Set(), holders: new Set() };
    const verdicts = new Map();
    for (const root of roots) {
      for (const [node, holder] of textNodesOf(root)) {
        if (!holder || !/\S/.test(node.nodeValue || "")) continue;
        let hidden = verdicts.get(holder);
        if (hidden === undefined) {
          if (dom.isSkipped(holder) || CONTROL_TEXT_TAGS.has(dom.tagOf(holder))) {
            verdicts.set(holder, false);
            continue;
          }
          if (tally.checked >= UNSEEN_CHECK_LIMIT) {
            tally.capped = true;
            return unseen;
          }
          tally.checked += 1;
          hidden = dom.hidesOwnText(holder, env);
          verdicts.set(holder, hidden);
          if (hidden) tally.hidden += 1;
        }
        if (hidden) {
          unseen.nodes.add(node);
          unseen.holders.add(holder);
        }
      }
    }
    return unseen;
  }

  // The readable text of `el`: with the text of the shadow roots (open or closed) inside it,
  // without text no person can see. `plain`: el's innerText when already read.
  function readComposed(el, tally = newTally(), plain = null) {
    const shadowed = holdsShadow(el);
    const { marked, roots } = shadowed ? composedMarks(el) : { marked: new Set(), roots: [el] };
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    const unseen = view && ns.dom ? unseenTextNodes(roots, view, tally) : { nodes: new Set(), holders: new Set() };
    if (!shadowed && !unseen.nodes.size) return plain === null ? readText(el) : plain;
    for (const holder of unseen.holders) markPath(marked, holder, el);
    const out = [];
    const marks = { marked, unseen: unseen.nodes };
    const shadow = ns.dom.shadowOf(el);
    if (shadow) composeInto(shadow, marks, out);
    else for (const child of el.childNodes || []) composeInto(child, marks, out, el);
    return normalizeText(out.join("\n"));
  }

  // What page_text says of text it left out, or of where it stopped looking for such text.
  function unseenNotes(tally) {
    const notes = [];
    if (tally.hidden) {
      notes.push(
        `[Left out: the text of ${tally.hidden} element(s) that the page lays out where no person can see it ` +
          "(transparent, in a transparent colour, of font size 0, off the page or cut away by a box around it)]",
      );
    }
    if (tally.capped) {
      notes.push(
        `[Only the first ${UNSEEN_CHECK_LIMIT} elements holding text were checked for text no person can see; ` +
          "the text after them is given as the page lays it out]",
      );
    }
    return notes;
  }

  const FRAME_DEPTH = 4;
  const FRAME_LIMIT = 20;

  // The text of the readable (same-origin) frames shown inside `root`, in document order and
  // nested ones after their host, each under a header naming it: a body's innerText leaves
  // frames out entirely. Cross-origin frames are only counted: their text is not reachable.
  function frameTexts(root, tally, depth = 1, found = { sections: [], opaque: 0 }) {
    const dom = ns.dom;
    if (!dom || !root || depth > FRAME_DEPTH) return found;
    for (const el of root.querySelectorAll("iframe, frame")) {
      if (found.sections.length >= FRAME_LIMIT) break;
      const env = el.ownerDocument && el.ownerDocument.defaultView;
      if (env && !dom.isVisible(el, env)) continue;
      const frameDoc = dom.frameDocument(el);
      if (!frameDoc) {
        found.opaque += 1;
        continue;
      }
      const inner = frameDoc.body || frameDoc.documentElement;
      const text = readComposed(inner, tally);
      const name = dom.clip(dom.accessibleName(el) || String(frameDoc.title || "") || dom.attr(el, "src") || "untitled", 80);
      if (text) found.sections.push(`[Frame "${name}"]\n${text}`);
      frameTexts(inner, tally, depth + 1, found);
    }
    return found;
  }

  // Mechanism entry point. Result: {source, url, title, text, totalChars, truncated, frames?, note?}.
  function pageText(doc, args) {
    const candidates = [];
    for (const selector of ARTICLE_SELECTORS) {
      for (const el of doc.querySelectorAll(selector)) candidates.push({ selector, text: readText(el), el });
    }
    const bodyText = doc.body ? readText(doc.body) : "";
    const source = chooseSource(candidates, bodyText);
    const sourceEl = source.el || doc.body;
    const tally = newTally();
    const sourceText = sourceEl ? readComposed(sourceEl, tally, source.text) : source.text;
    const frames = frameTexts(sourceEl, tally);
    const fullText = [sourceText, ...frames.sections].filter(Boolean).join("\n\n");
    const result = {
      source: describeSource(source, bodyText),
      url: String(doc.location ? doc.location.href : ""),
      title: String(doc.title || ""),
      ...truncate(fullText, maxCharsOf(args)),
    };
    if (frames.sections.length) result.frames = frames.sections.length;
    const notes = unseenNotes(tally);
    if (frames.opaque) {
      notes.push(
        `[${frames.opaque} cross-origin frame(s) not read: their text cannot be reached from this page; ` +
          "a screenshot shows them]",
      );
    }
    if (fullText.length < MIN_READABLE) {
      notes.push(
        "The page has almost no readable text (it may be empty, still loading, or drawn on a canvas). " +
          "Try read_page or a screenshot.",
      );
    }
    if (notes.length) result.note = notes.join("\n");
    return result;
  }

  ns.text = { ARTICLE_SELECTORS, MAIN_SHARE, normalizeText, chooseSource, describeSource, truncate, readComposed, pageText };
})(globalThis);
