// What a person sees: text and elements laid out where nobody can see them (transparent,
// off the page, of font size 0, cut away by a box without area) are not read or called
// visible; SVG text and links are read; a closed shadow root on an empty <div> is read.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { attachShadow, fakeDocument, fakeEnv, h, loadPageScripts, windowFor } from "./helpers/fake-dom.mjs";

const SVG_NS = "http://www.w3.org/2000/svg";
const page = loadPageScripts();
const { dom, text, find, tree } = page;

function context(env = fakeEnv()) {
  return { env, refs: page.refs.createRefRegistry({ now: () => 0 }) };
}

// Elements laid out in a column, each 20px high; `style` and `box` override per element.
function hiddenTextPage() {
  const row = (top, style, words, box = {}) => h("p", { style, box: { left: 8, top, width: 600, height: 20, ...box } }, words);
  const body = h(
    "body",
    { box: { left: 0, top: 0, width: 800, height: 400 } },
    row(0, {}, "VISIBLE_MARK"),
    row(20, { opacity: "0" }, "OPACITY_MARK"),
    row(40, { position: "absolute" }, "OFFSCREEN_MARK", { left: -9999 }),
    row(60, { fontSize: "0px" }, "FONTZERO_MARK", { height: 0 }),
    h(
      "div",
      { style: { overflowX: "hidden", overflowY: "hidden" }, box: { left: 8, top: 80, width: 600, height: 0 } },
      "ZEROHEIGHT_MARK",
    ),
    // The visually-hidden pattern screen readers rely on: kept.
    row(80, { position: "absolute", overflowX: "hidden", overflowY: "hidden" }, "CLIP_MARK", { width: 1, height: 1 }),
    h("div", { style: { opacity: "0" }, box: { left: 8, top: 100, width: 600, height: 20 } }, h("span", { box: { left: 8, top: 100, width: 80, height: 20 } }, "NESTED_MARK")),
    row(120, {}, "BELOW_MARK", { top: 3000 }),
  );
  return windowFor(fakeDocument(body));
}

describe("get_page_text leaves out text no person can see", () => {
  test("transparent, off-page, zero-size and cut-away text is left out and counted; the rest is read", () => {
    const out = text.pageText(hiddenTextPage(), {});
    for (const mark of ["VISIBLE_MARK", "CLIP_MARK", "BELOW_MARK"]) assert.ok(out.text.includes(mark), `${mark} in ${out.text}`);
    for (const mark of ["OPACITY_MARK", "OFFSCREEN_MARK", "FONTZERO_MARK", "ZEROHEIGHT_MARK", "NESTED_MARK"]) {
      assert.ok(!out.text.includes(mark), `${mark} left out of ${out.text}`);
    }
    assert.match(out.note, /Left out: the text of 5 element\(s\) that the page lays out where no person can see it/);
  });

  test("text in a fully transparent colour is left out unless a stroke, shadow or clipped background draws it", () => {
    const row = (top, style, words) => h("p", { style, box: { left: 8, top, width: 600, height: 20 } }, words);
    const clear = "rgba(0, 0, 0, 0)";
    const body = h(
      "body",
      { box: { left: 0, top: 0, width: 800, height: 400 } },
      row(0, { color: clear }, "CLEAR_MARK"),
      row(20, { color: "transparent" }, "KEYWORD_MARK"),
      row(40, { color: clear, backgroundClip: "text" }, "GRADIENT_MARK"),
      row(60, { color: clear, textShadow: "rgb(0, 0, 0) 0px 0px 2px" }, "SHADOW_MARK"),
      row(80, { color: clear, webkitTextStrokeWidth: "1px" }, "STROKE_MARK"),
      row(100, { color: "rgba(0, 0, 0, 0.5)" }, "HALF_MARK"),
      row(120, { color: clear, webkitTextFillColor: "rgb(0, 0, 0)" }, "FILLED_MARK"),
    );
    const out = text.pageText(windowFor(fakeDocument(body)), {});
    for (const mark of ["GRADIENT_MARK", "SHADOW_MARK", "STROKE_MARK", "HALF_MARK", "FILLED_MARK"]) {
      assert.ok(out.text.includes(mark), `${mark} in ${out.text}`);
    }
    for (const mark of ["CLEAR_MARK", "KEYWORD_MARK"]) assert.ok(!out.text.includes(mark), `${mark} left out of ${out.text}`);
    assert.match(out.note, /Left out: the text of 2 element\(s\)/);
  });

  test("a page with nothing hidden reads as innerText gives it, without a note", () => {
    const body = h("body", {}, h("p", {}, "Plain "), h("p", {}, "text"));
    const out = text.pageText(windowFor(fakeDocument(body)), {});
    assert.equal(out.text, "Plain text");
    assert.equal(out.note, undefined);
  });

  test("an invisible element on a path read part by part keeps its text out", () => {
    const body = h(
      "body",
      {},
      h("div", { style: { visibility: "hidden" } }, "INVISIBLE_MARK", h("span", { style: { opacity: "0" } }, "GONE")),
      h("p", {}, "SEEN"),
    );
    const out = text.pageText(windowFor(fakeDocument(body)), {});
    assert.equal(out.text, "SEEN");
  });
});

