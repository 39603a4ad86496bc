// Same-origin frames in the content mechanisms: read_page and find_text descend into a
// readable frame document, boxes are in the top viewport's px, cross-origin frames stay
// opaque, and refs into a frame go stale when the frame's document dies.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FakeInput, fakeDocument, fakeEnv, h, loadPageScripts, pageContext, windowFor } from "./helpers/fake-dom.mjs";

const page = loadPageScripts();
const { dom, find, tree } = page;

const context = () => pageContext(page);

// Top page: a heading, then an iframe at (100, 200) with a 2 px border whose document holds
// a field near its top and a button far below its 150 px high content box.
function framedPage({ readable = true } = {}) {
  const field = new FakeInput("input", { id: "inner", type: "text", "aria-label": "Inner field", box: { left: 10, top: 20, width: 80, height: 20 } });
  const below = h("button", { box: { left: 10, top: 300, width: 80, height: 20 } }, "Below the fold");
  const innerBody = h("body", { box: { left: 0, top: 0, width: 300, height: 600 } }, h("h2", {}, "Inside"), field, below);
  const frame = h("iframe", {
    title: "Payment",
    src: readable ? "/inner" : "https://other.test/pay",
    box: { left: 100, top: 200, width: 304, height: 154 },
    props: { clientLeft: 2, clientTop: 2, clientWidth: 300, clientHeight: 150 },
  });
  const body = h("body", {}, h("h1", {}, "Top"), frame);
  const doc = windowFor(fakeDocument(body));
  const innerDoc = windowFor(fakeDocument(innerBody), frame);
  frame.contentDocument = readable ? innerDoc : null;
  return { doc, innerDoc, frame, field, below };
}

