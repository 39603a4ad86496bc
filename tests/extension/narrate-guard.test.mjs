// narrate's caption guard (page/narrate.js) against a page that takes the caption out, alters it
// or raises its own element over it, in a small fake of the DOM parts it touches: the top layer,
// hit-testing at a point, attributes and mutation records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPageScripts } from "./helpers/fake-dom.mjs";

const BAR = { left: 100, right: 300, top: 560, bottom: 590, width: 200, height: 30 };

function fakeWorld() {
  const observers = [];
  const top = []; // the top layer, bottom first
  const notify = (target, type) => {
    for (const observer of observers) {
      if (observer.targets.includes(target)) queueMicrotask(() => observer.live && observer.callback([{ type, target }]));
    }
  };
  class FakeMutationObserver {
    constructor(callback) {
      Object.assign(this, { callback, targets: [], live: true });
      observers.push(this);
    }
    observe(target) {
      this.live = true;
      if (!this.targets.includes(target)) this.targets.push(target);
    }
    disconnect() {
      this.targets = [];
      this.live = false;
    }
  }
  class El {
    constructor(doc, tag) {
      Object.assign(this, { ownerDocument: doc, localName: tag, nodeName: tag.toUpperCase(), parentNode: null, childNodes: [] });
      this.attrMap = new Map();
      this.open = false;
      this.rect = { left: 0, right: 0, top: 0, bottom: 0, width: 0, height: 0 };
      this.pointerEvents = "auto";
      this.className = "";
    }
    get attributes() {
      return [...this.attrMap].map(([name, value]) => ({ name, value }));
    }
    getAttribute(name) {
      return this.attrMap.has(name) ? this.attrMap.get(name) : null;
    }
    setAttribute(name, value) {
      this.attrMap.set(name, String(value));
      if (name === "popover" && value !== "manual") this.hidePopover();
      notify(this, "attributes");
    }
    removeAttribute(name) {
      this.attrMap.delete(name);
      notify(this, "attributes");
    }
    get isConnected() {
      let node = this;
      while (node.parentNode) node = node.parentNode;
      return node === world.doc;
    }
    appendChild(child) {
      child.remove();
      child.parentNode = this;
      child.ownerDocument = this.ownerDocument || this;
      this.childNodes.push(child);
      notify(this, "childList");
      return child;
    }
    append(...children) {
      for (const child of children) this.appendChild(child);
    }
    remove() {
      const parent = this.parentNode;
      if (!parent) return;
      parent.childNodes.splice(parent.childNodes.indexOf(this), 1);
      this.parentNode = null;
      if (this.open) this.hidePopover();
      notify(parent, "childList");
    }
    attachShadow() {
      this.shadow = new El(this.ownerDocument, "#shadow-root");
      return this.shadow;
    }
    matches(selector) {
      if (selector === ":popover-open") return this.open;
      throw new Error(`unexpected selector ${selector}`);
    }
    showPopover() {
      if (!this.isConnected || this.getAttribute("popover") === null) throw new Error("InvalidStateError");
      if (this.open) return;
      this.open = true;
      top.push(this);
    }
    hidePopover() {
      if (!this.open) return;
      this.open = false;
      top.splice(top.indexOf(this), 1);
    }
    getBoundingClientRect() {
      return this.className === "bar" ? BAR : this.rect;
    }
  }
  const doc = new El(null, "#document");
  doc.documentElement = doc.appendChild(new El(doc, "html"));
  doc.createElement = (tag) => new El(doc, tag);
  doc.implementation = {
    createHTMLDocument: () => {
      const scratch = new El(null, "#document");
      scratch.createElement = (tag) => new El(scratch, tag);
      return scratch;
    },
  };
  doc.querySelectorAll = (selector) => {
    assert.match(selector, /:popover-open/);
    return [...top];
  };
  const inside = (rect, x, y) => rect.left <= x && x < rect.right && rect.top <= y && y < rect.bottom;
  // The topmost element at a point that hit-testing sees: an element taking no clicks is
  // passed over, and so is the caption, unless its probe rule is in its shadow root.
  doc.elementFromPoint = (x, y) => {
    for (const el of [...top].reverse()) {
      if (el.localName === "ghostlight-narration") {
        if (el.shadow.childNodes.some((node) => node.textContent && node.textContent.includes("pointer-events: auto"))) return el;
      } else if (el.pointerEvents !== "none" && inside(el.rect, x, y)) {
        return el;
      }
    }
    return doc.documentElement;
  };
  const listeners = [];
  const world = {
    doc,
    top,
    listeners,
    page: loadPageScripts({
      MutationObserver: FakeMutationObserver,
      performance: { now: () => Date.now() },
      addEventListener: (type, fn) => listeners.push({ type, fn }),
      removeEventListener: (type, fn) => listeners.splice(listeners.findIndex((l) => l.fn === fn), 1),
      queueMicrotask,
    }),
    env: { innerWidth: 800, innerHeight: 600, getComputedStyle: () => ({ display: "block", visibility: "visible", opacity: "1" }) },
    caption: () => doc.documentElement.childNodes.find((el) => el.localName === "ghostlight-narration") || null,
    // The page raises an element of its own into the top layer (a popover opening).
    raise(el) {
      for (const { type, fn } of listeners) if (type === "beforetoggle") fn({ target: el, newState: "open" });
      el.showPopover();
    },
    El,
  };
  return world;
}