describe("find and read_page do not call an element visible that nobody can see", () => {
  function buttons() {
    const body = h(
      "body",
      {},
      h("button", { box: { left: 8, top: 10, width: 100, height: 20 } }, "Shown button"),
      h("button", { style: { opacity: "0" }, box: { left: 120, top: 10, width: 100, height: 20 } }, "Invisible button"),
      h("button", { style: { position: "absolute" }, box: { left: -9999, top: 10, width: 100, height: 20 } }, "Offscreen button"),
      h("button", { style: { position: "absolute" }, box: { left: 8, top: -500, width: 100, height: 20 } }, "Above button"),
      h("button", { box: { left: 8, top: 5000, width: 100, height: 20 } }, "Below fold button"),
      h("label", { box: { left: 8, top: 40, width: 200, height: 20 } },
        h("input", { type: "checkbox", style: { opacity: "0", position: "absolute" }, box: { left: 8, top: 40, width: 16, height: 16 } }),
        "Remember me"),
    );
    return windowFor(fakeDocument(body));
  }

  test("isVisible: transparent and off-page are not visible; below the fold and a drawn checkbox are", () => {
    const doc = buttons();
    const env = fakeEnv();
    const byText = (words) => doc.querySelectorAll("button").find((b) => b.textContent === words);
    assert.equal(dom.isVisible(byText("Shown button"), env), true);
    assert.equal(dom.isVisible(byText("Invisible button"), env), false);
    assert.equal(dom.isVisible(byText("Offscreen button"), env), false);
    assert.equal(dom.isVisible(byText("Above button"), env), false);
    assert.equal(dom.isVisible(byText("Below fold button"), env), true);
    // A styled checkbox: the native one is transparent over the page's drawing of it.
    assert.equal(dom.isVisible(doc.querySelectorAll("input")[0], env), true);
  });

  test("find leaves them out (counted as hidden) and read_page does not list them", () => {
    const doc = buttons();
    for (const query of ["Invisible button", "Offscreen button"]) {
      const out = find.findText(doc, { query }, context());
      assert.equal(out.results.length, 0, query);
      assert.equal(out.hidden, 1, query);
    }
    const outline = tree.readPage(doc, {}, context()).text;
    assert.match(outline, /button "Shown button"/);
    assert.match(outline, /button "Below fold button"/);
    assert.doesNotMatch(outline, /Invisible button|Offscreen button|Above button/);
  });

  test("an element fixed to the viewport and wholly outside it is not visible", () => {
    const drawer = h(
      "nav",
      { style: { position: "fixed" }, box: { left: -300, top: 0, width: 300, height: 600 } },
      h("a", { href: "/account", box: { left: -290, top: 10, width: 100, height: 20 } }, "Account"),
    );
    const doc = windowFor(fakeDocument(h("body", {}, drawer)));
    doc.defaultView.scrollX = 400; // a page scrolled sideways does not bring a fixed box in
    assert.equal(dom.isVisible(doc.querySelectorAll("a")[0], fakeEnv()), false);
  });
});

