// wait_probe: one observation for wait_for. Which elements match a CSS selector and/or contain
// a text (whitespace-collapsed, case-insensitive; through open shadow roots), how many of them
// are visible, and the first visible match (else the first match) described with a ref.
// Text without a selector matches the deepest elements whose text contains it, so a match
// names the element showing the text rather than <body>.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.wait) return;
  const dom = ns.dom;

  const SCAN_CAP = 20_000;
  const KEEP = 50;

  function normalize(text) {
    return dom.collapse(text).toLowerCase();
  }

  // Elements (deepest first in document order) whose text contains `needle` (normalized).
  function textMatches(start, needle) {
    const out = [];
    let scanned = 0;
    // Returns [text, matchedBelow].
    function visit(el) {
      scanned += 1;
      if (scanned > SCAN_CAP || dom.isSkipped(el)) return ["", false];
      let text = "";
      let below = false;
      const shadow = (el.shadowRoot && el.shadowRoot.childNodes) || [];
      for (const node of [...shadow, ...(el.childNodes || [])]) {
        const [t, m] = visitNode(node);
        text += t;
        below = below || m;
      }
      if (!below && normalize(text).includes(needle)) {
        out.push(el);
        return [text, true];
      }
      return [text, below];
    }
    function visitNode(node) {
      if (node.nodeType === 3) return [String(node.nodeValue || ""), false];
      if (node.nodeType === 1) {
        const [t, m] = visit(node);
        return [` ${t} `, m];
      }
      return ["", false];
    }
    if (start) visit(start);
    return out;
  }

  function selectorMatches(doc, selector) {
    try {
      return [...doc.querySelectorAll(selector)];
    } catch (err) {
      throw new ns.PageError(`Invalid CSS selector ${JSON.stringify(selector)}: ${err.message}`, "bad_selector");
    }
  }

  function probe(doc, args, ctx) {
    const selector = typeof args.selector === "string" && args.selector.trim() ? args.selector : null;
    const needle = typeof args.text === "string" ? normalize(args.text) : "";
    let matches;
    if (selector) {
      matches = selectorMatches(doc, selector);
      if (needle) matches = matches.filter((el) => textMatches(el, needle).length > 0);
    } else if (needle) {
      matches = textMatches(doc.body, needle);
    } else {
      matches = [];
    }
    const shown = matches.slice(0, SCAN_CAP).filter((el) => dom.isVisible(el, ctx.env));
    const chosen = shown[0] || matches[0];
    return {
      count: matches.length,
      visible: shown.length,
      element: chosen ? ns.find.describeElement(chosen, ctx) : null,
      kept: Math.min(matches.length, KEEP),
    };
  }

  ns.wait = { normalize, textMatches, probe };
})(globalThis);