const plain = (value) => JSON.parse(JSON.stringify(value));

test("an untouched caption is drawn in the top layer and reported intact", async () => {
  const world = fakeWorld();
  const seen = await world.page.narrate.show(world.doc, { text: "Reading", durationMs: 1000 }, world.env);
  assert.deepEqual(plain({ ...seen, watchedMs: undefined }), { shown: true, position: "bottom", durationMs: 1000, replaced: false, removed: 0, covered: 0 });
  assert.ok(seen.watchedMs >= 400 && seen.watchedMs <= 500, `watched ${seen.watchedMs} ms`);
  const caption = world.caption();
  assert.deepEqual(world.top, [caption]);
  assert.deepEqual(caption.attributes.map((a) => a.name).sort(), ["aria-hidden", "popover"]);
  world.page.narrate.hide();
  assert.equal(world.caption(), null);
  assert.deepEqual(world.top, []);
});

test("a caption the page takes out or alters is put back, and each time is counted", async () => {
  const world = fakeWorld();
  const showing = world.page.narrate.show(world.doc, { text: "Reading", durationMs: 1000 }, world.env);
  await new Promise((resolve) => setTimeout(resolve, 60));
  world.caption().remove();
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.ok(world.caption(), "put back");
  world.caption().setAttribute("style", "display: none");
  await new Promise((resolve) => setTimeout(resolve, 60));
  const seen = await showing;
  assert.equal(seen.removed, 2);
  assert.equal(seen.covered, 0);
  assert.equal(world.caption().getAttribute("style"), null);
  assert.deepEqual(world.top, [world.caption()]);
  world.page.narrate.hide();
});

test("a page element raised into the top layer over the caption is counted, even one taking no clicks", async () => {
  for (const pointerEvents of ["auto", "none"]) {
    const world = fakeWorld();
    const showing = world.page.narrate.show(world.doc, { text: "Reading", durationMs: 1000 }, world.env);
    const fake = world.doc.documentElement.appendChild(new world.El(world.doc, "div"));
    fake.setAttribute("popover", "manual");
    fake.rect = { left: 0, right: 800, top: 0, bottom: 600, width: 800, height: 600 };
    fake.pointerEvents = pointerEvents;
    world.raise(fake);
    const seen = await showing;
    assert.equal(seen.covered, 1, pointerEvents);
    assert.equal(seen.removed, 0, pointerEvents);
    assert.equal(world.top.at(-1), world.caption(), "raised above it again");
    world.page.narrate.hide();
  }
});

test("a page element already in the top layer before the caption is under it, not over it", async () => {
  const world = fakeWorld();
  const toast = world.doc.documentElement.appendChild(new world.El(world.doc, "div"));
  toast.setAttribute("popover", "manual");
  toast.rect = { left: 0, right: 800, top: 500, bottom: 600, width: 800, height: 100 };
  world.raise(toast);
  const seen = await world.page.narrate.show(world.doc, { text: "Reading", durationMs: 1000 }, world.env);
  assert.equal(seen.covered, 0);
  assert.equal(world.top.at(-1), world.caption());
  world.page.narrate.hide();
});

test("a caption's words are one CSS string that no text can end", () => {
  const { narrate } = loadPageScripts();
  assert.equal(narrate.cssString("Pay 42 now"), '"Pay 42 now"');
  assert.equal(narrate.cssString('a"b\\c'), '"a\\22 b\\5c c"');
  assert.equal(narrate.cssString("}\n</style>"), '"\\7d \\a \\3c \\2f style\\3e "');
  assert.equal(narrate.isOwnMutation({ type: "attributes", target: { nodeName: "GHOSTLIGHT-NARRATION" } }), true);
  assert.equal(narrate.isOwnMutation({ type: "attributes", target: { nodeName: "DIV" } }), false);
});
