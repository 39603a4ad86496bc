// find_text: visible elements whose name or text matches a query, strongest first, with refs
// and viewport (CSS px) coordinates. Ranking:
//   0 exact name, 1 name prefix, 2 every query word in the name,
//   3 query (or every word) in a search text of role, name, own text, placeholder, label,
//     title, type and tag. Within a rank, interactive elements come first (a label and its
//     field share a name; the field is what a caller acts on), then document order.
// Own text (not descendants' text) keeps large containers from matching everything.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.find) return;
  const dom = ns.dom;

  const DEFAULT_LIMIT = 20;
  const MAX_LIMIT = 100;
  // Elements walked, and candidates ranked (the costly part: style, layout, name), per call.
  // Past either the search stops and says how far it got (capped, scanned).
  const WALK_CAP = 200_000;
  const RANK_CAP = 20_000;

  function normalize(text) {
    return String(text || "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
  }

  function containsAllWords(haystack, words) {
    return words.length > 0 && words.every((w) => haystack.includes(w));
  }

  // Pure ranking. Returns 0..3 or null for no match.
  function rankMatch(query, { name = "", searchText = "" }) {
    const q = normalize(query);
    if (!q) return null;
    const n = normalize(name);
    const words = q.split(" ");
    if (n) {
      if (n === q) return 0;
      if (n.startsWith(q)) return 1;
      if (containsAllWords(n, words)) return 2;
    }
    const s = normalize(searchText);
    if (s.includes(q) || containsAllWords(s, words)) return 3;
    return null;
  }

  // Orders [{rank, interactive, order}]: rank, interactive first, document order (pure).
  function sortMatches(matches) {
    return [...matches].sort(
      (a, b) => a.rank - b.rank || Number(!!b.interactive) - Number(!!a.interactive) || a.order - b.order,
    );
  }

  // Describes an element for the service: ref, role, name and its box in viewport CSS px.
  function describeElement(el, ctx) {
    const { env, refs } = ctx;
    const rect = dom.rectOf(el);
    const c = dom.center(rect);
    const out = {
      ref: refs.refFor(el),
      role: dom.roleOf(el) || dom.tagOf(el).toLowerCase(),
      name: dom.accessibleName(el),
      tag: dom.tagOf(el).toLowerCase(),
      x: c.x,
      y: c.y,
      box: rect,
      visible: dom.isVisible(el, env),
      inViewport: dom.intersectsViewport(rect, env, dom.frameClip(el)),
      enabled: !dom.isDisabled(el),
      renderSerial: refs.serial(),
    };
    const type = dom.attr(el, "type").toLowerCase();
    if (dom.tagOf(el) === "INPUT" && (type === "checkbox" || type === "radio")) out.checked = !!el.checked;
    const ariaChecked = dom.ariaChecked(el);
    if (ariaChecked !== null) out.checked = ariaChecked;
    if (dom.tagOf(el) === "A" && el.hasAttribute("href")) out.href = dom.attr(el, "href");
    const tag = dom.tagOf(el);
    const isToggle = type === "checkbox" || type === "radio";
    if ((tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") && !isToggle && typeof el.value === "string") {
      // Secret fields never leave the page through an element description.
      if (!dom.isSecretField(el)) out.value = dom.clip(el.value, 200);
    }
    return out;
  }

  function searchTextOf(el, role, name) {
    return [
      role,
      name,
      dom.ownText(el).slice(0, 200),
      // A select is found by its chosen option too ("Medium"), now that it is not its name.
      dom.tagOf(el) === "SELECT" ? dom.selectValueText(el).slice(0, 200) : "",
      dom.attr(el, "placeholder"),
      dom.attr(el, "aria-label"),
      dom.attr(el, "title"),
      dom.attr(el, "type"),
      dom.tagOf(el).toLowerCase(),
    ].join(" ");
  }

  // Elements whose name may come from their text (by tag or by role, as dom names them), a
  // link's or button's image alt, and a select's options (one of them is its shown value).
  const WORD_ATTRS = ["aria-label", "placeholder", "title", "alt", "value", "type"];

  // Every word the element's search text could hold, read without style or layout (a
  // superset: textContent holds every word innerText shows). Lower case, not normalized:
  // a query word (letters and digits only) found in the normalized text is found here too.
  function roughWords(el) {
    const tag = dom.tagOf(el);
    const parts = [tag, dom.roleOf(el)];
    for (let node = el.firstChild; node; node = node.nextSibling) if (node.nodeType === 3) parts.push(node.nodeValue);
    for (const name of WORD_ATTRS) parts.push(dom.attr(el, name));
    if (tag === "SELECT" || dom.namedFromContent(el)) {
      parts.push(el.textContent || "");
      const img = (tag === "A" || tag === "BUTTON") && el.querySelector ? el.querySelector("img[alt]") : null;
      if (img) parts.push(dom.attr(img, "alt"));
    }
    for (const label of dom.labelsOf(el)) parts.push(label.textContent || "");
    return parts.join(" ").toLowerCase();
  }

  // Whether the element could match at all; only such candidates are ranked.
  function mayMatch(el, words) {
    if (dom.attr(el, "aria-labelledby")) return true; // named by other elements' text
    const rough = roughWords(el);
    return words.every((w) => rough.includes(w));
  }

  // Element children, last first (sibling links are the cheapest walk on a large page).
  function pushChildren(stack, parent) {
    for (let child = parent.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  }

  // Mechanism entry point. args: {query, limit?}. Result: {results, total, more, renderSerial},
  // plus {capped: true, scanned} when the search stopped after `scanned` elements (document
  // order, frames and shadow roots included) and the rest of the page was not searched.
  function findText(doc, args, ctx) {
    const query = args && typeof args.query === "string" ? args.query : "";
    if (!normalize(query)) throw new ns.PageError("find matches words: the query needs at least one letter or digit", "bad_args");
    const limitArg = Number(args.limit);
    const limit = Number.isFinite(limitArg) && limitArg >= 1 ? Math.min(Math.floor(limitArg), MAX_LIMIT) : DEFAULT_LIMIT;
    const words = normalize(query).split(" ");

    const matches = [];
    let order = 0;
    let ranked = 0;
    let capped = false;
    const stack = [doc.body || doc.documentElement];
    while (stack.length) {
      const el = stack.pop();
      if (!el || dom.isSkipped(el)) continue;
      if (order >= WALK_CAP || ranked >= RANK_CAP) {
        capped = true;
        break;
      }
      order += 1;
      // Style and layout are read only for candidates: a hidden one fails isVisible (an element
      // under display:none has no box), so its hidden subtree needs no pruning.
      if (mayMatch(el, words)) {
        ranked += 1;
        if (dom.isVisible(el, ctx.env)) {
          const role = dom.roleOf(el);
          const name = dom.accessibleName(el);
          const rank = rankMatch(query, { name, searchText: searchTextOf(el, role, name) });
          if (rank !== null) matches.push({ rank, interactive: dom.isInteractive(el), order, el });
        }
      }
      if (dom.isFrame(el)) {
        // A same-origin frame's document is searched too; a cross-origin one cannot be.
        const frameDoc = dom.isVisible(el, ctx.env) ? dom.frameDocument(el) : null;
        if (frameDoc) {
          if (ctx.watchDocument) ctx.watchDocument(frameDoc);
          stack.push(frameDoc.body || frameDoc.documentElement);
        }
      } else if (!dom.OPAQUE_TAGS.has(dom.tagOf(el))) {
        pushChildren(stack, el);
        // Pushed last, so searched first, as childElements orders them.
        if (el.shadowRoot) pushChildren(stack, el.shadowRoot);
      }
    }
    const sorted = sortMatches(matches);
    const out = {
      results: sorted.slice(0, limit).map((m) => withCovering({ ...describeElement(m.el, ctx), matchRank: m.rank }, m.el)),
      total: sorted.length,
      more: sorted.length > limit,
      renderSerial: ctx.refs.serial(),
    };
    if (capped) Object.assign(out, { capped: true, scanned: order });
    return out;
  }

  // Whether a click at the centre of `el` (described as `target`) reaches it (it, something
  // inside it, or its label), and the element the click would hit.
  function hitTest(el, target) {
    let top = el.ownerDocument;
    for (let hops = 0; top && dom.hostFrame(top) && hops < 16; hops++) top = dom.hostFrame(top).ownerDocument;
    const at = elementAtPoint(top || el.ownerDocument, target.x, target.y);
    let reaches = false;
    for (let node = at, hops = 0; node && hops < 256 && !reaches; hops++) {
      reaches = node === el;
      node = node.parentNode || node.host || null;
    }
    if (!reaches && at && dom.tagOf(at) === "LABEL" && at.control === el) reaches = true;
    return { reaches, at };
  }

  // A result on screen that something else covers (a cookie banner, a dialog) says what: a
  // click at its point would land there.
  function withCovering(result, el) {
    if (!result.visible || !result.inViewport) return result;
    const { reaches, at } = hitTest(el, result);
    if (reaches || !at) return result;
    return { ...result, coveredBy: { role: dom.roleOf(at) || dom.tagOf(at).toLowerCase(), name: dom.accessibleName(at) } };
  }

  // The element a click at top-viewport CSS point (x, y) would hit, looking inside open shadow
  // roots and same-origin frames; null outside the viewport or on a non-finite point.
  function elementAtPoint(doc, x, y) {
    if (!Number.isFinite(x) || !Number.isFinite(y) || typeof doc.elementFromPoint !== "function") return null;
    // The point in this document's own viewport (a frame's is offset from the top one).
    const offset = dom.hostFrame(doc) ? dom.frameOffset(doc.documentElement || doc.body) : { x: 0, y: 0 };
    const lx = x - offset.x;
    const ly = y - offset.y;
    let el = doc.elementFromPoint(lx, ly);
    for (let hops = 0; el && el.shadowRoot && hops < 32; hops++) {
      const inner = el.shadowRoot.elementFromPoint(lx, ly);
      if (!inner || inner === el) break;
      el = inner;
    }
    const frameDoc = el && dom.isFrame(el) ? dom.frameDocument(el) : null;
    if (frameDoc) return elementAtPoint(frameDoc, x, y) || el;
    return el || null;
  }

  ns.find = { WALK_CAP, RANK_CAP, normalize, rankMatch, sortMatches, mayMatch, describeElement, findText, elementAtPoint, hitTest };
})(globalThis);
