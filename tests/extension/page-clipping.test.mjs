// Clipping by ancestors and what a click by ref would hit: an element scrolled out of its
// scroll container is visible but out of view (and find says it is clipped, not covered), one
// cut away by a box the user cannot scroll is not visible at all; find and wait_for count the
// cross-origin frames they could not search.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { fakeDocument, fakeEnv, h, loadPageScripts, pageContext, windowFor } from "./helpers/fake-dom.mjs";

const page = loadPageScripts();
const { dom, find, wait } = page;

// A 100 px high scroll box at (20, 90) holding 400 px of content: its button sits 200 px
// down, inside the viewport but below what the box shows.
function scrollBox({ overflow = "auto", height = 100, buttonStyle = {}, between = null } = {}) {
  const button = h("button", { box: { left: 22, top: 292, width: 100, height: 20 }, style: buttonStyle }, "Deep Button");
  const inner = between ? (between.append(button), between) : button;
  const box = h(
    "div",
    {
      id: "box",
      box: { left: 20, top: 90, width: 304, height: height + 4 },
      style: { overflowX: overflow, overflowY: overflow },
      props: { clientLeft: 2, clientTop: 2, clientWidth: 300, clientHeight: height, scrollWidth: 300, scrollHeight: 400 },
    },
    inner,
  );
  const body = h("body", { box: { left: 0, top: 0, width: 800, height: 2000 }, style: { overflowY: "auto" } }, box);
  const doc = fakeDocument(body);
  return { doc, box, button, inner };
}

describe("clipping by ancestors", () => {
  test("scrolled out of a scroll container: visible, out of view, its centre cut away", () => {
    const { button, box } = scrollBox();
    const env = fakeEnv();
    assert.equal(dom.isVisible(button, env), true);
    const clip = dom.clipping(button, env);
    assert.deepEqual({ ...clip.region }, { x: 22, y: 92, width: 300, height: 100 });
    assert.equal(clip.hidden, false);
    assert.equal(clip.centreBy.el, box);
    assert.equal(clip.centreBy.scrolls, true);
    assert.equal(dom.intersectsViewport(dom.rectOf(button), env, clip.region), false);
    assert.equal(dom.intersectsViewport(dom.rectOf(button), env), true); // the viewport alone says yes
  });

  test("scrolled into the box: nothing cuts it", () => {
    const { button } = scrollBox();
    button.box = { ...button.box, top: 120 };
    const clip = dom.clipping(button, fakeEnv());
    assert.equal(clip.centreBy, null);
    assert.equal(clip.hidden, false);
  });

  test("outside an overflow:hidden box, or in a collapsed one, it is not visible", () => {
    const env = fakeEnv();
    assert.equal(dom.isVisible(scrollBox({ overflow: "hidden" }).button, env), false);
    const collapsed = scrollBox({ overflow: "hidden", height: 0 });
    collapsed.button.box = { ...collapsed.button.box, top: 92 };
    assert.equal(dom.isVisible(collapsed.button, env), false);
    // A scroll box whose content fits cannot be scrolled: what lies outside it stays hidden.
    const { button, box } = scrollBox();
    box.scrollHeight = 100;
    assert.equal(dom.clipping(button, env).hidden, true);
  });

  test("positioned elements escape the boxes that do not hold their containing block", () => {
    const env = fakeEnv();
    const fixed = scrollBox({ overflow: "hidden", buttonStyle: { position: "fixed" } });
    assert.equal(dom.isVisible(fixed.button, env), true);
    assert.equal(dom.clipping(fixed.button, env).region, null);
    // position:absolute escapes a static overflow box, not a positioned one.
    const wrap = () => h("div", { box: { left: 22, top: 92, width: 10, height: 10 } });
    const escapes = scrollBox({ overflow: "hidden", buttonStyle: { position: "absolute" }, between: wrap() });
    assert.equal(dom.isVisible(escapes.button, env), true);
    const held = scrollBox({ overflow: "hidden", buttonStyle: { position: "absolute" }, between: wrap() });
    held.box.style = { ...held.box.style, position: "relative" };
    assert.equal(dom.isVisible(held.button, env), false);
    // A transformed box holds even a fixed element's block.
    const transformed = scrollBox({ overflow: "hidden", buttonStyle: { position: "fixed" } });
    transformed.box.style = { ...transformed.box.style, transform: "matrix(1, 0, 0, 1, 0, 0)" };
    assert.equal(dom.isVisible(transformed.button, env), false);
  });

  test("inline and display:contents ancestors clip nothing; <body> is the viewport's", () => {
    const env = fakeEnv();
    for (const display of ["inline", "contents"]) {
      const boxless = scrollBox();
      boxless.box.style = { ...boxless.box.style, display };
      assert.equal(dom.clipping(boxless.button, env).region, null, display);
    }
    const { button, doc } = scrollBox();
    assert.ok(doc.body.style.overflowY === "auto" && dom.clipping(button, env).region.height === 100);
  });

  test("inside a frame, the frame's box and the boxes around the frame clip too", () => {
    const field = h("button", { box: { left: 10, top: 300, width: 80, height: 20 } }, "Far down");
    const innerBody = h("body", { box: { left: 0, top: 0, width: 300, height: 600 } }, field);
    const frame = h("iframe", {
      box: { left: 100, top: 50, width: 300, height: 150 },
      props: { clientLeft: 0, clientTop: 0, clientWidth: 300, clientHeight: 150 },
    });
    const holder = h(
      "div",
      { style: { overflowX: "hidden", overflowY: "hidden" }, box: { left: 0, top: 0, width: 250, height: 400 }, props: { clientWidth: 250, clientHeight: 400 } },
      frame,
    );
    windowFor(fakeDocument(h("body", {}, holder)));
    const innerDoc = windowFor(fakeDocument(innerBody), frame);
    frame.contentDocument = innerDoc;
    const clip = dom.clipping(field, fakeEnv());
    assert.deepEqual({ ...clip.region }, { x: 100, y: 50, width: 150, height: 150 });
    assert.equal(clip.centreBy.el, frame); // scrolled out of the frame: the frame scrolls
    assert.equal(dom.isVisible(field, fakeEnv()), true);
  });
});

