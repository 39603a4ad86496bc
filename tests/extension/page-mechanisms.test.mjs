import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, FakeInput, FakeSelect, fakeDocument, fakeEnv, h, loadPageScripts } from "./helpers/fake-dom.mjs";

const page = loadPageScripts();
// Objects made inside the page scripts' realm have that realm's prototypes.
const plain = (value) => JSON.parse(JSON.stringify(value));
const { dom, text, find, forms, tree } = page;

function context(now = () => 0) {
  return { env: fakeEnv(), refs: page.refs.createRefRegistry({ now }) };
}

describe("page_text", () => {
  test("normalizes line endings, trailing spaces and blank runs", () => {
    assert.equal(text.normalizeText("a  \r\nb\r\n\r\n\r\n\r\nc\t\n"), "a\nb\n\nc");
  });

  test("prefers the longest article-like container, else the body", () => {
    const body = "x".repeat(1500);
    assert.deepEqual(text.chooseSource([{ selector: "article", text: "a".repeat(900) }, { selector: "main", text: "m".repeat(1000) }], body), {
      selector: "main",
      text: "m".repeat(1000),
    });
    // A tiny fragment is not the page's readable text.
    assert.equal(text.chooseSource([{ selector: "main", text: "nav" }], body).selector, "body");
    assert.equal(text.chooseSource([], "hello").selector, "body");
  });

  test("truncation says what was cut and how to get more", () => {
    const out = text.truncate("abcdefghij", 4);
    assert.equal(out.truncated, true);
    assert.equal(out.totalChars, 10);
    assert.ok(out.text.startsWith("abcd\n\n[Truncated: showing the first 4 of 10 characters."));
    assert.match(out.text, /Call get_page_text with a larger max_chars/);
    assert.deepEqual(plain(text.truncate("abc", 4)), { text: "abc", truncated: false, totalChars: 3 });
  });

  test("pageText reads the article of a document", () => {
    const article = h("article", {}, "Lanterns ".repeat(80));
    const doc = fakeDocument(h("body", {}, h("nav", {}, "Home About"), article), { title: "Doc" });
    const out = text.pageText(doc, { max_chars: 20 });
    // The nav is left out, and the source says so.
    assert.equal(out.source, "article (719 of 729 characters of the page's text)");
    assert.equal(out.title, "Doc");
    assert.equal(out.truncated, true);
    assert.ok(out.text.startsWith("Lanterns Lanterns La"));
    const empty = text.pageText(fakeDocument(h("body")), {});
    assert.match(empty.note, /almost no readable text/);
  });
});