describe("same-origin frames", () => {
  test("frame geometry: offset, clip and viewport test", () => {
    const { field, below, frame } = framedPage();
    assert.equal(dom.isFrame(frame), true);
    assert.deepEqual({ ...dom.frameOffset(field) }, { x: 102, y: 202 });
    assert.deepEqual({ ...dom.rectOf(field) }, { x: 112, y: 222, width: 80, height: 20 });
    const clip = dom.frameClip(field);
    assert.deepEqual({ ...clip }, { x: 102, y: 202, width: 300, height: 150 });
    const env = fakeEnv();
    assert.equal(dom.intersectsViewport(dom.rectOf(field), env, clip), true);
    // Inside the top viewport, but scrolled out of the frame's visible box.
    assert.equal(dom.intersectsViewport(dom.rectOf(below), env, clip), false);
    assert.equal(dom.intersectsViewport(dom.rectOf(below), env), true);
    assert.equal(dom.frameClip(frame), null);
  });

  test("read_page descends into a readable frame and its refs resolve there", () => {
    const { doc, innerDoc, field } = framedPage();
    const ctx = context();
    const out = tree.readPage(doc, {}, ctx);
    assert.equal(
      out.text,
      [
        'heading "Top" [ref_1] level=1',
        'iframe "Payment" [ref_2] src="/inner"',
        ' heading "Inside" [ref_3] level=2',
        ' textbox "Inner field" [ref_4] type="text"',
        ' button "Below the fold" [ref_5]',
        "Viewport: 800x600",
      ].join("\n"),
    );
    assert.equal(ctx.refs.resolve("ref_4"), field);
    assert.deepEqual(ctx.watched, [innerDoc]);
    const interactive = tree.readPage(doc, { filter: "interactive" }, ctx);
    assert.match(interactive.text, /^iframe "Payment" \[ref_2\] src="\/inner"\n textbox "Inner field" \[ref_4\]/);
    assert.ok(!interactive.text.includes("Below the fold"), interactive.text);
    const sub = tree.readPage(doc, { ref_id: "ref_2" }, ctx);
    assert.match(sub.text, /^iframe "Payment" \[ref_2\] src="\/inner"\n heading "Inside"/);
  });

  test("a cross-origin frame stays opaque and says so", () => {
    const { doc } = framedPage({ readable: false });
    const out = tree.readPage(doc, {}, context());
    assert.match(out.text, /iframe "Payment" \[ref_2\] src="https:\/\/other.test\/pay" \(cross-origin: contents not readable\)/);
    assert.match(out.text, /\[1 cross-origin frame\(s\) shown as opaque/);
    assert.ok(!out.text.includes("Inner field"));
    const found = find.findText(doc, { query: "Inner field" }, context());
    assert.equal(found.total, 0);
  });

  test("page_text adds a readable frame's text under its name; a cross-origin one is counted", () => {
    const { doc } = framedPage();
    const out = page.text.pageText(doc, {});
    assert.equal(out.frames, 1);
    assert.match(out.text, /^Top\n\n\[Frame "Payment"\]\nInside/);
    assert.match(out.text, /Below the fold$/);
    assert.equal(out.note, undefined);
    const opaque = page.text.pageText(framedPage({ readable: false }).doc, {});
    assert.equal(opaque.frames, undefined);
    assert.equal(opaque.text, "Top");
    assert.match(opaque.note, /^\[1 cross-origin frame\(s\) not read/);
  });

  test("find_text reaches into the frame with top-viewport centres", () => {
    const { doc, field } = framedPage();
    const ctx = context();
    const out = find.findText(doc, { query: "inner field" }, ctx);
    assert.equal(out.results[0].name, "Inner field");
    assert.deepEqual({ x: out.results[0].x, y: out.results[0].y }, { x: 152, y: 232 });
    assert.equal(out.results[0].inViewport, true);
    assert.equal(ctx.refs.resolve(out.results[0].ref), field);
    const below = find.findText(doc, { query: "Below the fold" }, ctx);
    assert.equal(below.results[0].inViewport, false); // clipped by the frame: scroll first
  });

  test("elementAtPoint maps a top-viewport point into the frame", () => {
    const { doc, innerDoc, frame, field } = framedPage();
    const calls = [];
    doc.elementFromPoint = (x, y) => (calls.push(["top", x, y]), frame);
    innerDoc.elementFromPoint = (x, y) => (calls.push(["inner", x, y]), field);
    assert.equal(find.elementAtPoint(doc, 150, 230), field);
    assert.deepEqual(calls, [["top", 150, 230], ["inner", 48, 28]]);
    innerDoc.elementFromPoint = () => null;
    assert.equal(find.elementAtPoint(doc, 150, 230), frame);
  });

  test("a ref into a frame whose document died is stale, not applied elsewhere", () => {
    const { doc, innerDoc } = framedPage();
    const ctx = context();
    tree.readPage(doc, {}, ctx);
    assert.ok(ctx.refs.resolve("ref_4"));
    innerDoc.defaultView = null; // the frame navigated or was removed
    assert.throws(
      () => ctx.refs.resolve("ref_4"),
      (e) => e.code === "stale_ref" && /frame navigated or was removed/.test(e.message),
    );
  });
});

describe("compact outline of link-heavy pages", () => {
  test("list items, cells and labels around controls are transparent; own text stays", () => {
    const field = new FakeInput("input", { type: "text" });
    field.labels = [];
    const body = h(
      "body",
      {},
      h("ul", {}, h("li", {}, h("a", { href: "/a" }, "Alpha")), h("li", {}, "Plain item")),
      h("table", {}, h("tr", {}, h("td", {}, "Acme ", h("a", { href: "/acme" }, "site")), h("td", {}, "$5"))),
      h("label", {}, "Name ", field),
      h("a", { href: "/pic" }, h("img", { alt: "Picture" })),
      h("h3", {}, h("a", { href: "/head" }, "Heading link")),
    );
    body.children[3].querySelector = () => body.children[3].children[0];
    const out = tree.readPage(fakeDocument(body), {}, context());
    assert.equal(
      out.text,
      [
        'link "Alpha" [ref_1] href="/a"',
        'listitem "Plain item" [ref_2]',
        "table [ref_3]",
        " row [ref_4]",
        '  cell "Acme" [ref_5]',
        '   link "site" [ref_6] href="/acme"',
        '  cell "$5" [ref_7]',
        "textbox [ref_8] type=\"text\"",
        'link "Picture" [ref_9] href="/pic"',
        "heading [ref_10] level=3",
        ' link "Heading link" [ref_11] href="/head"',
        "Viewport: 800x600",
      ].join("\n"),
    );
  });

  test("link targets are left out first when the outline would be too long with them", () => {
    const count = 700;
    const links = Array.from({ length: count }, (_, i) => h("a", { href: `/a/very/long/path/to/item-${i}` }, `Item ${i}`));
    const out = tree.readPage(fakeDocument(h("body", {}, ...links)), { max_chars: 2_000_000 }, context());
    assert.equal(out.shown, count);
    assert.ok(!out.text.includes("href="), "hrefs left out");
    assert.match(out.text, /\[link targets \(href\) left out: this outline is over 40000 characters/);
    assert.match(out.text, /^link "Item 0" \[ref_1\]$/m);
    const few = tree.readPage(fakeDocument(h("body", {}, ...links.slice(0, 5))), {}, context());
    assert.match(few.text, /^link "Item 4" \[ref_5\] href="\/a\/very\/long\/path\/to\/item-4"$/m);
    assert.ok(!few.text.includes("left out"));
  });
});
