// A tiny DOM stand-in with just what the content mechanisms read: tags, attributes,
// children, text, boxes and computed style. Enough to test them without a browser.
import { readFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { EXTENSION_DIR } from "./paths.mjs";

// Sibling links, set as nodes are appended (the real DOM's firstChild/nextSibling walk).
function link(parent, node) {
  const prev = parent.childNodes[parent.childNodes.length - 1] || null;
  node.previousSibling = prev;
  node.nextSibling = null;
  if (prev) prev.nextSibling = node;
  if (node.nodeType !== 1) return;
  const prevElement = parent.childNodes.findLast((n) => n.nodeType === 1) || null;
  node.previousElementSibling = prevElement;
  node.nextElementSibling = null;
  if (prevElement) prevElement.nextElementSibling = node;
}

// firstChild/lastChild and their element variants for anything with childNodes.
const CHILD_LINKS = {
  firstChild: { get() { return this.childNodes[0] || null; } },
  lastChild: { get() { return this.childNodes[this.childNodes.length - 1] || null; } },
  firstElementChild: { get() { return this.childNodes.find((n) => n.nodeType === 1) || null; } },
  lastElementChild: { get() { return this.childNodes.findLast((n) => n.nodeType === 1) || null; } },
};

export class FakeText {
  constructor(text) {
    this.nodeType = 3;
    this.nodeValue = text;
  }
  get textContent() {
    return this.nodeValue;
  }
}

export class FakeElement {
  constructor(tag, attrs = {}, children = []) {
    this.nodeType = 1;
    this.tagName = tag.toUpperCase();
    this.attrs = {};
    this.box = { left: 0, top: 0, width: 100, height: 20 };
    this.style = { display: "block", visibility: "visible" };
    this.childNodes = [];
    this.parentElement = null;
    this.isConnected = true;
    this.events = [];
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "box") this.box = { ...this.box, ...v };
      else if (k === "style") this.style = { ...this.style, ...v };
      else if (k === "props") Object.assign(this, v);
      else this.attrs[k] = String(v);
    }
    for (const c of children) this.append(c);
  }
  append(child) {
    const node = typeof child === "string" ? new FakeText(child) : child;
    if (node.nodeType === 1) node.parentElement = this;
    link(this, node);
    this.childNodes.push(node);
  }
  get children() {
    return this.childNodes.filter((n) => n.nodeType === 1);
  }
  get textContent() {
    return this.childNodes.map((n) => n.textContent).join("");
  }
  set textContent(value) {
    this.childNodes = [];
    this.append(String(value));
  }
  get id() {
    return this.attrs.id || "";
  }
  getAttribute(name) {
    return name in this.attrs ? this.attrs[name] : null;
  }
  hasAttribute(name) {
    return name in this.attrs;
  }
  getBoundingClientRect() {
    // Under display:none nothing is laid out: no box, as in a browser.
    for (let el = this.parentElement; el; el = el.parentElement) {
      if (el.style.display === "none") return { left: 0, top: 0, width: 0, height: 0, x: 0, y: 0 };
    }
    const b = this.box;
    return { left: b.left, top: b.top, width: b.width, height: b.height, x: b.left, y: b.top };
  }
  dispatchEvent(event) {
    this.events.push(event.type);
    return true;
  }
  scrollIntoView(options) {
    this.scrolled = options;
  }
  focus() {
    this.focused = true;
  }
  matches(selector) {
    return matches(this, selector);
  }
  querySelectorAll(selector) {
    return [...this.walk()].filter((e) => e !== this && matches(e, selector));
  }
  *walk() {
    yield this;
    for (const c of this.children) yield* c.walk();
  }
}

Object.defineProperties(FakeElement.prototype, CHILD_LINKS);

// An <input>/<textarea> whose value lives behind a prototype accessor, like the real thing.
export class FakeInput extends FakeElement {
  constructor(tag, attrs = {}) {
    super(tag, attrs);
    this._value = attrs.value ?? "";
    this.checked = false;
    this.disabled = false;
    this.readOnly = false;
  }
  get value() {
    return this._value;
  }
  set value(v) {
    this._value = String(v);
  }
  click() {
    const type = (this.attrs.type || "").toLowerCase();
    if (type === "checkbox") this.checked = !this.checked;
    if (type === "radio") this.checked = true;
    this.events.push("click", "input", "change");
  }
}