describe("dom vocabulary", () => {
  test("roles", () => {
    assert.equal(dom.roleOf(h("button")), "button");
    assert.equal(dom.roleOf(h("a", { href: "/x" })), "link");
    assert.equal(dom.roleOf(h("a")), "");
    assert.equal(dom.roleOf(h("input", { type: "checkbox" })), "checkbox");
    assert.equal(dom.roleOf(h("input", { type: "range" })), "slider");
    assert.equal(dom.roleOf(h("input")), "textbox");
    assert.equal(dom.roleOf(h("input", { type: "hidden" })), "");
    assert.equal(dom.roleOf(h("div", { role: "Tab extra" })), "tab");
    assert.equal(dom.roleOf(h("div")), "");
  });

  test("accessible name sources in order", () => {
    assert.equal(dom.accessibleName(h("button", { "aria-label": "Close", title: "t" }, "X")), "Close");
    const field = new FakeInput("input", { placeholder: "Name" });
    field.labels = [h("label", {}, "Your  name")];
    assert.equal(dom.accessibleName(field), "Your name");
    assert.equal(dom.accessibleName(new FakeInput("input", { placeholder: "Name" })), "Name");
    assert.equal(dom.accessibleName(h("img", { alt: "Logo" })), "Logo");
    assert.equal(dom.accessibleName(new FakeInput("input", { type: "submit", value: "Send" })), "Send");
    assert.equal(dom.accessibleName(h("a", { href: "/" }, " Home ")), "Home");
    assert.equal(dom.accessibleName(h("div", {}, "plain")), "");
    // A select's chosen option is its value, not its name.
    const sel = new FakeSelect({}, [["r", "Red"], ["g", "Green"]]);
    sel.selectedIndex = 1;
    assert.equal(dom.accessibleName(sel), "");
    assert.equal(dom.selectValueText(sel), "Green");
    const labelled = h("div", {}, h("span", { id: "l1" }, "Billing"), h("input", { "aria-labelledby": "l1" }));
    fakeDocument(labelled);
    assert.equal(dom.accessibleName(labelled.children[1]), "Billing");
  });

  test("interactivity and secrets", () => {
    assert.equal(dom.isInteractive(h("a", { href: "/" })), true);
    assert.equal(dom.isInteractive(h("a")), false);
    assert.equal(dom.isInteractive(h("div", { onclick: "go()" })), true);
    assert.equal(dom.isInteractive(h("div", { tabindex: "0" })), true);
    assert.equal(dom.isInteractive(h("div", { tabindex: "-1" })), false);
    assert.equal(dom.isInteractive(h("div", { role: "button" })), true);
    assert.equal(dom.isInteractive(h("div", { contenteditable: "true" })), true);
    assert.equal(dom.isSecretField(h("input", { type: "password" })), true);
    assert.equal(dom.isSecretField(h("input", { autocomplete: "cc-number" })), true);
    assert.equal(dom.isSecretField(h("input", { type: "email" })), false);
  });

  test("visibility", () => {
    const env = fakeEnv();
    assert.equal(dom.isVisible(h("div"), env), true);
    assert.equal(dom.isVisible(h("div", { style: { visibility: "hidden" } }), env), false);
    assert.equal(dom.isVisible(h("div", { box: { width: 0 } }), env), false);
    assert.equal(dom.intersectsViewport({ x: 10, y: 700, width: 5, height: 5 }, env), false);
  });
});

describe("refs and render serial", () => {
  test("the same element keeps its ref", () => {
    const refs = page.refs.createRefRegistry();
    const a = h("button");
    const b = h("button");
    assert.equal(refs.refFor(a), "ref_1");
    assert.equal(refs.refFor(b), "ref_2");
    assert.equal(refs.refFor(a), "ref_1");
    assert.equal(refs.resolve("ref_2"), b);
  });

  test("the serial advances once per busy 500 ms window", () => {
    const clock = { t: 0 };
    const refs = page.refs.createRefRegistry({ now: () => clock.t });
    refs.noteMutations(2);
    assert.equal(refs.serial(), 0);
    refs.noteMutations(1);
    assert.equal(refs.serial(), 1);
    refs.noteMutations(10);
    assert.equal(refs.serial(), 1);
    clock.t = 600;
    refs.noteMutations(1);
    clock.t = 700;
    refs.noteMutations(1);
    assert.equal(refs.serial(), 1);
    clock.t = 1200;
    refs.noteMutations(3);
    assert.equal(refs.serial(), 2);
  });

  test("unknown, malformed and stale refs give corrective errors", () => {
    const clock = { t: 0 };
    const refs = page.refs.createRefRegistry({ now: () => clock.t });
    const el = h("button");
    const ref = refs.refFor(el);
    assert.throws(() => refs.resolve("ref_42"), (e) => e.code === "ref_not_found" && /read_page or find for fresh refs/.test(e.message));
    assert.throws(() => refs.resolve("#go"), (e) => e.code === "bad_ref");
    el.isConnected = false;
    assert.throws(() => refs.resolve(ref), (e) => e.code === "stale_ref" && /removed/.test(e.message));
    refs.noteMutations(5);
    assert.throws(
      () => refs.resolve(ref),
      (e) => e.code === "stale_ref" && /render serial 0 -> 1/.test(e.message),
    );
  });
});