describe("find and the hit test", () => {
  test("a clipped result says clipped by its container, never covered by it", () => {
    const { doc, box, button } = scrollBox();
    doc.elementFromPoint = () => box; // what the browser hits at the button's centre
    const out = find.findText(doc, { query: "Deep Button" }, pageContext(page));
    const [result] = out.results;
    assert.equal(result.inViewport, false);
    assert.deepEqual({ ...result.clippedBy }, { role: "div", name: "", scrolls: true });
    assert.equal(result.coveredBy, undefined);
    assert.equal(find.hitTest(button, result).reaches, false);
  });

  test("a click reaching a label of the element, or its frame's document, reaches it", () => {
    const input = h("input", { id: "agree", type: "checkbox" });
    const fake = h("span", {}, "I agree");
    const label = h("label", {}, fake);
    label.control = input;
    const other = h("button", {}, "Other");
    const doc = fakeDocument(h("body", {}, input, label, other));
    fake.parentNode = label; // the fake DOM links parents as parentElement only
    label.parentNode = doc.body;
    doc.elementFromPoint = () => fake;
    assert.equal(find.hitTest(input, { x: 5, y: 5 }).reaches, true);
    assert.equal(find.hitTest(other, { x: 5, y: 5 }).reaches, false);

    const frame = h("iframe", { box: { left: 0, top: 0, width: 300, height: 150 } });
    const innerBody = h("body", {}, h("p", {}, "inside"));
    const top = windowFor(fakeDocument(h("body", {}, frame)));
    const innerDoc = windowFor(fakeDocument(innerBody), frame);
    innerDoc.nodeType = 9;
    innerBody.parentNode = innerDoc;
    frame.contentDocument = innerDoc;
    top.elementFromPoint = () => frame;
    innerDoc.elementFromPoint = () => innerBody.children[0];
    innerBody.children[0].parentNode = innerBody;
    assert.equal(find.hitTest(frame, { x: 50, y: 50 }).reaches, true);
  });
});

