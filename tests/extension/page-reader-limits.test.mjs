// Readers on large pages, in open shadow roots and in same-origin frames: wait_probe and
// find_text search the whole page (or say how far they got), and page_text reads the text of
// open shadow roots where they show.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FakeInput, attachShadow, fakeDocument, fakeEnv, h, loadPageScripts, pageContext, windowFor } from "./helpers/fake-dom.mjs";

const page = loadPageScripts();
const { find, tree, wait } = page;

const context = () => pageContext(page);

// `rows` rows of three elements each (div, span, button), after a heading.
function rowsPage(rows, tail = []) {
  const list = [];
  for (let i = 0; i < rows; i++) list.push(h("div", {}, h("span", {}, `Row ${i}`), h("button", {}, `Btn ${i}`)));
  return fakeDocument(h("body", {}, h("h1", {}, "Rows"), ...list, ...tail));
}

describe("wait_probe on a large page", () => {
  test("text after 24000 elements is found, and an absent text is reported absent", () => {
    const doc = rowsPage(8000, [h("p", { id: "end" }, "The very last line")]);
    const ctx = context();
    const seen = wait.probe(doc, { text: "very LAST line" }, ctx);
    assert.equal(seen.count, 1);
    assert.equal(seen.visible, 1);
    assert.equal(seen.element.tag, "p");
    assert.equal(seen.capped, undefined);
    const none = wait.probe(doc, { text: "not on this page" }, ctx);
    assert.deepEqual([none.count, none.visible, none.capped], [0, 0, undefined]);
  });

  test("a page larger than one observation reads says so", () => {
    const cap = wait.ELEMENT_CAP;
    const doc = rowsPage(Math.ceil(cap / 3) + 1, [h("p", {}, "The very last line")]);
    const out = wait.probe(doc, { text: "very last line" }, context());
    assert.deepEqual([out.count, out.visible, out.capped, out.scanned], [0, 0, true, cap]);
  });

  test("text split across elements names the deepest element holding all of it", () => {
    const p = h("p", {}, "Arrived ", h("b", {}, "late"), " today");
    const doc = fakeDocument(h("body", {}, h("div", {}, p), h("div", { style: { display: "none" } }, h("span", {}, "arrived late"))));
    const out = wait.probe(doc, { text: "arrived late" }, context());
    assert.deepEqual([out.count, out.visible, out.element.tag], [2, 1, "p"]);
    assert.deepEqual(Array.from(wait.textMatches(doc, "  ARRIVED  late "), (el) => el.tagName), ["P", "SPAN"]);
    // Element boundaries separate words; adjacent text nodes do not.
    const glued = fakeDocument(h("body", {}, h("p", {}, "sun", "flower"), h("p", {}, h("i", {}, "moon"), "light")));
    assert.equal(wait.textMatches(glued, "sunflower").length, 1);
    assert.equal(wait.textMatches(glued, "moonlight").length, 0);
    assert.equal(wait.textMatches(glued, "moon light").length, 1);
  });

  test("text matches as find matches it: without accents, width or case", () => {
    const doc = fakeDocument(
      h("body", {}, h("p", {}, "Delivered to Z\u00fcrich"), h("p", {}, "Gro\u00dfe ", h("b", {}, "Stra\u00dfe")), h("p", {}, "\uff26\uff55\uff4c\uff4c stop")),
    );
    assert.deepEqual(Array.from(wait.textMatches(doc, "to zurich"), (el) => el.textContent), ["Delivered to Z\u00fcrich"]);
    assert.deepEqual(Array.from(wait.textMatches(doc, "grosse strasse"), (el) => el.tagName), ["P"]);
    assert.equal(wait.textMatches(doc, "full stop").length, 1);
    assert.equal(wait.textMatches(doc, "Z\u00dcRICH").length, 1);
  });
});

// One element holding `count` buttons, after a heading (built child by child: spread into a
// call, that many children would overflow the test's own stack).
function widePage(count) {
  const wide = h("div", { id: "wide" });
  for (let i = 0; i < count; i++) wide.append(h("button", {}, `Item ${i}`));
  return fakeDocument(h("body", {}, h("h1", {}, "Wide"), wide));
}