function signupPage() {
  const name = new FakeInput("input", { id: "name", type: "text", placeholder: "Name", box: { top: 40 } });
  const pw = new FakeInput("input", { type: "password", value: "hunter2", box: { top: 80 } });
  const far = h("button", { box: { top: 3000 } }, "Far away");
  const hidden = h("div", { style: { display: "none" } }, h("button", {}, "Ghost button"));
  const label = h("label", { for: "name" }, "Your name");
  name.labels = [label];
  label.control = name;
  const body = h(
    "body",
    {},
    h("h1", {}, "Sign up"),
    h("form", {}, label, name, pw, new FakeSelect({}, [["r", "Red"], ["g", "Green"]]), h("a", { href: "/help" }, "Help")),
    hidden,
    far,
  );
  return { doc: fakeDocument(body), name, pw, far, label };
}

describe("read_page", () => {
  test("outline lines with roles, names, refs and attributes", () => {
    const { doc } = signupPage();
    const out = tree.readPage(doc, {}, context());
    assert.equal(
      out.text,
      [
        'heading "Sign up" [ref_1] level=1',
        "form [ref_2]",
        ' label "Your name" [ref_3]',
        ' textbox "Your name" [ref_4] type="text" placeholder="Name"',
        ' textbox [ref_5] secret_value="hunter2" type="password"',
        ' combobox [ref_6] value="Red"',
        '  option "Red" (selected) value="r"',
        '  option "Green" value="g"',
        ' link "Help" [ref_7] href="/help"',
        'button "Far away" [ref_8]',
        "Viewport: 800x600",
      ].join("\n"),
    );
    assert.equal(out.shown, 8);
    assert.equal(out.truncated, false);
    assert.deepEqual(plain(out.viewport), { width: 800, height: 600 });
  });

  test("interactive filter keeps viewport-visible interactive elements", () => {
    const { doc } = signupPage();
    const out = tree.readPage(doc, { filter: "interactive" }, context());
    assert.ok(!out.text.includes("Far away"));
    assert.ok(!out.text.includes("heading"));
    assert.match(out.text, /^textbox "Your name"/);
    assert.match(out.text, /interactive filter/);
  });

  test("depth bound and subtree reads by ref", () => {
    const { doc } = signupPage();
    const ctx = context();
    const shallow = tree.readPage(doc, { depth: 1 }, ctx);
    assert.ok(!shallow.text.includes("textbox"));
    assert.ok(shallow.text.includes("form [ref_2]"));
    const sub = tree.readPage(doc, { ref_id: "ref_2" }, ctx);
    assert.match(sub.text, /^form \[ref_2\]\n label/);
    assert.ok(!sub.text.includes("Sign up"));
  });

  test("max_chars truncation is reported honestly", () => {
    const body = h("body", {}, ...Array.from({ length: 100 }, (_, i) => h("button", {}, `Button number ${i}`)));
    const out = tree.readPage(fakeDocument(body), { max_chars: 400 }, context());
    assert.equal(out.truncated, true);
    assert.ok(out.text.length <= 400, `length ${out.text.length}`);
    assert.match(out.text, new RegExp(`\\[showing ${out.shown} of 100 elements: output reached max_chars=400`));
    assert.ok(out.text.endsWith("Viewport: 800x600"));
    // The smallest max_chars still shows the page's first element, not only the footers.
    const least = tree.readPage(fakeDocument(body), { max_chars: 200 }, context());
    assert.ok(least.shown >= 1 && least.text.startsWith('button "Button number 0"'), least.text);
    assert.ok(least.text.length <= 200, `length ${least.text.length}`);
  });
});

