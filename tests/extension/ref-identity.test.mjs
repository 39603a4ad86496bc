// A ref stands for the element as the tools showed it (role and accessible name when issued):
// a node the page relabels in place is refused as stale, never acted on under the old ref,
// while the changes an agent's own input makes to a field or a checkbox keep the ref.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FakeInput, fakeDocument, h, loadPageScripts, pageContext } from "./helpers/fake-dom.mjs";

const page = loadPageScripts();

function registry() {
  return page.refs.createRefRegistry({ now: () => 0 });
}

const RELABELLED =
  'ref_1 was button "Keep" when issued; the element is now button "Delete". Nothing was done.' +
  " Get a fresh ref (find / read_page) before acting.";

describe("ref identity", () => {
  test("the same role and name resolve; the node relabelled in place is refused, naming both", () => {
    const refs = registry();
    const first = h("button", {}, "Keep");
    fakeDocument(h("body", {}, first, h("button", {}, "Delete")));
    const ref = refs.refFor(first);
    assert.equal(ref, "ref_1");
    first.attrs.class = "busy"; // other changes are no part of what the ref names
    assert.equal(refs.resolve(ref), first);
    assert.equal(refs.refFor(first), ref);
    // The same words in another case or spacing (text-transform applies only while it shows).
    first.textContent = "  KEEP ";
    assert.equal(refs.resolve(ref), first);
    first.textContent = "Delete"; // a non-keyed list re-render: same node, another control
    assert.throws(
      () => refs.resolve(ref),
      (e) => e.code === "stale_ref" && e.message === RELABELLED,
    );
    // Removed, it is reported as removed (what it is now no longer matters).
    first.isConnected = false;
    assert.throws(() => refs.resolve(ref), (e) => e.code === "stale_ref" && /removed from the page/.test(e.message));
  });

  test("a changed role is refused, and an unnamed element says so", () => {
    const refs = registry();
    const el = h("div", { role: "button", "aria-label": "Open" });
    const ref = refs.refFor(el);
    el.attrs.role = "link";
    assert.throws(
      () => refs.resolve(ref),
      (e) => e.code === "stale_ref" && e.message.startsWith(`${ref} was button "Open" when issued; the element is now link "Open".`),
    );
    const icon = h("button");
    const iconRef = refs.refFor(icon);
    icon.append("Remove");
    assert.throws(
      () => refs.resolve(iconRef),
      (e) => e.code === "stale_ref" && e.message.startsWith(`${iconRef} was button (no name) when issued; the element is now button "Remove".`),
    );
  });

  test("the names in the refusal are quoted safely and kept short", () => {
    const refs = registry();
    const el = h("button", {}, 'Say "hi"');
    const ref = refs.refFor(el);
    el.textContent = "x".repeat(150);
    assert.throws(
      () => refs.resolve(ref),
      (e) => e.message.startsWith(`${ref} was button "Say \\"hi\\"" when issued; the element is now button "${"x".repeat(79)}…".`),
    );
  });

  test("issuing a ref for a relabelled element gives a new ref; the old one stays refused", () => {
    const refs = registry();
    const follow = h("button", {}, "Follow");
    const old = refs.refFor(follow);
    follow.textContent = "Following"; // the page's answer to the agent's own click
    const fresh = refs.refFor(follow); // e.g. the receipt's focus line, or a new find
    assert.notEqual(fresh, old);
    assert.equal(refs.resolve(fresh), follow);
    assert.throws(
      () => refs.resolve(old),
      (e) => e.code === "stale_ref" && /was button "Follow" when issued; the element is now button "Following"/.test(e.message),
    );
    assert.equal(refs.refFor(follow), fresh);
  });

  test("typing into a labelled or placeholder field keeps its ref; a relabelled field does not", () => {
    const refs = registry();
    const email = new FakeInput("input", { id: "email", type: "text" });
    email.labels = [h("label", {}, "Email")];
    const search = new FakeInput("input", { placeholder: "Search" });
    const notes = new FakeInput("textarea", { "aria-label": "Notes" });
    const refsOf = [email, search, notes].map((el) => refs.refFor(el));
    email.value = "ada@example.test";
    search.value = "lanterns";
    notes.value = "first line";
    notes.append("first line"); // a textarea's text is its value, not its name
    assert.deepEqual(refsOf.map((ref) => refs.resolve(ref)), [email, search, notes]);
    assert.equal(refs.refFor(email), refsOf[0]);
    // A re-rendered list of fields: the same input now belongs to another row.
    const qty = new FakeInput("input", { "aria-label": "Quantity for Apples" });
    const qtyRef = refs.refFor(qty);
    qty.attrs["aria-label"] = "Quantity for Pears";
    assert.throws(
      () => refs.resolve(qtyRef),
      (e) => e.code === "stale_ref" && /was textbox "Quantity for Apples" when issued; the element is now textbox "Quantity for Pears"/.test(e.message),
    );
  });

  test("toggling a checkbox or an ARIA checkbox keeps its ref; relabelling it does not", () => {
    const refs = registry();
    const box = new FakeInput("input", { id: "news", type: "checkbox" });
    box.labels = [h("label", {}, "Newsletter")];
    const aria = h("div", { role: "checkbox", "aria-checked": "false" }, "Remember me");
    const [boxRef, ariaRef] = [refs.refFor(box), refs.refFor(aria)];
    box.click();
    aria.attrs["aria-checked"] = "true";
    assert.equal(refs.resolve(boxRef), box);
    assert.equal(refs.resolve(ariaRef), aria);
    aria.textContent = "Delete my account";
    assert.throws(() => refs.resolve(ariaRef), (e) => e.code === "stale_ref" && /was checkbox "Remember me" when issued/.test(e.message));
  });

  test("typing into editable content named by its own text keeps its ref", () => {
    const refs = registry();
    const cell = h("td", { contenteditable: "true" }, "old note");
    const ref = refs.refFor(cell);
    cell.textContent = "new note";
    assert.equal(refs.resolve(ref), cell);
    // An authored name is not what typing changes: it is still compared.
    const item = h("li", { contenteditable: "true", "aria-label": "Note for Apples" }, "text");
    const itemRef = refs.refFor(item);
    item.attrs["aria-label"] = "Note for Pears";
    assert.throws(() => refs.resolve(itemRef), (e) => e.code === "stale_ref" && /"Note for Pears"/.test(e.message));
  });

  test("find's ref and an action's check agree: relabelled after find is refused", () => {
    const ctx = pageContext(page);
    const keep = h("button", {}, "Keep");
    const doc = fakeDocument(h("body", {}, h("button", {}, "Delete"), keep));
    const [hit] = page.find.findText(doc, { query: "Keep" }, ctx).results;
    assert.equal(hit.name, "Keep");
    assert.equal(ctx.refs.resolve(hit.ref), keep);
    keep.textContent = "Delete";
    assert.throws(() => ctx.refs.resolve(hit.ref), (e) => e.code === "stale_ref" && /was button "Keep" when issued/.test(e.message));
    // read_page shows it again, under a new ref that resolves to it.
    const tree = page.tree.readPage(doc, {}, ctx).text;
    const shownRefs = [...tree.matchAll(/button "Delete" \[(ref_\d+)\]/g)].map((m) => m[1]);
    assert.equal(shownRefs.length, 2, tree);
    assert.ok(!shownRefs.includes(hit.ref), tree);
    assert.ok(shownRefs.some((ref) => ctx.refs.resolve(ref) === keep), tree);
  });
});