describe("one element with 200000 children", () => {
  const doc = widePage(200_000);

  test("read_page lists its first children within max_chars and says where it stopped", () => {
    const out = tree.readPage(doc, { max_chars: 20_000 }, context());
    const lines = out.text.split("\n");
    assert.deepEqual(lines.slice(0, 3), ['heading "Wide" [ref_1] level=1', 'button "Item 0" [ref_2]', 'button "Item 1" [ref_3]']);
    assert.equal(out.truncated, true);
    assert.ok(out.text.length <= 20_000, `length ${out.text.length}`);
    assert.ok(out.shown > 500, `shown ${out.shown}`);
    assert.equal(lines[out.shown - 1], `button "Item ${out.shown - 2}" [ref_${out.shown}]`);
    assert.match(out.text, /\[element cap reached: examined 20000 elements; use ref_id to read a part of the page\]/);
    assert.match(out.text, new RegExp(`\\[showing ${out.shown} of \\d+ elements: output reached max_chars=20000`));
  });

  test("a read of the element itself, and the interactive view, answer too", () => {
    const ctx = context();
    tree.readPage(doc, { depth: 1 }, ctx);
    const wideRef = ctx.refs.refFor(doc.getElementById("wide"));
    const sub = tree.readPage(doc, { ref_id: wideRef, max_chars: 3000 }, ctx);
    assert.equal(sub.truncated, true);
    assert.match(sub.text, new RegExp(`^div \\[${wideRef}\\]\n button "Item 0" \\[ref_\\d+\\]\n button "Item 1"`));
    assert.ok(sub.text.length <= 3000 && /output reached max_chars=3000/.test(sub.text), sub.text.slice(-300));
    const interactive = tree.readPage(doc, { filter: "interactive" }, context());
    assert.match(interactive.text, /button "Item 0"/);
  });

  test("wait_probe counts a selector's 200000 matches", () => {
    const out = wait.probe(doc, { selector: "button" }, context());
    assert.deepEqual([out.count, out.element.name], [200_000, "Item 0"]);
  });
});

describe("wait_probe in open shadow roots and same-origin frames", () => {
  function framedShadowPage() {
    const host = h("x-card", {}, h("span", {}, "light child"));
    attachShadow(host, h("button", { id: "sb" }, "Shadow Button"), h("slot"));
    const innerBody = h("body", {}, h("h2", {}, "Delivery"), h("button", { class: "go" }, "Frame go"));
    const frame = h("iframe", { title: "Inner", box: { left: 100, top: 200, width: 300, height: 150 } });
    const doc = windowFor(fakeDocument(h("body", {}, h("h1", {}, "Top"), host, frame)));
    const innerDoc = windowFor(fakeDocument(innerBody), frame);
    frame.contentDocument = innerDoc;
    return { doc, innerDoc, host };
  }

  test("text inside a same-origin frame and a shadow root is found", () => {
    const { doc, innerDoc } = framedShadowPage();
    const ctx = context();
    const inFrame = wait.probe(doc, { text: "frame go" }, ctx);
    assert.deepEqual([inFrame.count, inFrame.visible, inFrame.element.name], [1, 1, "Frame go"]);
    assert.deepEqual(ctx.watched, [innerDoc]);
    const inShadow = wait.probe(doc, { text: "shadow button" }, ctx);
    assert.deepEqual([inShadow.count, inShadow.element.name], [1, "Shadow Button"]);
    // The host shows its shadow tree, then its light children: one text across both.
    assert.equal(wait.probe(doc, { text: "shadow button light child" }, ctx).element.tag, "x-card");
  });

  test("a selector matches in frames and shadow roots too, and filters by text", () => {
    const { doc } = framedShadowPage();
    assert.equal(wait.probe(doc, { selector: ".go" }, context()).count, 1);
    assert.equal(wait.probe(doc, { selector: "#sb" }, context()).count, 1);
    assert.equal(wait.probe(doc, { selector: "button" }, context()).count, 2);
    const filtered = wait.probe(doc, { selector: "button", text: "frame" }, context());
    assert.deepEqual([filtered.count, filtered.element.name], [1, "Frame go"]);
    assert.equal(wait.probe(doc, { selector: "h1", text: "frame" }, context()).count, 0);
  });
});