describe("find_text", () => {
  test("ranking", () => {
    assert.equal(find.rankMatch("Sign in", { name: "sign in" }), 0);
    assert.equal(find.rankMatch("sign", { name: "Sign in" }), 1);
    assert.equal(find.rankMatch("in sign", { name: "Sign in now" }), 2);
    assert.equal(find.rankMatch("email", { name: "", searchText: "textbox  Email address" }), 3);
    assert.equal(find.rankMatch("logout", { name: "Sign in", searchText: "button Sign in" }), null);
    assert.equal(find.rankMatch("  ", { name: "x" }), null);
    assert.equal(find.normalize("Sign-In!  Now"), "sign in now");
    // Accents, width and case fold away, as a reader matches letters.
    assert.equal(find.rankMatch("Zurich", { name: "Z\u00fcrich" }), 0);
    // Words match whole words: a word inside a longer one is no match ("log in" is not "Blog
    // index", nor "cart" "Cartoons"), except in scripts written without spaces.
    assert.equal(find.rankMatch("strasse", { name: "Hauptstra\u00dfe" }), null);
    assert.equal(find.rankMatch("log in", { name: "Blog index", searchText: "link Blog index a" }), null);
    assert.equal(find.rankMatch("sign in", { name: "Design inspiration", searchText: "link Design inspiration a" }), null);
    assert.equal(find.rankMatch("cart", { name: "Cartoons", searchText: "link Cartoons a" }), null);
    assert.equal(find.rankMatch("cart", { name: "Cart (2)", searchText: "link Cart 2 a" }), 1);
    assert.equal(find.rankMatch("\u691c\u7d22", { name: "\u30b5\u30a4\u30c8\u5185\u691c\u7d22" }), 2);
    assert.equal(find.rankMatch("hauptstrasse", { name: "Hauptstra\u00dfe" }), 0);
    assert.equal(find.rankMatch("Fullwidth", { name: "\uff26\uff55\uff4c\uff4c\uff57\uff49\uff44\uff54\uff48" }), 0);
    assert.equal(find.rankMatch("Krako\u0301w", { name: "Krak\u00f3w" }), 0);
  });

  test("ties prefer interactive elements, then document order", () => {
    const sorted = find.sortMatches([
      { rank: 0, interactive: false, order: 1, id: "label" },
      { rank: 0, interactive: true, order: 2, id: "input" },
      { rank: 1, interactive: true, order: 0, id: "other" },
      { rank: 0, interactive: true, order: 3, id: "input2" },
    ]);
    assert.deepEqual(plain(sorted.map((m) => m.id)), ["input", "input2", "label", "other"]);
  });

  test("finds visible elements with refs and viewport centers", () => {
    const { doc } = signupPage();
    const out = find.findText(doc, { query: "your name" }, context());
    assert.equal(out.results[0].role, "textbox");
    assert.equal(out.results[0].ref, "ref_1");
    assert.deepEqual({ x: out.results[0].x, y: out.results[0].y }, { x: 50, y: 50 });
    assert.equal(out.results[0].matchRank, 0);
    assert.equal(out.results[1].role, "label");
    assert.equal(out.more, false);
    const ghost = find.findText(doc, { query: "Ghost button" }, context());
    assert.equal(ghost.total, 0);
  });

  test("limits results and refuses empty queries", () => {
    const body = h("body", {}, ...Array.from({ length: 30 }, (_, i) => h("button", {}, `Save ${i}`)));
    const out = find.findText(fakeDocument(body), { query: "save", limit: 5 }, context());
    assert.equal(out.results.length, 5);
    assert.equal(out.total, 30);
    assert.equal(out.more, true);
    assert.throws(() => find.findText(fakeDocument(body), { query: " " }, context()), (e) => e.code === "bad_args");
  });
});

