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

  // Mechanism entry point. Result: {source, url, title, text, totalChars, truncated, note?}.
  function pageText(doc, args) {
    const candidates = [];
    for (const selector of ARTICLE_SELECTORS) {
      let best = null;
      for (const el of doc.querySelectorAll(selector)) {
        const text = readText(el);
        if (!best || text.length > best.text.length) best = { selector, text };
      }
      if (best) candidates.push(best);
    }
    const bodyText = doc.body ? readText(doc.body) : "";
    const source = chooseSource(candidates, bodyText);
    const result = {
      source: source.selector,
      url: String(doc.location ? doc.location.href : ""),
      title: String(doc.title || ""),
      ...truncate(source.text, maxCharsOf(args)),
    };
    if (source.text.length < MIN_READABLE) {
      result.note =
        "The page has almost no readable text (it may be empty, still loading, or drawn on a canvas). " +
        "Try read_page or a screenshot.";
    }
    return result;
  }

  ns.text = { ARTICLE_SELECTORS, normalizeText, chooseSource, truncate, pageText };
})(globalThis);