describe("find_text on a large page", () => {
  test("10000 rows (30004 elements): the last row is found and every button counted", () => {
    const doc = rowsPage(10000);
    const last = find.findText(doc, { query: "Btn 9999" }, context());
    assert.equal(last.results[0].name, "Btn 9999");
    assert.equal(last.capped, undefined);
    const started = Date.now();
    const buttons = find.findText(doc, { query: "button" }, context());
    assert.equal(buttons.total, 10000);
    assert.equal(buttons.more, true);
    assert.equal(buttons.capped, undefined);
    assert.ok(Date.now() - started < 3000);
  });

  test("more candidates than one call ranks: capped, with how many elements were searched", () => {
    const doc = fakeDocument(h("body", {}, ...Array.from({ length: find.RANK_CAP + 50 }, (_, i) => h("button", {}, `Go ${i}`))));
    const out = find.findText(doc, { query: "go" }, context());
    assert.equal(out.capped, true);
    assert.equal(out.scanned, find.RANK_CAP + 1); // the body and the ranked buttons
    assert.equal(out.total, find.RANK_CAP);
  });

  test("names from labels, other elements, image alt, values and selected options still match", () => {
    const field = new FakeInput("input", { type: "text" });
    field.labels = [h("label", {}, "Postal ", h("b", {}, "code"))];
    const send = new FakeInput("input", { type: "submit", value: "Dispatch" });
    const logo = h("img", { alt: "Homepage logo" });
    const link = h("a", { href: "/home", props: { querySelector: () => logo } }, logo);
    const body = h(
      "body",
      {},
      h("span", { id: "cap" }, "Quantity"),
      h("div", { role: "spinbutton", "aria-labelledby": "cap" }),
      field,
      link,
      send,
    );
    const doc = fakeDocument(body);
    const ctx = context();
    assert.equal(find.findText(doc, { query: "postal code" }, ctx).results[0].role, "textbox");
    assert.equal(find.findText(doc, { query: "quantity" }, ctx).results[0].role, "spinbutton");
    assert.equal(find.findText(doc, { query: "homepage logo" }, ctx).results[0].role, "link");
    assert.equal(find.findText(doc, { query: "dispatch" }, ctx).results[0].role, "button");
    assert.equal(find.findText(doc, { query: "textbox" }, ctx).results[0].role, "textbox");
    assert.equal(find.mayMatch(h("div", {}, "x"), ["button"]), false);
    // A folded query word is found in the element's folded words ("zurich" in "Zürich").
    assert.equal(find.mayMatch(h("button", {}, "Z\u00fcrich"), ["zurich"]), true);
  });
});

describe("page_text and open shadow roots", () => {
  test("shadow text is read where the host shows it; slotted light text once", () => {
    const host = h("x-card", {}, h("span", {}, "slotted light"));
    attachShadow(
      host,
      h("style", {}, ":host{display:block}"),
      h("button", {}, "Shadow Button"),
      h("div", {}, "pre ", h("slot"), " post"),
      h("p", {}, "shadow paragraph text"),
      h("p", { style: { display: "none" } }, "hidden in shadow"),
    );
    const body = h("body", {}, h("p", {}, "Before"), host, h("p", {}, "After"));
    const out = page.text.pageText(windowFor(fakeDocument(body)), {});
    assert.equal(out.text, "Before\nShadow Button\npre\nslotted light\npost\nshadow paragraph text\nAfter");
  });

  test("a page without shadow roots reads as before", () => {
    const body = h("body", {}, h("p", {}, "Plain "), h("p", {}, "text"));
    assert.equal(page.text.pageText(fakeDocument(body), {}).text, "Plain text");
    assert.equal(page.text.readComposed(body), "Plain text");
  });

  test("shadow roots inside a frame and nested ones are read", () => {
    const inner = h("x-inner");
    attachShadow(inner, h("span", {}, "deep text"));
    const outer = h("x-outer");
    attachShadow(outer, h("p", {}, "outer text"), inner);
    const frameHost = h("x-frame");
    attachShadow(frameHost, h("p", {}, "framed shadow"));
    const frame = h("iframe", { title: "Inner" });
    const doc = windowFor(fakeDocument(h("body", {}, outer, frame)));
    frame.contentDocument = windowFor(fakeDocument(h("body", {}, frameHost)), frame);
    const out = page.text.pageText(doc, {});
    assert.equal(out.text, 'outer text\ndeep text\n\n[Frame "Inner"]\nframed shadow');
  });
});

test("read_page says why link targets were left out: an outline cut short is not 'over the limit with them'", () => {
  const links = Array.from({ length: 40 }, (_, i) => h("a", { href: `/article/${i}` }, `Article number ${i}`));
  const doc = windowFor(fakeDocument(h("body", {}, ...links)));
  const cut = page.tree.readPage(doc, { max_chars: 500 }, context());
  const text = typeof cut === "string" ? cut : cut.text || JSON.stringify(cut);
  assert.match(text, /link targets \(href\) left out: the outline was cut short\./);
  assert.doesNotMatch(text, /over 40000 characters/);
});