describe("SVG text and links are read", () => {
  function drawing() {
    const svg = (tag, attrs = {}, ...children) => h(tag, { ...attrs, props: { namespaceURI: SVG_NS } }, ...children);
    const picture = svg(
      "svg",
      { box: { left: 8, top: 8, width: 300, height: 100 } },
      svg("text", { box: { left: 18, top: 30, width: 140, height: 20 } }, "SVG_TEXT_MARK"),
      svg("a", { href: "/second", box: { left: 18, top: 70, width: 60, height: 20 } }, svg("text", { box: { left: 18, top: 70, width: 60, height: 20 } }, "SVG link")),
      svg("a", { "xlink:href": "/old", box: { left: 100, top: 70, width: 60, height: 20 } }, svg("text", {}, "Old link")),
    );
    const icon = svg("svg", { box: { left: 320, top: 8, width: 16, height: 16 } }, svg("path", { d: "M0 0" }));
    return windowFor(fakeDocument(h("body", {}, picture, icon)));
  }

  test("read_page lists a drawing's text and its links with their targets", () => {
    const outline = tree.readPage(drawing(), {}, context()).text;
    assert.match(outline, /^text "SVG_TEXT_MARK" \[ref_\d+\]$/m);
    assert.match(outline, /^link "SVG link" \[ref_\d+\] href="\/second"$/m);
    assert.match(outline, /^link "Old link" \[ref_\d+\] href="\/old"$/m);
    // The link's words are its name: no second line for them.
    assert.equal(outline.match(/SVG link/g).length, 1, outline);
  });

  test("find finds an SVG link, with its href, and SVG text", () => {
    const doc = drawing();
    const [link] = find.findText(doc, { query: "SVG link" }, context()).results;
    assert.equal(link.role, "link");
    assert.equal(link.href, "/second");
    assert.equal(link.interactive, true);
    const [words] = find.findText(doc, { query: "SVG_TEXT_MARK" }, context()).results;
    assert.equal(words.name, "SVG_TEXT_MARK");
  });

  test("an icon holding only shapes stays a leaf", () => {
    const doc = drawing();
    const [picture, icon] = doc.querySelectorAll("svg");
    assert.equal(dom.isOpaque(picture), false);
    assert.equal(dom.isOpaque(icon), true);
  });
});

describe("closed shadow roots on built-in elements", () => {
  // chrome.dom as a content script has it: the closed roots it opens, and who asked.
  function withChromeDom() {
    const asked = [];
    const closed = new Map();
    const scripts = loadPageScripts({
      chrome: { dom: { openOrClosedShadowRoot: (el) => (asked.push(el), closed.get(el) || null) } },
    });
    const close = (host) => {
      closed.set(host, host.shadowRoot);
      host.shadowRoot = null;
    };
    return { scripts, asked, close };
  }

  function closedDivPage(close) {
    const el = (tag, attrs, ...children) => h(tag, { ...attrs, props: { localName: tag } }, ...children);
    const widget = el("div", { id: "closeddiv" });
    attachShadow(widget, el("b", {}, "CLOSED_DIV_MARK"), el("button", {}, "Closed div btn"));
    const full = el("div", {}, el("span", {}, "light words"));
    const body = el("body", {}, el("p", {}, "light text"), widget, full);
    const doc = windowFor(fakeDocument(body));
    close(widget);
    return doc;
  }

  test("an empty div's closed root is read by get_page_text, read_page and find", () => {
    const { scripts, close } = withChromeDom();
    const doc = closedDivPage(close);
    const ctx = { env: fakeEnv(), refs: scripts.refs.createRefRegistry({ now: () => 0 }) };
    assert.match(scripts.text.pageText(doc, {}).text, /CLOSED_DIV_MARK/);
    assert.match(scripts.tree.readPage(doc, {}, ctx).text, /button "Closed div btn"/);
    assert.equal(scripts.find.findText(doc, { query: "Closed div btn" }, ctx).results[0].name, "Closed div btn");
  });

  test("only elements that may hold one are asked: a div with content is not", () => {
    const { scripts, asked, close } = withChromeDom();
    const doc = closedDivPage(close);
    scripts.dom.shadowHosts(doc);
    const names = asked.map((e) => e.id || e.tagName.toLowerCase());
    assert.ok(names.includes("closeddiv"), names.join());
    assert.ok(!names.includes("span") && !names.includes("p") && !names.includes("button"), names.join());
    assert.equal(asked.filter((e) => e.tagName === "DIV" && e.id !== "closeddiv").length, 0);
  });
});