describe("form_input", () => {
  test("coercions", () => {
    assert.equal(forms.toBoolean(true), true);
    assert.equal(forms.toBoolean("on"), true);
    assert.equal(forms.toBoolean("No"), false);
    assert.equal(forms.toBoolean(0), false);
    assert.equal(forms.toBoolean("maybe"), null);
    const options = [{ value: "r", text: " Red " }, { value: "g", text: "Green" }];
    assert.equal(forms.matchOption(options, "g"), 1);
    assert.equal(forms.matchOption(options, "red"), 0);
    assert.equal(forms.matchOption(options, "blue"), -1);
    // The same letters in another Unicode form (a combining accent) name the same option.
    const cities = [{ value: "w", text: "Warszawa" }, { value: "k", text: "Krak\u00f3w" }];
    assert.equal(forms.matchOption(cities, "Krako\u0301w"), 1);
    // Plain letters pick the one option they fold to, as find and wait_for match text.
    assert.equal(forms.matchOption(cities, "krakow"), 1);
    assert.equal(forms.matchOption([{ value: "z", text: "Z\u00fcrich" }], "Zurich"), 0);
    // Two options that fold alike: neither is guessed; an exact one still wins.
    const alike = [{ value: "1", text: "R\u00e9sum\u00e9" }, { value: "2", text: "Resume" }];
    assert.equal(forms.matchOption(alike, "resume"), 1);
    assert.equal(forms.matchOption(alike, "R\u00c9SUM\u00c9"), 0);
    assert.equal(forms.matchOption([alike[0], { value: "3", text: "R\u00e8sum\u00e8" }], "resume"), -1);
  });

  test("text input uses the prototype setter and fires input then change", () => {
    const el = new FakeInput("input", { type: "text" });
    let instanceSetterCalls = 0;
    // A framework-style instance override must be bypassed.
    Object.defineProperty(el, "value", {
      configurable: true,
      get: () => el._value,
      set: () => instanceSetterCalls++,
    });
    const out = forms.setFormValue(el, "Ada", fakeEnv());
    assert.deepEqual(plain(out), { kind: "input", value: "Ada" });
    assert.equal(el._value, "Ada");
    assert.equal(instanceSetterCalls, 0);
    assert.deepEqual(el.events, ["input", "change"]);
    assert.ok(el.focused);
  });

  test("labels resolve to their control and secrets are not echoed", () => {
    const { label, name, pw } = signupPage();
    assert.equal(forms.setFormValue(label, "Bo", fakeEnv()).value, "Bo");
    assert.equal(name._value, "Bo");
    const out = forms.setFormValue(pw, "s3cret", fakeEnv());
    assert.deepEqual(plain(out), { kind: "input", secret: true });
  });

  test("checkboxes click only when the state differs; radios cannot be unchecked", async () => {
    const box = new FakeInput("input", { type: "checkbox" });
    assert.equal((await forms.setFormValue(box, "true", fakeEnv())).value, true);
    assert.deepEqual(box.events, ["click", "input", "change"]);
    await forms.setFormValue(box, true, fakeEnv());
    assert.equal(box.events.length, 3);
    const radio = new FakeInput("input", { type: "radio" });
    radio.checked = true;
    assert.throws(() => forms.setFormValue(radio, false, fakeEnv()), (e) => e.code === "radio_uncheck");
    assert.throws(() => forms.setFormValue(box, "perhaps", fakeEnv()), (e) => e.code === "bad_value");
  });

  test("a checkbox the page keeps as it was is an error, read once the page has had its turn", async () => {
    const prevented = new FakeInput("input", { type: "checkbox" });
    prevented.click = () => prevented.events.push("click"); // the page's handler prevents it
    await assert.rejects(forms.setFormValue(prevented, true, fakeEnv()), (e) => e.code === "value_kept" && /clicked and is still unchecked/.test(e.message));
    const reverted = new FakeInput("input", { type: "checkbox" });
    reverted.checked = true;
    const toggle = reverted.click.bind(reverted);
    reverted.click = () => {
      toggle();
      queueMicrotask(() => (reverted.checked = true)); // a component renders its own state back
    };
    await assert.rejects(forms.setFormValue(reverted, false, fakeEnv()), /still checked/);
  });

  test("a list the page sets back is an error naming what it shows", async () => {
    const sel = new FakeSelect({}, [["r", "Red"], ["g", "Green"]]);
    const dispatch = sel.dispatchEvent.bind(sel);
    sel.dispatchEvent = (event) => {
      dispatch(event);
      if (event.type === "change") setTimeout(() => (sel.selectedIndex = 0), 0);
    };
    await assert.rejects(
      forms.setFormValue(sel, "Green", fakeEnv()),
      (e) => e.code === "value_kept" && e.message === 'The list was set to "Green" and shows "Red": the page\'s own script set it back',
    );
  });

  test("selects match by value or text", async () => {
    const sel = new FakeSelect({}, [["r", "Red"], ["g", "Green"]]);
    const out = await forms.setFormValue(sel, "Green", fakeEnv());
    assert.deepEqual(plain(out), { kind: "select", value: "g", text: "Green" });
    assert.equal(sel.selectedIndex, 1);
    assert.deepEqual(sel.events, ["input", "change"]);
    assert.throws(() => forms.setFormValue(sel, "Blue", fakeEnv()), (e) => e.code === "no_such_option" && /"Red", "Green"/.test(e.message));
  });

  test("disabled, file and non-control elements are refused", () => {
    const dis = new FakeInput("input", {});
    dis.disabled = true;
    assert.throws(() => forms.setFormValue(dis, "x", fakeEnv()), (e) => e.code === "disabled");
    assert.throws(() => forms.setFormValue(new FakeInput("input", { type: "file" }), "x", fakeEnv()), (e) => e.code === "unsupported_control");
    assert.throws(() => forms.setFormValue(new FakeElement("div"), "x", fakeEnv()), (e) => e.code === "not_a_control");
  });
});

