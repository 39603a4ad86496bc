// record_actions: an element described so that it can be found again in another tab (its role
// and accessible name, its label, its visible text, a short CSS path as a last resort, and the
// frames that hold it), read at the moment of an action while its ref still resolves; and what
// the page shows after the action (address, title, a heading or status), for assertions.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.locator) return;
  const dom = ns.dom;

  const TEXT_MAX = 80;
  const CSS_DEPTH = 5;
  const FRAME_DEPTH = 8;
  const FIELD_TAGS = new Set(["INPUT", "TEXTAREA", "SELECT"]);

  function escapeIdent(value) {
    if (root.CSS && typeof root.CSS.escape === "function") return root.CSS.escape(value);
    return String(value).replace(/[^A-Za-z0-9_-]/g, (c) => `\\${c}`);
  }

  function uniqueId(el) {
    const id = dom.attr(el, "id");
    const doc = el.ownerDocument;
    if (!id || !doc || typeof doc.querySelectorAll !== "function") return "";
    const selector = `#${escapeIdent(id)}`;
    try {
      return doc.querySelectorAll(selector).length === 1 ? selector : "";
    } catch {
      return "";
    }
  }

  // A short CSS path within the element's own document: up to a unique id, else a few
  // tag:nth-of-type steps. Brittle by nature, so only the last resort of a locator.
  function cssPath(el) {
    const parts = [];
    let node = el;
    for (let depth = 0; node && node.nodeType === 1 && depth < CSS_DEPTH; depth++) {
      const id = uniqueId(node);
      if (id) {
        parts.unshift(id);
        break;
      }
      const tag = dom.tagOf(node).toLowerCase();
      const parent = node.parentElement;
      if (!parent) {
        parts.unshift(tag);
        break;
      }
      const same = [...parent.children].filter((c) => c.tagName === node.tagName);
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(node) + 1})` : tag);
      node = parent;
    }
    return parts.join(" > ");
  }

  // The frames between the top document and the element's, outermost first, each by its path.
  function framePath(el) {
    const out = [];
    let doc = el.ownerDocument;
    for (let hops = 0; doc && hops < FRAME_DEPTH; hops++) {
      const view = doc.defaultView;
      let host = null;
      try {
        host = view && view.frameElement;
      } catch {
        host = null;
      }
      if (!host) break;
      out.unshift(cssPath(host));
      doc = host.ownerDocument;
    }
    return out;
  }

  function labelOf(el) {
    const labels = dom.labelsOf(el).map((label) => dom.labelText(label)).filter(Boolean);
    return dom.clip(dom.collapse(labels.join(" ")), TEXT_MAX * 2);
  }

  // How to find `el` again: never its value, and a secret field says only that it is one.
  function describe(el) {
    const tag = dom.tagOf(el);
    const out = {
      role: dom.roleOf(el),
      name: dom.clip(dom.accessibleName(el), TEXT_MAX * 2),
      label: FIELD_TAGS.has(tag) ? labelOf(el) : "",
      text: FIELD_TAGS.has(tag) ? "" : dom.clip(dom.textOf(el), TEXT_MAX),
      css: cssPath(el),
      frames: framePath(el),
      tag: tag.toLowerCase(),
      type: dom.attr(el, "type").toLowerCase(),
      secret: dom.isSecretField(el),
    };
    const type = out.type;
    if (tag === "INPUT" && (type === "checkbox" || type === "radio")) out.checked = !!el.checked;
    const aria = dom.ariaChecked(el);
    if (aria !== null) out.checked = aria;
    return out;
  }

  const SHOWN_SELECTOR = '[role="alert"], [role="status"], h1, h2';

  // What the page shows now: where it is, its title, and its first visible status or heading.
  function pageState(doc, env) {
    const out = { url: root.location.href, title: doc.title };
    for (const el of doc.querySelectorAll(SHOWN_SELECTOR)) {
      const text = dom.clip(dom.textOf(el), TEXT_MAX);
      if (!text || !dom.isVisible(el, env)) continue;
      const role = dom.roleOf(el);
      out.shown = { role: role === "heading" ? "heading" : "text", text };
      break;
    }
    return out;
  }

  ns.locator = { cssPath, framePath, describe, pageState };
})(globalThis);
