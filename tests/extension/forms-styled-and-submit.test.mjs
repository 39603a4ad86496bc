import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FakeInput, fakeDocument, fakeEnv, h, loadPageScripts } from "./helpers/fake-dom.mjs";

const page = loadPageScripts();
const plain = (value) => JSON.parse(JSON.stringify(value));
const { forms } = page;

function context() {
  return { env: fakeEnv(), refs: page.refs.createRefRegistry({ now: () => 0 }) };
}

// A label for `control` as the DOM ties them: control.labels, and a click on the label
// passed on to its control by the browser.
function labelFor(control, ...text) {
  const label = h("label", {}, ...text);
  control.labels = [...(control.labels || []), label];
  label.click = () => {
    label.events.push("click");
    control.click();
  };
  return label;
}

describe("styled checkboxes and radios", () => {
  test("a hidden box whose label is shown is listed; one with nothing shown is not", () => {
    const gift = new FakeInput("input", { type: "checkbox", id: "gift", style: { display: "none" } });
    const terms = new FakeInput("input", { type: "checkbox", box: { width: 0, height: 0 } });
    const ghost = new FakeInput("input", { type: "checkbox", style: { display: "none" } });
    const ghostLabel = labelFor(ghost, "Ghost");
    ghostLabel.style = { display: "none", visibility: "visible" };
    const form = h("form", {}, gift, labelFor(gift, "Gift wrap"), labelFor(terms, terms, h("span", {}, " I accept the terms")), ghost, ghostLabel);
    const { forms: found } = plain(forms.formFields(fakeDocument(h("body", {}, form)), context(), fakeEnv()));
    assert.deepEqual(found[0].fields.map((f) => [f.type, f.label]), [["checkbox", "Gift wrap"], ["checkbox", "I accept the terms"]]);
  });

  test("a hidden box is set by clicking its shown label, as a person does; a shown one directly", async () => {
    const gift = new FakeInput("input", { type: "checkbox", style: { display: "none" } });
    const label = labelFor(gift, "Gift wrap");
    const out = await forms.setFormValue(gift, true, fakeEnv());
    assert.deepEqual(plain(out), { kind: "checkbox", value: true });
    assert.equal(gift.checked, true);
    assert.deepEqual(label.events, ["click"]);
    const shown = new FakeInput("input", { type: "checkbox" });
    const shownLabel = labelFor(shown, "Shown");
    await forms.setFormValue(shown, true, fakeEnv());
    assert.deepEqual(shownLabel.events, []);
    assert.equal(shown.checked, true);
  });

  test("a label whose click the page prevents is an error naming the label", async () => {
    const gift = new FakeInput("input", { type: "checkbox", style: { display: "none" } });
    labelFor(gift, "Gift wrap").click = () => {}; // the page's handler prevents it
    await assert.rejects(forms.setFormValue(gift, true, fakeEnv()), (e) => e.code === "value_kept" && /label was clicked .* is still unchecked/.test(e.message));
  });

  test("a radio group is named by the legend of the fieldset holding only it", () => {
    const radio = (name, value, text) => {
      const input = new FakeInput("input", { type: "radio", name, value });
      return labelFor(input, input, ` ${text}`);
    };
    const delivery = h("fieldset", {}, h("legend", {}, "Delivery"), radio("d", "std", "Standard"), radio("d", "exp", "Express"));
    const mixed = h("fieldset", {}, h("legend", {}, "Options"), radio("size", "s", "Small"), radio("colour", "r", "Red"));
    const group = h("div", { role: "radiogroup", "aria-label": "Payment" }, radio("pay", "card", "Card"));
    const doc = fakeDocument(h("body", {}, h("form", {}, delivery, mixed, group)));
    const { forms: found } = plain(forms.formFields(doc, context(), fakeEnv()));
    assert.deepEqual(found[0].fields.map((f) => [f.name, f.label, f.group]), [
      ["d", "Standard", "Delivery"],
      ["d", "Express", "Delivery"],
      ["size", "Small", undefined],
      ["colour", "Red", undefined],
      ["pay", "Card", "Payment"],
    ]);
  });
});

// A form that records its listeners and dispatches submit events as the browser does: every
// listener runs, then the event's defaultPrevented is final.
function fakeForm() {
  const form = h("form");
  const listeners = [];
  form.addEventListener = (type, fn) => listeners.push({ type, fn });
  form.removeEventListener = (type, fn) => listeners.splice(listeners.findIndex((l) => l.fn === fn), 1);
  form.submitEvent = (pageCancels) => {
    const event = { type: "submit", target: form, defaultPrevented: false };
    for (const l of [...listeners]) if (l.type === "submit") l.fn(event);
    if (pageCancels) event.defaultPrevented = true; // the page's own handler, after ours
  };
  form.listeners = listeners;
  return form;
}

describe("submit watch", () => {
  function armed() {
    const form = fakeForm();
    const send = h("button", { type: "submit" }, "Send");
    send.form = form;
    const watch = plain(forms.watchSubmit(send, context()));
    assert.equal(watch.armed, true);
    return { form, token: watch.token };
  }

  test("a submit the page lets through is sent; one it cancels is said cancelled", () => {
    const sent = armed();
    sent.form.submitEvent(false);
    assert.deepEqual(plain(forms.submitSeen(sent.token)), { known: true, submitEvent: true, cancelled: false });
    const cancelled = armed();
    cancelled.form.submitEvent(true);
    assert.deepEqual(plain(forms.submitSeen(cancelled.token)), { known: true, submitEvent: true, cancelled: true });
  });

  test("no submit event is said so; the watch is read once and then stops listening", () => {
    const { form, token } = armed();
    assert.deepEqual(plain(forms.submitSeen(token)), { known: true, submitEvent: false });
    assert.equal(form.listeners.length, 0);
    assert.deepEqual(plain(forms.submitSeen(token)), { known: false });
  });

  test("a control in no form arms nothing", () => {
    assert.deepEqual(plain(forms.watchSubmit(h("button", {}, "Save"), context())), { armed: false });
  });
});
