import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FakeInput, fakeDocument, fakeEnv, h, loadPageScripts, windowFor } from "./helpers/fake-dom.mjs";

const page = loadPageScripts({ location: { href: "http://shop.test/order" } });
const plain = (value) => JSON.parse(JSON.stringify(value));
const { locator } = page;

function labelled(control, words) {
  const label = h("label", {}, words);
  control.labels = [label];
  return label;
}

describe("record_actions locators", () => {
  test("a button by its role and name, with a short CSS path", () => {
    const button = h("button", {}, "Place order");
    const form = h("form", { id: "order" }, h("p", {}, "x"), h("p", {}, button));
    fakeDocument(h("body", {}, form));
    const out = plain(locator.describe(button));
    assert.equal(out.role, "button");
    assert.equal(out.name, "Place order");
    assert.equal(out.text, "Place order");
    assert.equal(out.css, "#order > p:nth-of-type(2) > button");
    assert.deepEqual(out.frames, []);
    assert.equal(out.secret, false);
  });

  test("a field by its label, never by its value; a password field says only that it is one", () => {
    const name = new FakeInput("input", { id: "who", value: "Ada" });
    const secret = new FakeInput("input", { type: "password", value: "hunter2" });
    const body = h("body", {}, labelled(name, "Full name"), name, labelled(secret, "Password"), secret);
    fakeDocument(body);
    const field = plain(locator.describe(name));
    assert.equal(field.label, "Full name");
    assert.equal(field.text, "");
    assert.ok(!JSON.stringify(field).includes("Ada"));
    const hidden = plain(locator.describe(secret));
    assert.equal(hidden.secret, true);
    assert.equal(hidden.type, "password");
    assert.ok(!JSON.stringify(hidden).includes("hunter2"));
  });

  test("a checkbox carries its state before the action", () => {
    const box = new FakeInput("input", { type: "checkbox" });
    box.checked = true;
    fakeDocument(h("body", {}, labelled(box, "Gift wrap"), box));
    assert.equal(locator.describe(box).checked, true);
  });

  test("an element in a same-origin frame names the frames around it", () => {
    const frame = h("iframe", { id: "pay" });
    windowFor(fakeDocument(h("body", {}, frame)));
    const button = h("button", {}, "Pay");
    windowFor(fakeDocument(h("body", {}, button)), frame);
    assert.deepEqual(plain(locator.describe(button).frames), ["#pay"]);
  });

  test("what the page shows: address, title and its first visible heading", () => {
    const doc = fakeDocument(h("body", {}, h("h1", { style: { display: "none" } }, "Hidden"), h("h2", {}, "Thanks, Ada")), { title: "Done" });
    assert.deepEqual(plain(locator.pageState(doc, fakeEnv())), {
      url: "http://shop.test/order",
      title: "Done",
      shown: { role: "heading", text: "Thanks, Ada" },
    });
  });
});
