// DOM vocabulary shared by the content-script mechanisms: which elements to walk, their
// role, accessible name, interactivity and visibility. Classic script (content scripts are
// not modules); it registers on globalThis.GhostlightPage. Functions take the element and an
// `env` ({getComputedStyle, innerWidth, innerHeight}) so tests can run them on a fake DOM.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.dom) return;

  // A failure inside the page, reported to the service with hop "page".
  class PageError extends Error {
    constructor(message, code) {
      super(message);
      this.name = "PageError";
      this.code = code || "page_error";
    }
  }

  const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE"]);
  // Leaf-like elements whose inner markup is noise for a reader.
  const OPAQUE_TAGS = new Set(["SVG", "SELECT", "CANVAS", "VIDEO", "AUDIO", "IFRAME", "OBJECT", "EMBED"]);
  const SVG_NS = "http://www.w3.org/2000/svg";
  // What a person reads or clicks inside a drawing: its text, links and controls.
  const SVG_CONTENT = "a, text, [tabindex], [onclick], [role]";

  const INPUT_ROLES = {
    checkbox: "checkbox",
    radio: "radio",
    range: "slider",
    button: "button",
    submit: "button",
    reset: "button",
    image: "button",
    search: "searchbox",
    number: "spinbutton",
    email: "textbox",
    tel: "textbox",
    text: "textbox",
    url: "textbox",
    password: "textbox",
  };

  const TAG_ROLES = {
    A: "link",
    BUTTON: "button",
    TEXTAREA: "textbox",
    SELECT: "combobox",
    IMG: "img",
    H1: "heading",
    H2: "heading",
    H3: "heading",
    H4: "heading",
    H5: "heading",
    H6: "heading",
    NAV: "navigation",
    MAIN: "main",
    FORM: "form",
    UL: "list",
    OL: "list",
    LI: "listitem",
    TABLE: "table",
    TR: "row",
    TH: "columnheader",
    TD: "cell",
    DIALOG: "dialog",
    SECTION: "region",
    ARTICLE: "article",
    SUMMARY: "button",
    HEADER: "banner",
    FOOTER: "contentinfo",
    ASIDE: "complementary",
    OPTION: "option",
    LABEL: "label",
    P: "paragraph",
  };

  const INTERACTIVE_TAGS = new Set(["A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY", "DETAILS", "OPTION"]);
  const INTERACTIVE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "textbox", "searchbox", "combobox", "slider", "spinbutton",
    "listbox", "treeitem", "gridcell",
  ]);
  // Tags whose own text is their name (short texts only).
  const TEXT_NAMED_TAGS = new Set([
    "A", "BUTTON", "H1", "H2", "H3", "H4", "H5", "H6", "LI", "TD", "TH", "SUMMARY", "OPTION",
    "LABEL", "LEGEND", "CAPTION", "FIGCAPTION", "DT", "DD",
  ]);
  // Roles named from their content (WAI-ARIA "name from: contents"), whatever the tag: a
  // <div role="tab">Billing</div> is the tab "Billing".
  const CONTENT_NAMED_ROLES = new Set([
    "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
    "tooltip", "treeitem",
  ]);
  // Roles whose state is aria-checked when they are not native inputs.
  const CHECKED_ROLES = new Set(["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]);
  // Content of a control, not words of the <label> around it (a select's options).
  const NOT_LABEL_TEXT = new Set(["SELECT", "TEXTAREA", "OPTION", "DATALIST", "SCRIPT", "STYLE"]);
  const SECRET_AUTOCOMPLETE = /^(current-password|new-password|one-time-code|cc-number|cc-csc|cc-exp)/i;

  function tagOf(el) {
    return String(el.tagName || "").toUpperCase();
  }

  function collapse(text) {
    return String(text || "").replace(/\s+/g, " ").trim();
  }

  // Letters as a reader matches them: without accents, width or case ("Zürich" is found by
  // "Zurich", "Straße" by "Strasse", fullwidth "Ｆｕｌｌ" by "Full"). An agent types what it
  // reads off a screenshot, or plain ASCII. find, wait_for and a select's options all match
  // text through this one rule. ASCII text (most of any page) takes the short way.
  function fold(text) {
    const value = String(text || "");
    // eslint-disable-next-line no-control-regex
    if (!/[^\x00-\x7f]/.test(value)) return value.toLowerCase();
    return value.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/ß/g, "ss");
  }

  function clip(text, max) {
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  }

  function attr(el, name) {
    const value = el.getAttribute ? el.getAttribute(name) : null;
    return value === null || value === undefined ? "" : String(value);
  }

  function inSvg(el) {
    return el.namespaceURI === SVG_NS;
  }

  // SVG <text>: words drawn in a picture, read as the text they are.
  function isSvgText(el) {
    return tagOf(el) === "TEXT" && inSvg(el);
  }

  // A link's target: href, or an SVG link's older xlink:href; null when it is no link.
  function hrefOf(el) {
    if (tagOf(el) !== "A" || !el.hasAttribute) return null;
    if (el.hasAttribute("href")) return attr(el, "href");
    return inSvg(el) && el.hasAttribute("xlink:href") ? attr(el, "xlink:href") : null;
  }

  // Whether a reader treats the element as a leaf. A drawing is read inside only when it
  // holds text, links or controls: an icon's paths and groups are noise.
  function isOpaque(el) {
    const tag = tagOf(el);
    if (!OPAQUE_TAGS.has(tag)) return false;
    if (tag !== "SVG") return true;
    if (typeof el.querySelector === "function") return el.querySelector(SVG_CONTENT) === null;
    return typeof el.querySelectorAll !== "function" || el.querySelectorAll(SVG_CONTENT).length === 0;
  }

  function isSkipped(el) {
    const tag = tagOf(el);
    return SKIP_TAGS.has(tag) || tag.startsWith("GHOSTLIGHT-");
  }

  // A closed shadow root is hidden from the page's own scripts, not from the user, who sees
  // and clicks what it holds; a content script may open it (chrome.dom). The call costs far
  // more than a property read, and asking every div and span of a large page makes its walks
  // too slow to answer, so only elements likely to hold one are asked: custom elements, and
  // the built-in tags attachShadow accepts when they are empty (an empty <div> is where a
  // script mounts a widget). A closed root on a built-in element with light children (even
  // blank text) stays unread.
  const openOrClosed =
    root.chrome && root.chrome.dom && typeof root.chrome.dom.openOrClosedShadowRoot === "function"
      ? (el) => root.chrome.dom.openOrClosedShadowRoot(el)
      : null;
  const SHADOW_HOST_TAGS = new Set([
    "article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "main", "nav", "p", "section", "span",
  ]);

  // Whether an element without an open shadow root may hide a closed one worth asking for.
  function mayHostClosedShadow(el) {
    const name = String(el.localName || "");
    if (name.includes("-")) return true;
    return SHADOW_HOST_TAGS.has(name) && !hasChildren(el);
  }

  // hasChildNodes() answers without making a wrapper for a child, as firstChild must.
  function hasChildren(el) {
    return typeof el.hasChildNodes === "function" ? el.hasChildNodes() : !!(el.childNodes && el.childNodes.length);
  }

  // The element's shadow root, open or closed; null when it has none.
  function shadowOf(el) {
    if (!el) return null;
    const open = el.shadowRoot;
    if (open) return open;
    if (!openOrClosed || el.nodeType !== 1 || !mayHostClosedShadow(el)) return null;
    try {
      return openOrClosed(el) || null;
    } catch (err) {
      return null; // not an element this API takes: as if it had none
    }
  }

  // Child elements, including those of a shadow root (open or closed). Copied one by one:
  // spread into a call (push(...children)), 130000 children are as many arguments, past what
  // the stack holds.
  function childElements(el) {
    const out = [];
    const shadow = shadowOf(el);
    if (shadow && shadow.children) appendAll(out, shadow.children);
    if (el.children) appendAll(out, el.children);
    return out;
  }

  // `items` (any iterable: a list, a NodeList, an HTMLCollection) added to the end of `out`, for
  // lists of any length (see childElements).
  function appendAll(out, items) {
    for (const item of items) out.push(item);
    return out;
  }

  // The parent in the composed tree: a shadow root's children belong to its host.
  function composedParent(el) {
    if (el.parentElement) return el.parentElement;
    const parent = el.parentNode;
    return parent && parent.nodeType === 11 && parent.host ? parent.host : null;
  }

  // Elements under `root` (a document, element or shadow root; not inside nested shadow
  // roots) that host a shadow root, in document order.
  function shadowHosts(root) {
    const out = [];
    if (!root || typeof root.querySelectorAll !== "function") return out;
    for (const el of root.querySelectorAll("*")) if (shadowOf(el)) out.push(el);
    return out;
  }

  function roleOf(el) {
    const explicit = attr(el, "role").trim().split(/\s+/)[0];
    if (explicit) return explicit.toLowerCase();
    const tag = tagOf(el);
    if (tag === "INPUT") {
      const type = (attr(el, "type") || "text").toLowerCase();
      if (type === "hidden") return "";
      return INPUT_ROLES[type] || "textbox";
    }
    if (tag === "A" && hrefOf(el) === null) return "";
    // A select that shows several options at once (multiple, or a size over 1) is a list box.
    if (tag === "SELECT" && (el.multiple || Number(el.size) > 1)) return "listbox";
    if (TAG_ROLES[tag]) return TAG_ROLES[tag];
    // The root of an editable region (a rich editor's <div contenteditable>) is a text box,
    // as the browser's accessibility tree has it; its editable descendants are its content.
    return isEditableRoot(el) ? "textbox" : "";
  }

  function isEditableRoot(el) {
    if (el.isContentEditable !== true) return false;
    const parent = el.parentElement;
    return !parent || parent.isContentEditable !== true;
  }

  function textOf(el) {
    // innerText respects CSS (hidden text, line breaks); fakes and detached nodes lack it.
    let text = typeof el.innerText === "string" ? el.innerText : el.textContent;
    // What the browser skips rendering (a closed <details>) has no innerText, yet its words
    // still name it: a hidden match is counted by its name.
    if (!text && typeof el.checkVisibility === "function" && !el.checkVisibility()) text = el.textContent;
    return collapse(text);
  }

  // Text of the element's own text nodes, not of its descendants.
  function ownText(el) {
    const parts = [];
    for (const node of el.childNodes || []) if (node.nodeType === 3) parts.push(node.nodeValue || "");
    return collapse(parts.join(" "));
  }

  // The <label>s of a form control. Reading el.labels makes the browser walk the whole
  // document the first time for each element (seconds over thousands of buttons), so it is
  // read only for a control that can have a label: one with an id or inside a <label>.
  function labelsOf(el) {
    if (!el.labels) return [];
    const inLabel = typeof el.closest === "function" ? el.closest("label") !== null : true;
    return el.id || inLabel ? [...el.labels] : [];
  }

  // Whether the element's text may be its name: by its tag or by its role.
  function namedFromContent(el) {
    return TEXT_NAMED_TAGS.has(tagOf(el)) || CONTENT_NAMED_ROLES.has(roleOf(el)) || isSvgText(el);
  }

  // A label's words: its text without the content of controls inside it (a select inside its
  // label must not be named "Size Small Medium Large").
  function labelText(label) {
    const holdsControl = typeof label.querySelectorAll === "function" && label.querySelectorAll("select, textarea").length > 0;
    if (!holdsControl) return textOf(label);
    const parts = [];
    const walk = (node, depth) => {
      for (const child of node.childNodes || []) {
        if (child.nodeType === 3) parts.push(child.nodeValue || "");
        else if (child.nodeType === 1 && depth < 16 && !NOT_LABEL_TEXT.has(tagOf(child))) walk(child, depth + 1);
      }
    };
    walk(label, 0);
    return collapse(parts.join(" "));
  }

  // The shown value of a select: its selected options' text ("" when none is selected).
  function selectValueText(el) {
    const selected = el.selectedOptions ? [...el.selectedOptions] : [];
    return collapse(selected.map((o) => collapse(o.textContent)).join(", "));
  }

  // aria-checked of a checkbox-like role on a non-input element: true, false or null (unset).
  function ariaChecked(el) {
    if (tagOf(el) === "INPUT" || !CHECKED_ROLES.has(roleOf(el))) return null;
    const state = attr(el, "aria-checked").trim().toLowerCase();
    return state === "true" ? true : state === "false" ? false : null;
  }

  function labelledByText(el) {
    const ids = attr(el, "aria-labelledby").trim();
    if (!ids) return "";
    const doc = el.ownerDocument;
    if (!doc || !doc.getElementById) return "";
    return collapse(
      ids
        .split(/\s+/)
        .map((id) => doc.getElementById(id))
        .filter(Boolean)
        .map((node) => textOf(node))
        .join(" "),
    );
  }

  function accessibleName(el) {
    const tag = tagOf(el);
    // A select is named by its labels, never by its selected option: that is its value.
    const candidates = [
      () => attr(el, "aria-label"),
      () => labelledByText(el),
      () => labelsOf(el).map((l) => labelText(l)).join(" "),
      () => attr(el, "placeholder"),
      () => attr(el, "title"),
      () => attr(el, "alt"),
      () => {
        const type = attr(el, "type").toLowerCase();
        return tag === "INPUT" && ["submit", "button", "reset"].includes(type) ? attr(el, "value") : "";
      },
      () => {
        if (!namedFromContent(el)) return "";
        const text = tag === "LABEL" ? labelText(el) : textOf(el);
        return text.length < 200 ? text : "";
      },
      () => {
        // A link or button holding only an image is named by the image's alt text.
        if ((tag !== "A" && tag !== "BUTTON") || typeof el.querySelector !== "function") return "";
        const img = el.querySelector("img[alt]");
        return img ? attr(img, "alt") : "";
      },
    ];
    for (const get of candidates) {
      const value = collapse(get());
      if (value) return clip(value, 200);
    }
    return "";
  }

  function isInteractive(el) {
    const tag = tagOf(el);
    if (INTERACTIVE_TAGS.has(tag)) {
      if (tag === "A") return hrefOf(el) !== null;
      if (tag === "INPUT") return attr(el, "type").toLowerCase() !== "hidden";
      return true;
    }
    if (INTERACTIVE_ROLES.has(roleOf(el))) return true;
    if (el.hasAttribute && el.hasAttribute("onclick")) return true;
    if (el.hasAttribute && el.hasAttribute("tabindex") && Number(attr(el, "tabindex")) >= 0) return true;
    return el.isContentEditable === true || attr(el, "contenteditable") === "true";
  }

  const INTERACTIVE_SELECTOR = [
    "a[href]", "button", 'input:not([type="hidden"])', "select", "textarea", "summary",
    '[contenteditable="true"]', "[onclick]", '[tabindex]:not([tabindex^="-"])',
    ...[...INTERACTIVE_ROLES].map((role) => `[role="${role}"]`),
  ].join(",");

  // Whether any element below `el` (light DOM) is interactive.
  function hasInteractiveDescendant(el) {
    if (typeof el.querySelector === "function") {
      try {
        return el.querySelector(INTERACTIVE_SELECTOR) !== null;
      } catch {
        return false;
      }
    }
    const stack = [...(el.children || [])];
    for (let seen = 0; stack.length && seen < 5000; seen++) {
      const node = stack.pop();
      if (isInteractive(node)) return true;
      appendAll(stack, node.children || []);
    }
    return false;
  }

  // Whether the element is named by the page's author (aria-label, aria-labelledby, title)
  // rather than by its text.
  function hasAuthoredName(el) {
    return !!(attr(el, "aria-label").trim() || attr(el, "aria-labelledby").trim() || attr(el, "title").trim());
  }

  function isDisabled(el) {
    return el.disabled === true || attr(el, "aria-disabled") === "true";
  }

  // --- same-origin frames ---------------------------------------------------------------
  // The content script runs in the top frame only. It reaches a child frame's document through
  // iframe.contentDocument, which the browser hands out only for a same-origin frame (null for
  // a cross-origin one). Boxes of elements inside frames are given in the top viewport's CSS
  // pixels: the element's own box plus the content-box origin of every frame around it.
  const FRAME_TAGS = new Set(["IFRAME", "FRAME"]);
  const MAX_FRAME_DEPTH = 16;

  function isFrame(el) {
    return FRAME_TAGS.has(tagOf(el));
  }

  // A frame element's document when it can be read (same-origin and loaded), else null.
  function frameDocument(el) {
    try {
      const doc = el.contentDocument;
      return doc && (doc.body || doc.documentElement) ? doc : null;
    } catch {
      return null;
    }
  }

  // The frame element hosting a document; null for the top document or an unreachable one.
  function hostFrame(doc) {
    try {
      const view = doc && doc.defaultView;
      return (view && view.frameElement) || null;
    } catch {
      return null;
    }
  }

  function styleOf(el) {
    try {
      const view = el.ownerDocument && el.ownerDocument.defaultView;
      return view && view.getComputedStyle ? view.getComputedStyle(el) : null;
    } catch {
      return null;
    }
  }

  // A frame's content box (inside border and padding) in its own document's viewport px.
  function frameContentBox(frame) {
    const r = frame.getBoundingClientRect();
    const style = styleOf(frame);
    const pad = (side) => (style ? parseFloat(style[`padding${side}`]) || 0 : 0);
    const x = r.left + (frame.clientLeft || 0) + pad("Left");
    const y = r.top + (frame.clientTop || 0) + pad("Top");
    const inner = (client, outer, a, b) => (Number.isFinite(client) && client > 0 ? client - pad(a) - pad(b) : outer);
    const width = inner(frame.clientWidth, r.width, "Left", "Right");
    const height = inner(frame.clientHeight, r.height, "Top", "Bottom");
    return { x, y, width: Math.max(0, width), height: Math.max(0, height) };
  }

  // Frame elements around a node, innermost first (empty in the top document).
  function frameChain(el) {
    const chain = [];
    let frame = hostFrame(el && el.ownerDocument);
    while (frame && chain.length < MAX_FRAME_DEPTH) {
      chain.push(frame);
      frame = hostFrame(frame.ownerDocument);
    }
    return chain;
  }

  // Where an element's document's viewport origin sits in the top viewport.
  function frameOffset(el) {
    let x = 0;
    let y = 0;
    for (const frame of frameChain(el)) {
      const box = frameContentBox(frame);
      x += box.x;
      y += box.y;
    }
    return { x, y };
  }

  // The part of the top viewport through which an element's document is seen (the
  // intersection of its frames' content boxes, in top viewport px); null in the top document.
  function frameClip(el) {
    const chain = frameChain(el);
    if (!chain.length) return null;
    let clip = null;
    // Outermost first, so each box is offset by the frames around it.
    for (let i = chain.length - 1; i >= 0; i--) {
      const box = frameContentBox(chain[i]);
      const offset = frameOffset(chain[i]);
      const abs = { x: box.x + offset.x, y: box.y + offset.y, width: box.width, height: box.height };
      clip = clip ? intersect(clip, abs) : abs;
    }
    return clip;
  }

  function intersect(a, b) {
    const x = Math.max(a.x, b.x);
    const y = Math.max(a.y, b.y);
    const right = Math.min(a.x + a.width, b.x + b.width);
    const bottom = Math.min(a.y + a.height, b.y + b.height);
    return { x, y, width: Math.max(0, right - x), height: Math.max(0, bottom - y) };
  }

  // The element's box in its own document's viewport; null when it has none.
  function ownRect(el) {
    return el.getBoundingClientRect ? el.getBoundingClientRect() : null;
  }

  // The element's box in the top viewport's CSS px (frames included). `own`: its ownRect,
  // when already read.
  function rectOf(el, own = ownRect(el)) {
    const r = own;
    if (!r) return { x: 0, y: 0, width: 0, height: 0 };
    const offset = hostFrame(el.ownerDocument) ? frameOffset(el) : { x: 0, y: 0 };
    return {
      x: Math.round(r.left + offset.x),
      y: Math.round(r.top + offset.y),
      width: Math.round(r.width),
      height: Math.round(r.height),
    };
  }

  // display:none removes the whole subtree; visibility/size only the element itself.
  function isDisplayed(el, env) {
    const style = env.getComputedStyle ? env.getComputedStyle(el) : null;
    return !style || style.display !== "none";
  }

  // Rendered with a size, not fully transparent, not wholly outside the part of the page a
  // person can scroll to, and not cut away whole by an ancestor the user cannot scroll (an
  // overflow:hidden box it lies outside, a collapsed one). An element scrolled out of a scroll
  // container is visible, like one below the fold: it is out of view (see clipping).
  function isVisible(el, env) {
    const style = factsOf(el, env).style;
    if (style && (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse")) {
      return false;
    }
    const own = ownRect(el);
    const r = rectOf(el, own);
    if (!(r.width > 0 && r.height > 0)) return false;
    // What the browser itself skips rendering: the content of a closed <details> or of a
    // content-visibility:hidden box keeps a box, but nothing of it is drawn or clickable.
    if (!isDrawn(el, env) || isOffPage(el, env, own)) return false;
    return !clipping(el, env, r).hidden;
  }

  // Whether the browser draws the element: rendered (not in a closed <details>, not under
  // content-visibility:hidden) and not transparent.
  function isDrawn(el, env) {
    if (typeof el.checkVisibility !== "function") return !isTransparent(el, env);
    if (!drawnByPage(el)) return el.checkVisibility(OPACITY_CHECK);
    return el.checkVisibility() && !isTransparent(el, env);
  }

  // Whether the text directly inside `el` is laid out (innerText gives it) and yet no person
  // can see it: transparent, of font-size 0, wholly outside the page, or cut away by a box it
  // lies in (its own overflow:hidden box without area, or an ancestor's). Text that innerText
  // leaves out itself (display:none, visibility:hidden, a closed <details>) is not counted.
  function hidesOwnText(el, env) {
    const style = factsOf(el, env).style;
    if (!style || style.visibility === "hidden" || style.visibility === "collapse") return false;
    const box = boxedSelfOrAncestor(el, env);
    if (!box) return false;
    if (typeof box.checkVisibility === "function") {
      // Not drawn: transparent, unless not rendered at all (then innerText leaves it out).
      if (!box.checkVisibility(OPACITY_CHECK)) return box.checkVisibility();
    } else if (isTransparent(box, env)) {
      return true;
    }
    if (parseFloat(style.fontSize) === 0 || paintsNoText(el, env, style)) return true;
    const own = ownRect(box);
    const r = rectOf(box, own);
    // A box without area shows no text only when it clips: otherwise its text overflows it.
    if (!(r.width > 0 && r.height > 0) && clipsOwn(box, env)) return true;
    return isOffPage(box, env, own) || clipping(box, env, r).hidden;
  }

  // Whether text in `el` is drawn in no colour at all (color: transparent, alone or inherited):
  // laid out, read by innerText, and never seen, an old way of planting words for machines.
  // Unless something else draws its letters: a stroke, a shadow, or a background clipped to the
  // text (gradient text, whose colour is transparent by design).
  function paintsNoText(el, env, style) {
    if (!isClearColor(style.webkitTextFillColor || style.color)) return false;
    if (parseFloat(style.webkitTextStrokeWidth) > 0) return false;
    if (style.textShadow && style.textShadow !== "none") return false;
    for (let node = el, hops = 0; node && node.nodeType === 1 && hops < 64; node = flatParent(node), hops++) {
      const around = factsOf(node, env).style;
      if (around && /text/.test(`${around.backgroundClip || ""} ${around.webkitBackgroundClip || ""}`)) return false;
    }
    return true;
  }

  // A computed colour with no opacity at all ("transparent" computes to rgba(0, 0, 0, 0)).
  function isClearColor(color) {
    if (typeof color !== "string") return false;
    const text = color.trim().toLowerCase();
    return text === "transparent" || /^rgba\(.*,\s*0(?:\.0+)?\s*\)$/.test(text);
  }

  // The element, or for a display:contents one (no box: its text lies in its parent's) the
  // nearest ancestor with a box.
  function boxedSelfOrAncestor(el, env) {
    let node = el;
    for (let hops = 0; node && node.nodeType === 1 && hops < 64; hops++) {
      const style = factsOf(node, env).style;
      if (!style || style.display !== "contents") return node;
      node = flatParent(node);
    }
    return null;
  }

  // --- transparency --------------------------------------------------------------------------
  const OPACITY_CHECK = Object.freeze({ opacityProperty: true, checkOpacity: true });

  // Controls a page commonly draws itself (a styled checkbox, a custom select or upload
  // button): the native control is kept transparent over or beside the drawing and still
  // takes the clicks, so it is seen when what holds it is.
  function drawnByPage(el) {
    const tag = tagOf(el);
    if (tag === "SELECT") return true;
    return tag === "INPUT" && /^(checkbox|radio|file)$/.test(attr(el, "type").toLowerCase());
  }

  // Whether the element or one around it has opacity 0: it is laid out, takes clicks, and
  // is never drawn.
  function isTransparent(el, env) {
    const subject = drawnByPage(el) ? flatParent(el) : el;
    if (!subject || subject.nodeType !== 1) return false;
    if (typeof subject.checkVisibility === "function") {
      // Without a box (display:contents) it answers false whatever the opacity.
      return !subject.checkVisibility(OPACITY_CHECK) && subject.checkVisibility();
    }
    for (let node = subject, hops = 0; node && node.nodeType === 1 && hops < 1024; node = flatParent(node), hops++) {
      const style = factsOf(node, env).style;
      if (style && style.opacity !== undefined && style.opacity !== "" && Number(style.opacity) === 0) return true;
    }
    return false;
  }

  // --- outside the page ------------------------------------------------------------------------
  // A person sees what scrolling can bring into the viewport. A box wholly outside the page's
  // scrollable area (left of or above its start: position:absolute; left:-9999px), or one
  // fixed to the viewport and wholly outside it (a drawer slid off its edge), is never seen.
  // `own`: the element's box in its own document's viewport (ownRect).
  function isOffPage(el, env, own = ownRect(el)) {
    const doc = el.ownerDocument;
    const r = own;
    if (!doc || !r) return false;
    const box = { left: r.left, top: r.top, right: r.left + r.width, bottom: r.top + r.height };
    const area = fixedToViewport(el, env) ? viewportArea(doc, env) : pageArea(doc, env);
    if (!area) return false;
    return box.right <= area.left || box.left >= area.right || box.bottom <= area.top || box.top >= area.bottom;
  }

  // A document's viewport, in its own px.
  function viewportArea(doc, env) {
    const view = doc.defaultView || env;
    const width = Number(view.innerWidth);
    const height = Number(view.innerHeight);
    return { left: 0, top: 0, right: width > 0 ? width : Infinity, bottom: height > 0 ? height : Infinity };
  }

  // The part of a document that scrolling reaches, in its viewport's px (once per task).
  function pageArea(doc, env) {
    const facts = memory();
    if (!facts.has(doc)) facts.set(doc, measurePageArea(doc, env));
    return facts.get(doc);
  }

  function measurePageArea(doc, env) {
    const view = doc.defaultView || env;
    const scroller = doc.scrollingElement || doc.documentElement;
    // The viewport takes its writing mode and direction from the body.
    const flow = doc.body || doc.documentElement;
    const style = flow && env.getComputedStyle ? env.getComputedStyle(flow) : null;
    if (!scroller || (style && style.writingMode && !/^horizontal/.test(style.writingMode))) return null;
    const extent = (n) => (Number.isFinite(n) && n > 0 ? n : Infinity);
    const width = extent(scroller.scrollWidth);
    const height = extent(scroller.scrollHeight);
    const sx = Number(view.scrollX) || 0;
    const sy = Number(view.scrollY) || 0;
    const top = -sy;
    const bottom = height - sy;
    if (style && style.direction === "rtl") {
      // A right-to-left page starts at its right edge and scrolls leftwards.
      const client = Number(scroller.clientWidth) || Number(view.innerWidth) || 0;
      return { left: client - width - sx, top, right: client - sx, bottom };
    }
    return { left: -sx, top, right: width - sx, bottom };
  }

  // Whether the element is laid out against the viewport (position:fixed, or inside such a
  // box), so scrolling never moves it. Kept per element for the task, as clip chains are.
  function fixedToViewport(el, env) {
    const path = [];
    let fixed = false;
    for (let node = el, hops = 0; node && hops < 4096; hops++) {
      const facts = factsOf(node, env);
      if (facts.fixed !== undefined) {
        fixed = facts.fixed;
        break;
      }
      path.push(facts);
      const up = blockHolder(node, env);
      if (!up) {
        fixed = positionOf(node, env) === "fixed";
        break;
      }
      node = up;
    }
    for (const facts of path) facts.fixed = fixed;
    return fixed;
  }

  // --- clipping by ancestors -------------------------------------------------------------
  // An ancestor whose overflow is not visible shows its descendants only inside its padding
  // box, so an element can have a box inside the viewport and still not be seen (scrolled out
  // of a scroll container, outside an overflow:hidden box). Only ancestors on the element's
  // containing-block chain clip it: a position:absolute element escapes static ancestors, a
  // position:fixed one every ancestor but a transformed one. <html> and <body> are left to the
  // viewport test: their overflow is the viewport's.
  const CLIPS = /^(hidden|clip|auto|scroll|overlay)$/;
  const USER_SCROLLS = /^(auto|scroll|overlay)$/;
  // Boxes overflow does not apply to (no box of their own, inline, table parts).
  const NO_CLIP_DISPLAY = /^(contents|inline|table-row|table-row-group|table-header-group|table-footer-group|table-column|table-column-group)$/;
  const FAR = 1e9;
  const NO_CLIPS = Object.freeze([]);
  const UNCLIPPED = Object.freeze({ region: null, hidden: false, centreBy: null });

  // The parent whose box lays the element out: a slotted element's slot, else the composed one.
  function flatParent(el) {
    const parent = el.parentElement;
    // Only a shadow host's light children can be slotted (asking any other is wasted work).
    return (parent && shadowOf(parent) && el.assignedSlot) || composedParent(el);
  }

  // Whether an ancestor holds the containing block of descendants positioned `position`.
  function holdsBlock(style, position) {
    if (position !== "absolute" && position !== "fixed") return true;
    const makesBlock = ["transform", "perspective", "filter"].some((p) => style[p] && style[p] !== "none") ||
      /paint|layout|strict|content/.test(style.contain || "");
    return makesBlock || (position === "absolute" && !!style.position && style.position !== "static");
  }

  // An ancestor's clip: its padding box in top viewport px (an axis it does not clip reaches
  // far), and on each axis whether the user can scroll what it holds.
  function clipBox(el, style) {
    const r = rectOf(el);
    const clipsX = CLIPS.test(style.overflowX || "");
    const clipsY = CLIPS.test(style.overflowY || "");
    const inner = (client, outer) => (Number.isFinite(client) ? client : outer);
    const width = inner(el.clientWidth, r.width);
    const height = inner(el.clientHeight, r.height);
    return {
      el,
      box: {
        x: clipsX ? r.x + (el.clientLeft || 0) : -FAR,
        y: clipsY ? r.y + (el.clientTop || 0) : -FAR,
        width: clipsX ? width : 2 * FAR,
        height: clipsY ? height : 2 * FAR,
      },
      scrollsX: clipsX && USER_SCROLLS.test(style.overflowX) && (el.scrollWidth || 0) > width,
      scrollsY: clipsY && USER_SCROLLS.test(style.overflowY) && (el.scrollHeight || 0) > height,
    };
  }

  // Style facts of the elements met while walking up, and each element's chain of clipping
  // ancestors, kept for the rest of the current task only (dropped at the next microtask): a
  // reader asks for thousands of elements sharing ancestors, and styles do not change while
  // one mechanism runs. Boxes and scroll sizes are always read afresh.
  let memo = null;
  function memory() {
    if (!memo) {
      memo = new Map();
      Promise.resolve().then(() => {
        memo = null;
      });
    }
    return memo;
  }

  // An element's computed style (one per element and task), its position and whether it clips
  // (each read once, when first asked).
  function factsOf(el, env) {
    const facts = memory();
    let known = facts.get(el);
    if (!known) {
      known = { style: env.getComputedStyle ? env.getComputedStyle(el) : null, position: null, clips: null, chain: null, fixed: undefined, holder: undefined };
      facts.set(el, known);
    }
    return known;
  }

  function positionOf(el, env) {
    const facts = factsOf(el, env);
    if (facts.position === null) facts.position = (facts.style && facts.style.position) || "static";
    return facts.position;
  }

  function clipsOwn(el, env) {
    const facts = factsOf(el, env);
    if (facts.clips === null) {
      const style = facts.style;
      facts.clips = !!style && (CLIPS.test(style.overflowX || "") || CLIPS.test(style.overflowY || "")) && !NO_CLIP_DISPLAY.test(style.display || "");
    }
    return facts.clips;
  }

  // The nearest ancestor holding the containing block of `el`, in its own document; null at
  // <body>/<html> (the viewport's) or the top of a tree.
  function blockHolder(el, env) {
    const facts = factsOf(el, env);
    if (facts.holder === undefined) facts.holder = findBlockHolder(el, env);
    return facts.holder;
  }

  function findBlockHolder(el, env) {
    const doc = el.ownerDocument;
    const position = positionOf(el, env);
    for (let up = flatParent(el), hops = 0; up && hops < 1024; up = flatParent(up), hops++) {
      if (up.nodeType !== 1 || (doc && (up === doc.body || up === doc.documentElement))) return null;
      const facts = factsOf(up, env);
      if (facts.style && holdsBlock(facts.style, position)) return up;
    }
    return null;
  }

  // The ancestors of `el` in its own document that clip it, innermost first: the holder of its
  // containing block (if it clips) and then the ancestors clipping that holder.
  function clipChain(el, env) {
    const path = [];
    let chain = null;
    for (let node = el, hops = 0; node && hops < 4096; hops++) {
      const facts = factsOf(node, env);
      chain = facts.chain;
      if (chain) break;
      const up = blockHolder(node, env);
      path.push([facts, up]);
      node = up;
    }
    chain = chain || NO_CLIPS;
    for (let i = path.length - 1; i >= 0; i--) {
      const [facts, up] = path[i];
      if (!up) chain = NO_CLIPS;
      else if (clipsOwn(up, env)) chain = [up, ...chain];
      facts.chain = chain;
    }
    return chain;
  }

  function clipAncestors(el, env) {
    return clipChain(el, env).map((up) => clipBox(up, factsOf(up, env).style));
  }

  // Every box that clips what `el` shows, innermost first: its clipping ancestors and, inside
  // a frame, the frame's content box (its document scrolls in it) and the frame's own
  // clipping ancestors.
  function clipBoxes(el, env) {
    const out = [];
    let node = el;
    for (let depth = 0; node && depth <= MAX_FRAME_DEPTH; depth++) {
      appendAll(out, clipAncestors(node, env));
      const frame = hostFrame(node.ownerDocument);
      if (!frame) break;
      const box = frameContentBox(frame);
      const offset = frameOffset(frame);
      out.push({ el: frame, box: { ...box, x: box.x + offset.x, y: box.y + offset.y }, scrollsX: true, scrollsY: true });
      node = frame;
    }
    return out;
  }

  function contains(box, point) {
    return point.x >= box.x && point.x < box.x + box.width && point.y >= box.y && point.y < box.y + box.height;
  }

  // How ancestors clip an element whose box is `rect` (top viewport px):
  //   region: the part of the viewport they let it show in (null when nothing clips it);
  //   hidden: one cuts its whole box away and the user cannot scroll it back (overflow hidden
  //     or clip on that axis, or a box without area: a collapsed panel);
  //   centreBy: the innermost clip its centre lies outside ({el, scrolls}), where a click at
  //     its centre cannot reach it; null when the centre shows.
  function clipping(el, env, rect = rectOf(el)) {
    const boxes = clipBoxes(el, env);
    if (!boxes.length) return UNCLIPPED;
    const out = { region: null, hidden: false, centreBy: null };
    const middle = { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
    let shown = rect;
    let cutAway = false;
    for (const clip of boxes) {
      out.region = out.region ? intersect(out.region, clip.box) : clip.box;
      if (!out.centreBy && !contains(clip.box, middle)) {
        const outX = middle.x < clip.box.x || middle.x >= clip.box.x + clip.box.width;
        out.centreBy = { el: clip.el, scrolls: outX ? clip.scrollsX : clip.scrollsY };
      }
      if (cutAway) continue;
      const left = intersect(shown, clip.box);
      if (left.width > 0 && left.height > 0) {
        shown = left;
        continue;
      }
      cutAway = true; // outer boxes cannot bring it back
      const outX = shown.x + shown.width <= clip.box.x || shown.x >= clip.box.x + clip.box.width;
      const outY = shown.y + shown.height <= clip.box.y || shown.y >= clip.box.y + clip.box.height;
      const empty = clip.box.width <= 0 || clip.box.height <= 0;
      out.hidden = empty || (outX && !clip.scrollsX) || (outY && !clip.scrollsY);
    }
    return out;
  }

  // Whether a box (top viewport px) shows in the viewport and, inside a frame, in the frame's
  // visible part (`clip`, from frameClip).
  function intersectsViewport(rect, env, clip) {
    const inTop = rect.x < env.innerWidth && rect.y < env.innerHeight && rect.x + rect.width > 0 && rect.y + rect.height > 0;
    if (!inTop || !clip) return inTop;
    return rect.x < clip.x + clip.width && rect.y < clip.y + clip.height && rect.x + rect.width > clip.x && rect.y + rect.height > clip.y;
  }

  function center(rect) {
    return { x: Math.round(rect.x + rect.width / 2), y: Math.round(rect.y + rect.height / 2) };
  }

  function isSecretField(el) {
    if (tagOf(el) !== "INPUT") return false;
    const type = attr(el, "type").toLowerCase();
    return type === "password" || type === "hidden" || SECRET_AUTOCOMPLETE.test(attr(el, "autocomplete"));
  }

  ns.PageError = PageError;
  ns.dom = {
    OPAQUE_TAGS,
    isOpaque,
    isSvgText,
    hrefOf,
    tagOf,
    collapse,
    fold,
    clip,
    attr,
    isSkipped,
    appendAll,
    childElements,
    composedParent,
    shadowOf,
    shadowHosts,
    roleOf,
    textOf,
    ownText,
    labelsOf,
    labelText,
    namedFromContent,
    selectValueText,
    ariaChecked,
    accessibleName,
    isInteractive,
    hasInteractiveDescendant,
    INTERACTIVE_SELECTOR,
    hasAuthoredName,
    isDisabled,
    rectOf,
    isFrame,
    frameDocument,
    hostFrame,
    frameOffset,
    frameClip,
    isDisplayed,
    isVisible,
    hidesOwnText,
    clipping,
    intersectsViewport,
    center,
    isSecretField,
  };
})(globalThis);
