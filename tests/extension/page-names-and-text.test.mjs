// Which text get_page_text reads, how elements are named (ARIA roles named by their content,
// selects named by their labels) and what read_page's "all" outline shows of plain text.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FakeInput, FakeSelect, fakeDocument, fakeEnv, h, loadPageScripts } from "./helpers/fake-dom.mjs";

const page = loadPageScripts();
const plain = (value) => JSON.parse(JSON.stringify(value));
const { dom, text, find, forms, tree } = page;

function context() {
  return { env: fakeEnv(), refs: page.refs.createRefRegistry({ now: () => 0 }) };
}

function lines(out) {
  return out.text.split("\n");
}

describe("page_text reads the page, not a fragment of it", () => {
  test("a list of articles is read whole: no single card is the page", () => {
    // Short cards (each a quarter of the page or more) and long ones (500+ characters each):
    // either way, one card is not the page.
    for (const [count, size] of [[3, 90], [10, 520]]) {
      const cards = Array.from({ length: count }, (_, i) =>
        h("article", {}, h("h2", {}, `Result ${i}`), h("p", {}, `Summary of result number ${i}, `.padEnd(size, "x"))),
      );
      const doc = fakeDocument(h("body", {}, h("header", {}, "Results"), h("div", {}, ...cards)));
      const out = text.pageText(doc, {});
      assert.equal(out.source, "body");
      for (let i = 0; i < count; i++) assert.ok(out.text.includes(`Result ${i}`), `Result ${i}`);
    }
  });

  test("a table in main beside a review in an aside: main, saying how much of the page it is", () => {
    const rows = Array.from({ length: 150 }, (_, i) => h("tr", {}, h("td", {}, `SKU-${i} `), h("td", {}, `$${i}.00 `)));
    const main = h("main", {}, h("table", {}, ...rows), h("p", {}, "Checkout total: $11175.00"));
    const review = h("aside", {}, h("article", {}, "A long review of the store. ".repeat(24)));
    const doc = fakeDocument(h("body", {}, h("nav", {}, "Home Shop"), main, review));
    const out = text.pageText(doc, {});
    const whole = text.normalizeText(doc.body.textContent).length;
    const shown = text.normalizeText(main.textContent).length;
    const fmt = (n) => n.toLocaleString("en-US");
    assert.equal(out.source, `main (${fmt(shown)} of ${fmt(whole)} characters of the page's text)`);
    assert.ok(out.text.includes("SKU-42") && out.text.includes("Checkout total"));
  });

  test("a container counts only when it holds most of the body's text", () => {
    const body = "x".repeat(6000);
    // 600 characters: once enough to win, now a fragment.
    assert.equal(text.chooseSource([{ selector: "article", text: "a".repeat(600) }], body).selector, "body");
    assert.equal(text.chooseSource([{ selector: "main", text: "m".repeat(4000) }], body).selector, "main");
    // More text than the body: an unrendered element (innerText is then all its text).
    assert.equal(text.chooseSource([{ selector: "main", text: "m".repeat(7000) }], body).selector, "body");
    assert.equal(text.describeSource({ selector: "main", text: "m".repeat(5900) }, "x".repeat(6752)), "main (5,900 of 6,752 characters of the page's text)");
    assert.equal(text.describeSource({ selector: "article", text: "abc" }, "abc"), "article");
  });
});