describe("narrate", () => {
  test("auto puts the caption away from the last action; an explicit edge is kept", () => {
    const { narrate } = page;
    assert.equal(narrate.chooseEdge("auto", 800, null), "bottom");
    assert.equal(narrate.chooseEdge("auto", 800, 700), "top");
    assert.equal(narrate.chooseEdge("auto", 800, 100), "bottom");
    assert.equal(narrate.chooseEdge("bottom", 800, 700), "bottom");
    assert.equal(narrate.chooseEdge("top", 800, null), "top");
  });

  test("a caption coming or going is not counted as a page change", () => {
    const { narrate } = page;
    const caption = { nodeName: "GHOSTLIGHT-NARRATION" };
    const other = { nodeName: "DIV" };
    assert.equal(narrate.isOwnMutation({ type: "childList", addedNodes: [caption], removedNodes: [] }), true);
    assert.equal(narrate.isOwnMutation({ type: "childList", addedNodes: [], removedNodes: [caption] }), true);
    assert.equal(narrate.isOwnMutation({ type: "childList", addedNodes: [caption, other], removedNodes: [] }), false);
    assert.equal(narrate.isOwnMutation({ type: "attributes", addedNodes: [], removedNodes: [] }), false);
    assert.equal(narrate.isOwnMutation({ type: "childList", addedNodes: [{ nodeName: "GHOSTLIGHT-CUE" }], removedNodes: [] }), true);
  });
});

describe("form_fields", () => {
  // A labelled control, its label pointing back at it as the DOM does.
  function labelled(text, control) {
    const label = h("label", {}, text, control);
    control.labels = [label];
    return label;
  }

  test("a label's words leave out the text of controls inside it", () => {
    const select = new FakeSelect({ id: "country" }, [["fr", "France"], ["jp", "Japan"]]);
    assert.equal(forms.labelText(h("label", {}, "Country ", select, h("b", {}, "(required)"))), "Country (required)");
  });

  test("controls are grouped by their form with its submit candidates; formless ones come last", () => {
    const email = new FakeInput("input", { type: "email", name: "email" });
    const secret = new FakeInput("input", { type: "password" });
    const search = new FakeInput("input", { name: "q", placeholder: "Search" });
    const hidden = new FakeInput("input", { type: "hidden", name: "csrf" });
    const send = h("button", { type: "submit" }, "Create account");
    const help = h("button", { type: "button" }, "Help");
    const form = h("form", { id: "signup" }, labelled("Email", email), labelled("Password", secret), hidden, send, help);
    for (const el of [email, secret, hidden, send, help]) el.form = form;
    const doc = fakeDocument(h("body", {}, form, search));
    const { forms: found } = plain(forms.formFields(doc, context(), fakeEnv()));
    assert.deepEqual(found.map((f) => f.fields.map((x) => x.label || x.placeholder)), [["Email", "Password"], ["Search"]]);
    const [signup, loose] = found;
    assert.equal(signup.name, "signup");
    assert.equal(signup.fields[0].type, "email");
    assert.equal(signup.fields[1].secret, true);
    assert.deepEqual(signup.submits.map((s) => [s.name, s.native, s.named]), [["Create account", true, false]]);
    assert.equal(loose.ref, null);
  });
});
