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
  const DEFAULT_MAX_CHARS = 50_000;
  const MIN_READABLE = 10;

  // Line endings to \n, no trailing spaces, at most one blank line in a row.
  function normalizeText(text) {
    return String(text || "")
      .replace(/\r\n?/g, "\n")
      .replace(/[ \t\u00a0]+$/gm, "")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }

  // candidates: [{selector, text}] in ARTICLE_SELECTORS order; bodyText: whole body.
  // The longest candidate wins (first wins ties) unless it is a small fragment of the page,
  // in which case the body is the more honest source.
  function chooseSource(candidates, bodyText) {
    let best = null;
    for (const c of candidates) if (!best || c.text.length > best.text.length) best = c;
    if (!best || !best.text) return { selector: "body", text: bodyText };
    if (best.text.length < 500 && best.text.length < bodyText.length * 0.25) return { selector: "body", text: bodyText };
    return best;
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
      const text = readText(inner);
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
      let best = null;
      for (const el of doc.querySelectorAll(selector)) {
        const text = readText(el);
        if (!best || text.length > best.text.length) best = { selector, text, el };
      }
      if (best) candidates.push(best);
    }
    const bodyText = doc.body ? readText(doc.body) : "";
    const source = chooseSource(candidates, bodyText);
    const frames = frameTexts(source.el || doc.body);
    const fullText = [source.text, ...frames.sections].filter(Boolean).join("\n\n");
    const result = {
      source: source.selector,
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

  ns.text = { ARTICLE_SELECTORS, normalizeText, chooseSource, truncate, pageText };
})(globalThis);