describe("ARIA widgets are named by their content", () => {
  function widgets() {
    const body = h(
      "body",
      {},
      h("div", { role: "tablist" }, h("div", { role: "tab", "aria-selected": "true" }, "Account"), h("div", { role: "tab" }, h("span", {}, "Billing"))),
      h("div", { role: "menu" }, h("div", { role: "menuitem" }, "Export")),
      h("span", { role: "link", tabindex: "0" }, "Docs"),
      h("div", { role: "checkbox", "aria-checked": "false", tabindex: "0" }, "Remember me"),
      h("div", { role: "switch", "aria-checked": "true", "aria-label": "Dark mode" }, "On"),
      h("div", { role: "heading", "aria-level": "2" }, "Settings"),
    );
    return fakeDocument(body);
  }

  test("roles that take their name from content are named by their text", () => {
    const doc = widgets();
    const named = (role) => doc.querySelectorAll(`[role="${role}"]`).map((el) => dom.accessibleName(el));
    assert.deepEqual(plain(named("tab")), ["Account", "Billing"]);
    assert.deepEqual(plain(named("menuitem")), ["Export"]);
    assert.deepEqual(plain(named("link")), ["Docs"]);
    assert.deepEqual(plain(named("checkbox")), ["Remember me"]);
    assert.deepEqual(plain(named("switch")), ["Dark mode"]); // aria-label still comes first
    assert.deepEqual(plain(named("heading")), ["Settings"]);
    // Roles not named by content stay unnamed by their text.
    assert.equal(dom.accessibleName(doc.querySelectorAll('[role="menu"]')[0]), "");
  });

  test("read_page shows their names and aria-checked state", () => {
    const out = lines(tree.readPage(widgets(), {}, context()));
    assert.ok(out.includes(' tab "Billing" [ref_3]'), out.join("\n"));
    assert.ok(out.some((l) => /^ menuitem "Export" \[ref_\d+\]$/.test(l)), out.join("\n"));
    assert.ok(out.some((l) => /^link "Docs" \[ref_\d+\]$/.test(l)), out.join("\n"));
    assert.ok(out.some((l) => /^checkbox "Remember me" \[ref_\d+\] unchecked$/.test(l)), out.join("\n"));
    assert.ok(out.some((l) => /^switch "Dark mode" \[ref_\d+\] checked$/.test(l)), out.join("\n"));
  });

  test("find names them, even when the text sits in a child element", () => {
    const { results } = plain(find.findText(widgets(), { query: "Billing tab" }, context()));
    assert.equal(results[0].role, "tab");
    assert.equal(results[0].name, "Billing");
    const box = plain(find.findText(widgets(), { query: "Remember me" }, context())).results[0];
    assert.deepEqual([box.role, box.name, box.checked], ["checkbox", "Remember me", false]);
  });

  test("an element without a name carries the start of its text; a named one or a field does not", () => {
    const long = "Shipping is free on orders over 50 euros placed before noon on any weekday of the year";
    const doc = fakeDocument(
      h("body", {}, h("p", {}, "Total ", h("b", {}, "12 \u20ac")), h("p", {}, long), h("button", {}, "Total due"), h("input", { type: "text", placeholder: "", value: "Total secret" })),
    );
    const results = plain(find.findText(doc, { query: "total" }, context())).results;
    const byRole = Object.fromEntries(results.map((r) => [r.role, r]));
    assert.deepEqual([byRole.paragraph.name, byRole.paragraph.text], ["", "Total 12 \u20ac"]);
    assert.deepEqual([byRole.button.name, byRole.button.text], ["Total due", undefined]);
    const shipping = plain(find.findText(doc, { query: "shipping" }, context())).results[0];
    assert.equal(shipping.text.length, 80);
    assert.ok(shipping.text.startsWith("Shipping is free") && shipping.text.endsWith("\u2026"));
  });
});