describe("cross-origin frames left unsearched", () => {
  function framedPage() {
    const cross = h("iframe", { src: "https://other.test/pay?x=1", box: { left: 0, top: 0, width: 300, height: 150 } });
    const hidden = h("iframe", { src: "https://ads.test/", style: { display: "none" } });
    const body = h("body", {}, h("p", {}, "Top text"), cross, hidden);
    const doc = windowFor(fakeDocument(body, { href: "http://x.test/" }));
    doc.baseURI = "http://x.test/";
    for (const frame of [cross, hidden]) frame.contentDocument = null;
    return doc;
  }

  test("find counts the shown ones and says what to do", () => {
    const out = find.findText(framedPage(), { query: "Payment form" }, pageContext(page));
    assert.equal(out.total, 0);
    assert.deepEqual(JSON.parse(JSON.stringify(out.opaqueFrames)), { count: 1, origins: ["https://other.test"] });
    assert.equal(
      out.note,
      "[1 cross-origin frame(s) not searched: their contents cannot be read from this page; use a screenshot and coordinates inside them]",
    );
    const none = find.findText(fakeDocument(h("body", {}, h("p", {}, "Top text"))), { query: "Top" }, pageContext(page));
    assert.equal(none.opaqueFrames, undefined);
    assert.equal(none.note, undefined);
  });

  test("wait_for's observation names them, for text and for a selector", () => {
    const ctx = pageContext(page);
    const byText = wait.probe(framedPage(), { text: "Payment form" }, ctx);
    assert.equal(byText.count, 0);
    assert.deepEqual(JSON.parse(JSON.stringify(byText.opaqueFrames)), { count: 1, origins: ["https://other.test"] });
    const bySelector = wait.probe(framedPage(), { selector: "#pay" }, ctx);
    assert.equal(bySelector.opaqueFrames.count, 1);
    const both = wait.probe(framedPage(), { selector: "p", text: "Top text" }, ctx);
    assert.equal(both.opaqueFrames.count, 1); // met twice, counted once
  });
});

describe("a pointer target is looked at once it stops moving", () => {
  const { find: finder } = loadPageScripts();
  const plain = (value) => JSON.parse(JSON.stringify(value));
  // Frames run at once; each one moves the element by `step` px until `frames` have passed.
  function sliding(el, { step, frames }) {
    let drawn = 0;
    let clock = 0;
    return {
      frame: (callback) => {
        drawn += 1;
        clock += 16;
        if (drawn <= frames) el.box = { ...el.box, top: el.box.top + step };
        setTimeout(callback, 0);
      },
      now: () => clock,
      drawn: () => drawn,
    };
  }

  test("a target that slides into place is waited for, then measured at rest", async () => {
    const button = h("button", { box: { left: 10, top: 100, width: 80, height: 20 } }, "Buy now");
    fakeDocument(h("body", {}, button));
    const motion = sliding(button, { step: 40, frames: 10 });
    assert.deepEqual(plain(await finder.restingBox(button, motion)), { stable: true });
    assert.equal(button.box.top, 500);
    assert.equal(motion.drawn(), 11); // ten moves, then one frame that found it still
  });

  test("one that never stops is reported, unless its centre stays inside it (a pulse)", async () => {
    const runner = h("button", { box: { left: 10, top: 100, width: 80, height: 20 } }, "Away");
    fakeDocument(h("body", {}, runner));
    const away = await finder.restingBox(runner, sliding(runner, { step: 30, frames: Infinity }));
    assert.deepEqual(plain(away), { stable: false, steady: false });
    const pulse = h("button", { box: { left: 10, top: 100, width: 80, height: 40 } }, "Pulse");
    fakeDocument(h("body", {}, pulse));
    let clock = 0;
    let grow = false;
    const breathing = {
      frame: (callback) => {
        clock += 16;
        grow = !grow;
        pulse.box = { ...pulse.box, width: grow ? 84 : 80 };
        setTimeout(callback, 0);
      },
      now: () => clock,
    };
    assert.deepEqual(plain(await finder.restingBox(pulse, breathing)), { stable: false, steady: true });
  });
});