export class FakeSelect extends FakeElement {
  constructor(attrs, options) {
    super("select", attrs, options.map(([value, text]) => new FakeElement("option", { value }, [text])));
    this.selectedIndex = 0;
    for (const o of this.options) o.value = o.attrs.value;
  }
  get options() {
    return this.children;
  }
  get selectedOptions() {
    return [this.options[this.selectedIndex]].filter(Boolean);
  }
}
// Options report selection through their select.
Object.defineProperty(FakeElement.prototype, "selected", {
  get() {
    const sel = this.parentElement;
    return !!sel && sel instanceof FakeSelect && sel.options[sel.selectedIndex] === this;
  },
});

export function h(tag, attrs = {}, ...children) {
  return new FakeElement(tag, attrs, children);
}

function matches(el, selector) {
  if (selector === "*") return true;
  if (selector.includes(",")) return selector.split(",").some((part) => matches(el, part.trim()));
  let m;
  if ((m = /^\[([\w-]+)='([^']*)'\]$/.exec(selector))) return el.attrs[m[1]] === m[2];
  if ((m = /^#([\w-]+)$/.exec(selector))) return el.id === m[1];
  if ((m = /^\.([\w-]+)$/.exec(selector))) return (el.attrs.class || "").split(/\s+/).includes(m[1]);
  if ((m = /^\[([\w-]+)="([^"]*)"\]$/.exec(selector))) return el.attrs[m[1]] === m[2];
  return el.tagName === selector.toUpperCase();
}

// Gives `host` an open shadow root holding `children`. A <slot> in it shows the host's light
// children (every slot is the default one here).
export function attachShadow(host, ...children) {
  const root = {
    nodeType: 11,
    host,
    childNodes: [],
    get children() {
      return this.childNodes.filter((n) => n.nodeType === 1);
    },
    *walk() {
      for (const c of this.children) yield* c.walk();
    },
    querySelectorAll(selector) {
      return [...this.walk()].filter((e) => matches(e, selector));
    },
  };
  Object.defineProperties(root, CHILD_LINKS);
  for (const child of children) {
    const node = typeof child === "string" ? new FakeText(child) : child;
    if (node.nodeType === 1) node.parentNode = root;
    link(root, node);
    root.childNodes.push(node);
  }
  for (const el of root.walk()) {
    if (el.tagName === "SLOT") el.assignedNodes = () => host.childNodes;
  }
  host.shadowRoot = root;
  return root;
}

// Elements of a tree and of the open shadow roots in it.
function* composedWalk(root) {
  for (const el of root.walk()) {
    yield el;
    if (el.shadowRoot) yield* composedWalk(el.shadowRoot);
  }
}

export function fakeDocument(body, { title = "T", href = "http://x.test/" } = {}) {
  const doc = {
    body,
    documentElement: body,
    title,
    location: { href },
    getElementById: (id) => [...body.walk()].find((e) => e.id === id) || null,
    querySelectorAll: (selector) => [...body.walk()].filter((e) => matches(e, selector)),
  };
  for (const el of composedWalk(body)) el.ownerDocument = doc;
  return doc;
}

export function fakeEnv({ width = 800, height = 600 } = {}) {
  return {
    innerWidth: width,
    innerHeight: height,
    getComputedStyle: (el) => el.style,
    Event: class {
      constructor(type, init) {
        this.type = type;
        Object.assign(this, init);
      }
    },
  };
}

// Loads the content-script files (classic scripts) into a fresh global and returns
// its GhostlightPage namespace, in the manifest's order. `globals` replaces some of what the
// scripts see (a clock, timers).
export function loadPageScripts(globals = {}) {
  const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, "manifest.json"), "utf8"));
  const files = manifest.content_scripts[0].js.filter((f) => f.startsWith("page/"));
  const context = vm.createContext({ WeakRef, URL, console, setTimeout, clearTimeout, ...globals });
  for (const file of files) {
    vm.runInContext(readFileSync(path.join(EXTENSION_DIR, file), "utf8"), context, { filename: file });
  }
  return context.GhostlightPage;
}

// What the page mechanisms take as `ctx`: a viewport, a ref registry, and the frame documents
// they were asked to watch.
export function pageContext(page) {
  const watched = [];
  return { env: fakeEnv(), refs: page.refs.createRefRegistry({ now: () => 0 }), watchDocument: (d) => watched.push(d), watched };
}

// A fake window for a document: computed styles and the frame element hosting it.
export function windowFor(doc, frameElement = null) {
  doc.defaultView = { frameElement, getComputedStyle: (el) => el.style };
  return doc;
}
