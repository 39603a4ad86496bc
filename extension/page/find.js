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
  // Characters of an unnamed element's text shown to identify it.
  const TEXT_EXCERPT = 80;
  const FIELD_TAGS = new Set(["INPUT", "TEXTAREA", "SELECT"]);
  // Hidden controls that match are counted up to this many, so that "no match" can say some
  // are hidden (in a collapsed section, a closed menu) rather than absent.
  const HIDDEN_COUNTED = 20;

  const fold = dom.fold;

  function normalize(text) {
    return fold(text)
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
  }

  // Scripts written without spaces between words: there a word is found inside the text.
  const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

  // Whether `words` (one word, or several joined by single spaces) stand as whole words in
  // `padded` (normalized text with a space at each end): "log in" is not in "blog index",
  // nor "cart" in "cartoons".
  function hasWords(padded, words) {
    return SPACELESS.test(words) ? padded.includes(words) : padded.includes(` ${words} `);
  }

  function containsAllWords(haystack, words) {
    const padded = ` ${haystack} `;
    return words.length > 0 && words.every((w) => hasWords(padded, w));
  }

  // Pure ranking. Returns 0..3 or null for no match. Words match whole words only.
  function rankMatch(query, { name = "", searchText = "" }) {
    const q = normalize(query);
    if (!q) return null;
    const n = normalize(name);
    const words = q.split(" ");
    if (n) {
      if (n === q) return 0;
      if (n.startsWith(`${q} `) || (SPACELESS.test(q) && n.startsWith(q))) return 1;
      if (containsAllWords(n, words)) return 2;
    }
    const s = normalize(searchText);
    if (hasWords(` ${s} `, q) || containsAllWords(s, words)) return 3;
    return null;
  }

  // Orders [{rank, interactive, order}]: rank, interactive first, document order (pure).
  function sortMatches(matches) {
    return [...matches].sort(
      (a, b) => a.rank - b.rank || Number(!!b.interactive) - Number(!!a.interactive) || a.order - b.order,
    );
  }

  // An element's role (its tag when it has none) and accessible name.
  function nameOf(el) {
    return { role: dom.roleOf(el) || dom.tagOf(el).toLowerCase(), name: dom.accessibleName(el) };
  }

  // Describes an element for the service: ref, role, name and its box in viewport CSS px.
  function describeElement(el, ctx) {
    const { env, refs } = ctx;
    const rect = dom.rectOf(el);
    const c = dom.center(rect);
    // In view means inside the viewport and inside every scroll container and frame around it.
    const clip = dom.clipping(el, env, rect);
    const out = {
      ref: refs.refFor(el),
      role: dom.roleOf(el) || dom.tagOf(el).toLowerCase(),
      name: dom.accessibleName(el),
      tag: dom.tagOf(el).toLowerCase(),
      x: c.x,
      y: c.y,
      box: rect,
      visible: dom.isVisible(el, env),
      inViewport: dom.intersectsViewport(rect, env, clip.region),
      enabled: !dom.isDisabled(el),
      // A control by its tag, role, click handler or tabindex (a card with onclick is one).
      interactive: dom.isInteractive(el),
      renderSerial: refs.serial(),
    };
    // Its centre is cut away by a container: a click there cannot reach it until it is
    // scrolled into view (scrolls) or the container shows it.
    if (clip.centreBy && out.visible) out.clippedBy = { ...nameOf(clip.centreBy.el), scrolls: !!clip.centreBy.scrolls };
    const type = dom.attr(el, "type").toLowerCase();
    if (dom.tagOf(el) === "INPUT" && (type === "checkbox" || type === "radio")) out.checked = !!el.checked;
    const ariaChecked = dom.ariaChecked(el);
    if (ariaChecked !== null) out.checked = ariaChecked;
    const href = dom.hrefOf(el);
    if (href !== null) out.href = href;
    const tag = dom.tagOf(el);
    // No name (a paragraph, a cell, a div): the start of what it shows, so "paragraph" with
    // an empty name still says which one. Never for a field: its text is its value.
    if (!out.name && !FIELD_TAGS.has(tag)) {
      const shown = dom.textOf(el);
      if (shown) out.text = dom.clip(shown, TEXT_EXCERPT);
    }
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
  // superset: textContent holds every word innerText shows). Folded as queries are, but not
  // normalized: a query word (letters and digits only) found in the normalized text is found
  // here too.
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
    return fold(parts.join(" "));
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

  // Shown cross-origin frames a search could not look into, counted with their origins (the
  // page's own words stay out: an origin is all a caller needs to tell which frame it is).
  function opaqueFrames() {
    const frames = { count: 0, origins: [] };
    return {
      frames,
      add(el) {
        frames.count += 1;
        const origin = frameOrigin(el);
        if (origin && !frames.origins.includes(origin) && frames.origins.length < 5) frames.origins.push(origin);
      },
    };
  }

  function frameOrigin(el) {
    try {
      const url = new URL(dom.attr(el, "src") || "about:blank", el.ownerDocument && el.ownerDocument.baseURI);
      return url.origin && url.origin !== "null" ? url.origin : "";
    } catch {
      return "";
    }
  }

  // What find says under its results when frames were left unsearched (as read_page does).
  function unsearchedNote(count) {
    return (
      `[${count} cross-origin frame(s) not searched: their contents cannot be read from this page; ` +
      "use a screenshot and coordinates inside them]"
    );
  }

  // Mechanism entry point. args: {query, limit?, strict?} (strict: every word must match, for
  // a caller about to act on the answer). Result: {results, total, more, renderSerial},
  // plus {capped: true, scanned} when the search stopped after `scanned` elements (document
  // order, frames and shadow roots included) and the rest of the page was not searched, and
  // {opaqueFrames: {count, origins}, note} when shown cross-origin frames were not searched,
  // {hidden: N} when N controls (at most HIDDEN_COUNTED) match but are not shown, and
  // {loose: {words, needed}} when no element held every word and the results hold `needed`
  // of the query's content words (ranked LOOSE_RANK and below).
  function findText(doc, args, ctx) {
    const query = args && typeof args.query === "string" ? args.query : "";
    if (!normalize(query)) throw new ns.PageError("find matches words: the query needs at least one letter or digit", "bad_args");
    const limitArg = Number(args.limit);
    const limit = Number.isFinite(limitArg) && limitArg >= 1 ? Math.min(Math.floor(limitArg), MAX_LIMIT) : DEFAULT_LIMIT;
    const words = normalize(query).split(" ");

    let found = searchPage(doc, ctx, (el) => mayMatch(el, words), (el, role, name) => rankMatch(query, { name, searchText: searchTextOf(el, role, name) }));
    let loose = null;
    if (!found.matches.length && !found.hidden && !args.strict) {
      // No element holds every word: a description ("the link to leave the page") rather
      // than the element's words. Its content words are matched instead, most of them.
      loose = looseTerms(words);
      if (loose) {
        const { terms, needed } = loose;
        found = searchPage(
          doc,
          ctx,
          (el) => termsIn(roughWords(el), terms) >= needed,
          (el, role, name) => {
            const held = termsIn(normalize(searchTextOf(el, role, name)), terms, true);
            return held >= needed ? LOOSE_RANK + terms.length - held : null;
          },
        );
      }
    }
    const { matches, hidden, order, capped, opaque } = found;
    const sorted = sortMatches(matches);
    const out = {
      results: sorted.slice(0, limit).map((m) => withCovering({ ...describeElement(m.el, ctx), matchRank: m.rank }, m.el)),
      total: sorted.length,
      more: sorted.length > limit,
      renderSerial: ctx.refs.serial(),
    };
    if (loose && sorted.length) out.loose = { words: loose.terms.map((t) => t[0]), needed: loose.needed };
    if (capped) Object.assign(out, { capped: true, scanned: order });
    if (hidden) out.hidden = hidden;
    if (opaque.frames.count) Object.assign(out, { opaqueFrames: opaque.frames, note: unsearchedNote(opaque.frames.count) });
    return out;
  }

  // Words a description carries that no element's name does.
  const STOP_WORDS = new Set([
    "the", "a", "an", "to", "of", "for", "on", "in", "at", "with", "and", "or", "that", "this", "these", "those",
    "all", "any", "some", "my", "your", "its", "their", "which", "is", "are", "be", "by", "from", "into", "onto",
    "please", "click", "press", "tap", "element", "elements", "item", "items", "thing", "one", "ones", "called", "named",
    "labelled", "labeled", "says", "saying", "text",
  ]);
  // What a description calls a control, as the roles and tags its search text holds.
  const KIND_WORDS = {
    field: ["textbox", "searchbox", "combobox", "spinbutton", "input", "textarea"],
    input: ["textbox", "searchbox", "combobox", "spinbutton", "input", "textarea"],
    box: ["textbox", "searchbox", "combobox", "checkbox", "input", "textarea"],
    dropdown: ["combobox", "listbox", "select"],
    toggle: ["switch", "checkbox"],
    tickbox: ["checkbox"],
  };
  const LOOSE_RANK = 4;

  // The content words of a description, each with the forms it may take (a plural's singular,
  // a kind word's roles), and how many must match: most of them. Null when nothing is left
  // to match or nothing was dropped or widened (the strict search already tried those words).
  function looseTerms(words) {
    const content = words.filter((w) => !STOP_WORDS.has(w));
    if (!content.length) return null;
    const terms = content.map((w) => {
      const forms = [w];
      if (w.length > 3 && w.endsWith("ies")) forms.push(`${w.slice(0, -3)}y`);
      else if (w.length > 3 && w.endsWith("s")) forms.push(w.slice(0, -1));
      const singular = forms[forms.length - 1];
      for (const kind of KIND_WORDS[singular] || []) forms.push(kind);
      return forms;
    });
    const widened = terms.some((forms) => forms.length > 1);
    if (content.length === words.length && !widened && content.length < 3) return null;
    // Two words or one must all match (in some form); of more, most.
    const needed = content.length <= 2 ? content.length : Math.ceil(content.length / 2);
    return { terms, needed };
  }

  // How many terms have a form in `text` (folded, as search texts are): as whole words in a
  // normalized text, anywhere in a rough one (a quick test that never misses a match).
  function termsIn(text, terms, whole = false) {
    const padded = ` ${text} `;
    const has = whole ? (form) => hasWords(padded, form) : (form) => text.includes(form);
    let held = 0;
    for (const forms of terms) if (forms.some(has)) held += 1;
    return held;
  }

  // One walk of the page (frames and shadow roots included, bounded): visible elements
  // `may` lets through and `rankOf` ranks are matches; hidden controls that rank are counted.
  function searchPage(doc, ctx, may, rankOf) {
    const matches = [];
    let hidden = 0;
    let order = 0;
    let ranked = 0;
    let capped = false;
    const opaque = opaqueFrames();
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
      if (may(el)) {
        ranked += 1;
        const visible = dom.isVisible(el, ctx.env);
        // A hidden match is only counted (and only while it is worth saying: a display:none
        // subtree has no box, so hidden here mostly means collapsed or closed).
        if (visible || hidden < HIDDEN_COUNTED) {
          const rank = rankOf(el, dom.roleOf(el), dom.accessibleName(el));
          if (rank !== null && visible) matches.push({ rank, interactive: dom.isInteractive(el), order, el });
          else if (rank !== null && dom.isInteractive(el)) hidden += 1;
        }
      }
      if (dom.isFrame(el)) {
        // A same-origin frame's document is searched too; a cross-origin one cannot be, and
        // is counted so that "no match" is not read as "not on the screen".
        const shown = dom.isVisible(el, ctx.env);
        const frameDoc = shown ? dom.frameDocument(el) : null;
        if (frameDoc) {
          if (ctx.watchDocument) ctx.watchDocument(frameDoc);
          stack.push(frameDoc.body || frameDoc.documentElement);
        } else if (shown) {
          opaque.add(el);
        }
      } else if (!dom.isOpaque(el)) {
        pushChildren(stack, el);
        // Pushed last, so searched first, as childElements orders them.
        const shadow = dom.shadowOf(el);
        if (shadow) pushChildren(stack, shadow);
      }
    }
    return { matches, hidden, order, capped, opaque };
  }

  // How long a pointer action waits for its target to stop moving, and how many frames of
  // its most recent boxes the click point must lie inside when it never stops.
  const REST_MS = 1000;
  const REST_FRAMES = 6;

  // Waits until the element's box is the same on two frames in a row (an animation, a
  // transition or a late layout shift has ended), so that the point a pointer action aims at
  // is still the element's when the input lands. Resolves {stable: true}; after REST_MS of
  // movement, {stable: false, steady}: steady when its centre stayed inside each of its last
  // boxes (a pulsing button: clicking its centre still reaches it). A hidden tab draws no
  // frames, and moves nothing, so it is not waited on. `frame` and `now` are the page's.
  async function restingBox(el, { frame = root.requestAnimationFrame, now = () => root.performance.now() } = {}) {
    const doc = el.ownerDocument;
    if (typeof frame !== "function" || (doc && doc.visibilityState === "hidden")) return { stable: true };
    const started = now();
    let last = dom.rectOf(el);
    const recent = [last];
    while (now() - started < REST_MS) {
      await new Promise((resolve) => frame.call(root, resolve));
      const box = dom.rectOf(el);
      if (box.x === last.x && box.y === last.y && box.width === last.width && box.height === last.height) return { stable: true };
      last = box;
      recent.push(box);
      if (recent.length > REST_FRAMES) recent.shift();
    }
    const c = dom.center(last);
    const inside = (r) => c.x >= r.x && c.x <= r.x + r.width && c.y >= r.y && c.y <= r.y + r.height;
    return { stable: false, steady: recent.length >= REST_FRAMES && recent.every(inside) };
  }

  // The interactive elements shown near `el` (under its nearest few ancestors, the body
  // included: a menu is often a sibling of what opens it), by ref, with their role and name.
  // A receipt compares them before and after a hover or a click, so a menu the page shows by
  // CSS alone (:hover, :focus-within: no DOM change to count) is named.
  // `complete` is false when there were more than it keeps: then no difference is drawn.
  const NEAR_LEVELS = 3;
  const NEAR_CHECKED = 300;
  const NEAR_KEPT = 40;
  function nearby(el, ctx) {
    let region = el;
    for (let level = 0; level < NEAR_LEVELS; level++) {
      const up = dom.composedParent(region);
      const doc = up && up.ownerDocument;
      if (!up || !doc || up === doc.documentElement) break;
      region = up;
    }
    const shown = {};
    let kept = 0;
    let checked = 0;
    const candidates = typeof region.querySelectorAll === "function" ? region.querySelectorAll(dom.INTERACTIVE_SELECTOR) : [];
    for (const other of candidates) {
      checked += 1;
      if (checked > NEAR_CHECKED || kept >= NEAR_KEPT) return { shown, complete: false };
      if (other === el || !dom.isVisible(other, ctx.env)) continue;
      shown[ctx.refs.refFor(other)] = nameOf(other);
      kept += 1;
    }
    return { shown, complete: true };
  }

  // Whether a click at the centre of `el` (described as `target`) reaches it (it, something
  // inside it, or a label of it, which hands the click on), and the element the click would
  // hit. computer and act_on both ask this before a click by ref.
  function hitTest(el, target) {
    let top = el.ownerDocument;
    for (let hops = 0; top && dom.hostFrame(top) && hops < 16; hops++) top = dom.hostFrame(top).ownerDocument;
    const at = elementAtPoint(top || el.ownerDocument, target.x, target.y);
    let reaches = false;
    for (let node = at, hops = 0; node && hops < 256 && !reaches; hops++) {
      reaches = standsFor(node, el);
      // Up through shadow hosts and, from a frame's document, to the frame element.
      node = node.parentNode || node.host || (node.nodeType === 9 ? dom.hostFrame(node) : null);
    }
    return { reaches, at };
  }

  // Whether input that reaches `node` reaches `el`: it is `el`, or a label of it.
  function standsFor(node, el) {
    return node === el || (dom.tagOf(node) === "LABEL" && node.control === el);
  }

  // A watch on where the presses of one click (or the press of a drag) go down and come up,
  // armed before it on `aimed` (what is at the point, or the ref's element): capturing
  // listeners at the top of the event's path in this window and in the aimed element's own
  // (a same-origin frame's), for the browser's own input only (a page's synthetic events
  // say nothing). `landed` becomes {reached, target, release}: whether each press went down
  // (and, with `releases`, came up) on `aimed`, inside it, on the control around it or on a
  // label of it; if one did not, the element the first such went down (`release`: came up)
  // on. What covers the target at that instant (an overlay a timer or the press itself
  // shows) or a target that moves or changes as the pointer arrives (a "catch me" button)
  // is so named, and the receipt says the press landed elsewhere. It stops listening once
  // `presses` presses (and as many releases) were seen. A press the page hides from every
  // listener, or one in another frame, is not seen.
  function watchPress(aimed, ctx, { presses = 1, releases = false } = {}) {
    let control = null;
    for (let node = aimed, hops = 0; node && hops < 64 && !control; hops++, node = dom.composedParent(node)) {
      if (dom.isInteractive(node)) control = node;
    }
    const watch = { landed: null, views: [] };
    let downs = 0;
    let ups = 0;
    const onEvent = (event) => {
      if (!event.isTrusted) return;
      const release = event.type === "mouseup";
      if (release && (!releases || ups >= downs)) return; // no press of this click went down
      if (release) ups += 1;
      else downs += 1;
      if (downs >= presses && (!releases || ups >= presses)) watch.disarm();
      if (watch.landed && watch.landed.reached === false) return; // the first miss is kept
      const path = typeof event.composedPath === "function" ? event.composedPath() : [event.target];
      const first = path.find((node) => node && node.nodeType === 1);
      if (!first) return;
      const hit = (node) => standsFor(node, aimed) || (control !== null && node === control);
      // Inside a closed shadow root the path starts at its host: look in there.
      const el = pressedInside(first, event);
      let reached = path.some(hit);
      for (let node = el, hops = 0; !reached && node && node !== first && hops < 256; hops++) {
        reached = hit(node);
        node = dom.composedParent(node);
      }
      // A target that went when pressed (a menu item that closes on mousedown) took the
      // press: only one still there under the pointer had something come over it.
      if (reached || (release && !stillUnder(aimed, event, ctx))) {
        watch.landed = { reached: true, target: null, release };
        return;
      }
      let target = null;
      try {
        target = describeElement(el, ctx);
      } catch {
        target = null; // said as a press that landed elsewhere, on nothing it could name
      }
      watch.landed = { reached, target, release };
    };
    watch.disarm = () => {
      for (const view of watch.views) {
        view.removeEventListener("mousedown", onEvent, true);
        view.removeEventListener("mouseup", onEvent, true);
      }
      watch.views = [];
    };
    const own = aimed.ownerDocument && aimed.ownerDocument.defaultView;
    for (const view of new Set([root, own].filter(Boolean))) {
      try {
        view.addEventListener("mousedown", onEvent, true);
        view.addEventListener("mouseup", onEvent, true);
        watch.views.push(view);
      } catch {
        // a view this script cannot reach: a press there goes unseen, and nothing is said
      }
    }
    return watch;
  }

  // The element under a mouse event's point inside `first` (where the event's path starts),
  // through shadow roots a listener out here is not shown (closed ones): `first` itself when
  // it hosts none, or nothing of it is there.
  function pressedInside(first, event) {
    let el = first;
    for (let hops = 0; hops < 32; hops++) {
      const shadow = dom.shadowOf(el);
      const inner = shadow && typeof shadow.elementFromPoint === "function" ? shadow.elementFromPoint(event.clientX, event.clientY) : null;
      if (!inner || inner === el || !within(inner, el)) break;
      el = inner;
    }
    return el;
  }

  function within(node, ancestor) {
    for (let up = node, hops = 0; up && hops < 256; hops++, up = dom.composedParent(up)) {
      if (up === ancestor) return true;
    }
    return false;
  }

  // Whether `el` is still shown under the point of a mouse event (in its own window's
  // viewport), in top-viewport px as `rectOf` gives its box.
  function stillUnder(el, event, ctx) {
    if (!el.isConnected || !dom.isVisible(el, ctx.env)) return false;
    const doc = event.view && event.view.document;
    const offset = doc && dom.hostFrame(doc) ? dom.frameOffset(doc.documentElement || doc.body) : { x: 0, y: 0 };
    const x = event.clientX + offset.x;
    const y = event.clientY + offset.y;
    const box = dom.rectOf(el);
    return x >= box.x && x <= box.x + box.width && y >= box.y && y <= box.y + box.height;
  }

  // A result on screen that something else covers (a cookie banner, a dialog) says what: a
  // click at its point would land there. One whose centre a container cuts away says that
  // instead (clippedBy): it is not covered, it needs scrolling into view.
  function withCovering(result, el) {
    if (!result.visible || !result.inViewport || result.clippedBy) return result;
    const { reaches, at } = hitTest(el, result);
    if (reaches || !at) return result;
    return { ...result, coveredBy: nameOf(at) };
  }

  // The element a click at top-viewport CSS point (x, y) would hit, looking inside shadow
  // roots and same-origin frames; null outside the viewport or on a non-finite point.
  function elementAtPoint(doc, x, y) {
    if (!Number.isFinite(x) || !Number.isFinite(y) || typeof doc.elementFromPoint !== "function") return null;
    // The point in this document's own viewport (a frame's is offset from the top one).
    const offset = dom.hostFrame(doc) ? dom.frameOffset(doc.documentElement || doc.body) : { x: 0, y: 0 };
    const lx = x - offset.x;
    const ly = y - offset.y;
    let el = doc.elementFromPoint(lx, ly);
    for (let hops = 0; el && hops < 32; hops++) {
      const shadow = dom.shadowOf(el);
      const inner = shadow && shadow.elementFromPoint(lx, ly);
      if (!inner || inner === el) break;
      el = inner;
    }
    const frameDoc = el && dom.isFrame(el) ? dom.frameDocument(el) : null;
    if (frameDoc) return elementAtPoint(frameDoc, x, y) || el;
    return el || null;
  }

  ns.find = {
    WALK_CAP, RANK_CAP, normalize, rankMatch, sortMatches, mayMatch, describeElement, findText, elementAtPoint, hitTest,
    opaqueFrames, unsearchedNote, nearby, restingBox, watchPress,
  };
})(globalThis);