describe("form_input and form_fill set ARIA checkboxes", () => {
  // A checkbox whose page script flips aria-checked on click (unless it is broken).
  function ariaCheckbox(checked, { broken = false } = {}) {
    const el = h("div", { role: "checkbox", "aria-checked": String(checked), tabindex: "0" }, "Remember me");
    el.click = () => {
      el.clicks = (el.clicks || 0) + 1;
      if (!broken) el.attrs["aria-checked"] = String(el.attrs["aria-checked"] !== "true");
    };
    return el;
  }

  test("clicked only when its state must change; a click the page ignores is an error", async () => {
    const box = ariaCheckbox(false);
    assert.deepEqual(plain(forms.setFormValue(box, true, fakeEnv())), { kind: "checkbox", value: true });
    assert.deepEqual(plain(forms.setFormValue(box, "yes", fakeEnv())), { kind: "checkbox", value: true });
    assert.equal(box.clicks, 1);
    await assert.rejects(
      Promise.resolve(forms.setFormValue(ariaCheckbox(false, { broken: true }), true, fakeEnv())),
      (e) => e.code === "value_kept",
    );
    assert.throws(() => forms.setFormValue(ariaCheckbox(false), "maybe", fakeEnv()), (e) => e.code === "bad_value");
  });

  test("a toggle the page re-renders after the click (as frameworks do) is waited for", async () => {
    const box = ariaCheckbox(false);
    const flip = box.click;
    box.click = () => setTimeout(flip, 60); // the new state shows in a later task
    const done = forms.setFormValue(box, true, fakeEnv());
    assert.equal(typeof done.then, "function");
    assert.deepEqual(plain(await done), { kind: "checkbox", value: true });
  });

  test("form_fields lists it as a checkbox named by its text", () => {
    const doc = fakeDocument(h("body", {}, h("form", {}, ariaCheckbox(false))));
    const { forms: found } = plain(forms.formFields(doc, context(), fakeEnv()));
    assert.equal(found.length, 1);
    const [field] = found[0].fields;
    assert.deepEqual([field.type, field.aria], ["checkbox", "Remember me"]);
  });
});

describe("an ARIA toggle's wait is timed by the clock", () => {
  test("in a background tab whose timers fire a second late, a broken toggle is given up after one poll", async () => {
    // Each timer fires at once here but the clock moves a second, as a throttled tab's do.
    let now = 0;
    let polls = 0;
    const slowTimers = {
      Date: { now: () => now },
      setTimeout: (fn) => {
        polls += 1;
        now += 1000;
        return setTimeout(fn, 0);
      },
    };
    const throttled = loadPageScripts(slowTimers);
    const el = h("div", { role: "checkbox", "aria-checked": "false", tabindex: "0" }, "Remember me");
    el.click = () => {};
    await assert.rejects(throttled.forms.setFormValue(el, true, fakeEnv()), /did not become checked/);
    assert.equal(polls, 1);
  });
});

describe("read_page's all view is an outline of elements; text is get_page_text's", () => {
  test("paragraphs without a name of their own add no line; their links and buttons do", () => {
    const body = h(
      "body",
      {},
      h("p", {}, "Plain paragraph with ", h("b", {}, "bold words"), " inside."),
      h("p", {}, "Read the ", h("a", { href: "/terms" }, "terms"), " first."),
      h("button", {}, h("span", {}, "Save")),
    );
    const out = lines(tree.readPage(fakeDocument(body), {}, context()));
    assert.deepEqual(out, ['link "terms" [ref_1] href="/terms"', 'button "Save" [ref_2]', "Viewport: 800x600"]);
  });
});

