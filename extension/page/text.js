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

  // Nodes on the way from `el` down to every shadow host and slot below it.
  function composedMarks(el) {
    const dom = ns.dom;
    const marked = new Set();
    const mark = (node) => {
      for (let n = node; n && n !== el && !marked.has(n); n = dom.composedParent(n)) marked.add(n);
    };
    const roots = [el];
    for (let i = 0; i < roots.length && i < SHADOW_LIMIT; i++) {
      const inShadow = roots[i].nodeType === 11;
      for (const node of roots[i].querySelectorAll("*")) {
        const shadow = dom.shadowOf(node);
        if (shadow) {
          roots.push(shadow);
          mark(node);
        } else if (inShadow && dom.tagOf(node) === "SLOT") {
          mark(node);
        }
      }
    }
    return marked;
  }

  function composeInto(node, marked, out) {
    const dom = ns.dom;
    if (node.nodeType === 3) {
      const text = String(node.nodeValue || "").replace(/[ \t\n\r\f]+/g, " ").trim();
      if (text) out.push(text);
      return;
    }
    if (node.nodeType === 11) {
      for (const child of node.childNodes || []) composeInto(child, marked, out);
      return;
    }
    if (node.nodeType !== 1 || dom.isSkipped(node) || !isShown(node)) return;
    const shadow = dom.shadowOf(node);
    if (shadow) {
      // The host shows its shadow tree; its light children show only through slots.
      composeInto(shadow, marked, out);
    } else if (dom.tagOf(node) === "SLOT") {
      const assigned = typeof node.assignedNodes === "function" ? node.assignedNodes({ flatten: true }) : [];
      for (const child of assigned.length ? assigned : node.childNodes || []) composeInto(child, marked, out);
    } else if (marked.has(node)) {
      for (const child of node.childNodes || []) composeInto(child, marked, out);
    } else {
      const text = readText(node);
      if (text) out.push(text);
    }
  }

  function holdsShadow(el) {
    return !!(ns.dom && el && (ns.dom.shadowOf(el) || ns.dom.shadowHosts(el).length));
  }

  // The readable text of `el`, with the text of the shadow roots (open or closed) inside it.
  function readComposed(el) {
    if (!holdsShadow(el)) return readText(el);
    const out = [];
    const marked = composedMarks(el);
    const shadow = ns.dom.shadowOf(el);
    if (shadow) composeInto(shadow, marked, out);
    else for (const child of el.childNodes || []) composeInto(child, marked, out);
    return normalizeText(out.join("\n"));
  }

  const FRAME_DEPTH = 4;
  const FRAME_LIMIT = 20;

  // The text of the readable (same-origin) frames shown inside `root`, in document order and
  // nested ones after their host, each under a header naming it: a body's innerText leaves
  // frames out entirely. Cross-origin frames are only counted: their text is not reachable.
  function frameTexts(root, depth = 1, found = { sections: [], opaque: 0 }) {
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
      const text = readComposed(inner);
      const name = dom.clip(dom.accessibleName(el) || String(frameDoc.title || "") || dom.attr(el, "src") || "untitled", 80);
      if (text) found.sections.push(`[Frame "${name}"]\n${text}`);
      frameTexts(inner, depth + 1, found);
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
    const sourceText = holdsShadow(sourceEl) ? readComposed(sourceEl) : source.text;
    const frames = frameTexts(sourceEl);
    const fullText = [sourceText, ...frames.sections].filter(Boolean).join("\n\n");
    const result = {
      source: describeSource(source, bodyText),
      url: String(doc.location ? doc.location.href : ""),
      title: String(doc.title || ""),
      ...truncate(fullText, maxCharsOf(args)),
    };
    if (frames.sections.length) result.frames = frames.sections.length;
    const notes = [];
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