describe("a select is named by its label; its chosen option is its value", () => {
  function selects() {
    const countryLabel = h("label", { for: "country" }, "Country");
    const country = new FakeSelect({ id: "country" }, [["", "--"], ["fr", "France"], ["jp", "Japan"]]);
    country.labels = [countryLabel];
    const size = new FakeSelect({ id: "size", "aria-label": "Size" }, [["s", "Small"], ["m", "Medium"], ["l", "Large"]]);
    size.selectedIndex = 1;
    const multi = new FakeSelect({ multiple: "" }, [["1", "One"], ["2", "Two"], ["3", "Three"]]);
    multi.multiple = true; // shows several options at once: a list box
    Object.defineProperty(multi, "selectedOptions", { get: () => [multi.options[0], multi.options[2]] });
    const multiLabel = h("label", {}, "Multi ", multi);
    multi.labels = [multiLabel];
    const doc = fakeDocument(h("body", {}, h("form", {}, countryLabel, country, size, multiLabel)));
    return { doc, country, size, multi, multiLabel };
  }

  test("names come from labels without the options' text", () => {
    const { country, size, multi, multiLabel } = selects();
    assert.equal(dom.accessibleName(country), "Country");
    assert.equal(dom.accessibleName(size), "Size");
    assert.equal(dom.accessibleName(multi), "Multi");
    assert.equal(dom.labelText(multiLabel), "Multi");
    size.selectedIndex = 2;
    assert.equal(dom.accessibleName(size), "Size"); // the name does not follow the value
  });

  test("read_page shows the chosen option as the value", () => {
    const { doc, size } = selects();
    const ctx = context();
    let out = lines(tree.readPage(doc, {}, ctx));
    assert.ok(out.includes(' combobox "Country" [ref_3] value="--"'), out.join("\n"));
    assert.ok(out.includes(' combobox "Size" [ref_4] value="Medium"'), out.join("\n"));
    assert.ok(out.includes(' listbox "Multi" [ref_5] value="One, Three"'), out.join("\n"));
    size.selectedIndex = 2;
    out = lines(tree.readPage(doc, {}, ctx));
    assert.ok(out.includes(' combobox "Size" [ref_4] value="Large"'), out.join("\n"));
  });

  test("find returns the select for its label, and for its chosen option", () => {
    const { doc } = selects();
    const country = plain(find.findText(doc, { query: "Country" }, context())).results;
    assert.deepEqual([country[0].role, country[0].name, country[0].tag], ["combobox", "Country", "select"]);
    const medium = plain(find.findText(doc, { query: "Medium" }, context())).results;
    assert.deepEqual([medium[0].role, medium[0].name], ["combobox", "Size"]);
  });
});

describe("find takes a description when no element holds every word of it", () => {
  function controls() {
    return fakeDocument(
      h(
        "body",
        {},
        h("a", { href: "/out" }, "Leave"),
        h("button", {}, "Ask name"),
        h("button", {}, "Save"),
        h("label", {}, "Email ", new FakeInput("input", { type: "email", id: "mail" })),
        h("p", {}, "Nothing to see"),
      ),
    );
  }
  const names = (out) => plain(out).results.map((r) => `${r.role} ${r.name}`);

  test("its content words are matched, most of them, and the answer says so", () => {
    const doc = controls();
    const leave = plain(find.findText(doc, { query: "the link to leave the page" }, context()));
    assert.deepEqual(names(leave), ["link Leave"]);
    assert.deepEqual(leave.loose, { words: ["link", "leave", "page"], needed: 2 });
    assert.ok(leave.results[0].matchRank >= 4);
    assert.deepEqual(names(find.findText(doc, { query: "name prompt button" }, context())), ["button Ask name"]);
    assert.deepEqual(names(find.findText(doc, { query: "all buttons" }, context())), ["button Ask name", "button Save"]);
    // Two words must both match: the field holds both (its type, its role), its label one.
    const email = plain(find.findText(doc, { query: "email field" }, context())).results;
    assert.deepEqual(email.map((r) => r.role), ["textbox"]);
    // A caller about to act asks for every word.
    const strict = plain(find.findText(doc, { query: "the link to leave the page", strict: true }, context()));
    assert.deepEqual([strict.results, strict.loose], [[], undefined]);
  });

  test("a query whose words an element holds stays strict", () => {
    const doc = controls();
    const exact = plain(find.findText(doc, { query: "Save" }, context()));
    assert.deepEqual(names(exact), ["button Save"]);
    assert.equal(exact.loose, undefined);
    assert.deepEqual(names(find.findText(doc, { query: "Delete" }, context())), []);
    assert.deepEqual(names(find.findText(doc, { query: "delete account" }, context())), []);
  });
});
