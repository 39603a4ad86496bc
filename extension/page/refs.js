// Element refs ("ref_N") and the render serial. A ref is held weakly and remembers the
// render serial it was (last) issued under, so a ref that stops resolving after the page
// re-rendered is reported as stale rather than simply "not found".
// The serial advances once per 500 ms window that saw at least 3 DOM mutations.
//
// A ref also stands for the element as the tools showed it: its role and accessible name
// when the ref was issued (read with dom's roleOf/accessibleName, as find and read_page show
// them). A page that re-renders in place (a non-keyed React/Vue list) keeps the node and
// relabels it, so a node that is still connected may no longer be the control the ref named.
// resolve() refuses such a ref as stale, naming what it was and what it is now: acting on
// another control than the one shown is never done under the old ref.
//
// The rule:
//   - the role is always compared;
//   - the name is compared as a reader reads it (whatever its case and spacing), except
//     for editable content named from its own text (a contenteditable <td>, <li> or
//     role=gridcell without an authored name): typing into it is what renames it. A field's
//     name comes from its label, placeholder or aria-label, never from its value, and a
//     checkbox's checked state is no part of its name, so typing into a field or toggling a
//     box keeps its ref. A label the page changes in answer to the agent's own click
//     ("Follow" -> "Following") does not: the ref named "Follow", and a second click would
//     press "Following". That is refused with the new name; the receipt after the click
//     usually lists the element again under a fresh ref, and find or read_page give one.
//   - Issuing a ref for an element whose role or name no longer match its ref's record gives
//     it a new ref (the old one keeps its record and stays refused), so an element shown
//     under a new name is never acted on through a ref that was shown with the old one.
//
// Ref numbers are unique across the browser, not only within one document: the worker hands
// each request the highest number any page has issued so far (raiseFloor), and every new
// document counts on from there. A ref read on another page, before a navigation or reload or
// in another tab, is therefore never found here, and is never taken for one of this page's
// elements that happens to share its number.
//
// Reads through a ref (read_page ref_id, element_rect, form_validity, the observation taken
// before an action) go through the same resolve() and the same check: content.js routes reads
// and actions alike, and read_page follows its ref_id read with element_rect. A read refused
// this way reads nothing and says what the element is now; it costs one find or read_page and
// never shows another element's contents as those of the element the agent holds a ref to.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.refs) return;

  const WINDOW_MS = 500;
  const MUTATIONS_PER_RENDER = 3;
  const SHOWN_NAME_CHARS = 80;

  // The element's role and name as the tools show them (find's describeElement, read_page).
  function identityOf(el) {
    const dom = ns.dom;
    return { role: dom.roleOf(el) || dom.tagOf(el).toLowerCase(), name: dom.accessibleName(el) };
  }

  // Whether typing into the element renames it: editable content whose name is its own text.
  function namedByTyping(el) {
    const dom = ns.dom;
    const editable = el.isContentEditable === true || dom.attr(el, "contenteditable").toLowerCase() === "true";
    return editable && dom.namedFromContent(el) && !dom.hasAuthoredName(el);
  }

  // Names compare as a reader reads them: the same words, whatever their case and spacing
  // (innerText applies text-transform while an element shows, and not while it is hidden).
  function sameIdentity(record, now, el) {
    if (record.role !== now.role) return false;
    return readAlike(record.name) === readAlike(now.name) || namedByTyping(el);
  }

  function readAlike(name) {
    return String(name || "").toLowerCase().replace(/\s+/g, " ").trim();
  }

  // `button "Keep"`, or `button (no name)`.
  function shown({ role, name }) {
    if (!name) return `${role} (no name)`;
    const clipped = name.length > SHOWN_NAME_CHARS ? `${name.slice(0, SHOWN_NAME_CHARS - 1)}…` : name;
    return `${role} "${clipped.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  }

  function createRefRegistry({ now = () => Date.now() } = {}) {
    let counter = 0;
    let firstIssued = null; // the number of the first ref this document issued
    let serial = 0;
    let windowStart = -Infinity;
    let windowCount = 0;
    let advancedThisWindow = false;
    const byRef = new Map(); // ref -> {target: WeakRef, serial, role, name}
    const byElement = new WeakMap(); // element -> its latest ref

    function refFor(el) {
      const seen = identityOf(el);
      let ref = byElement.get(el);
      const entry = ref ? byRef.get(ref) : null;
      if (entry && sameIdentity(entry, seen, el)) {
        entry.serial = serial;
        return ref;
      }
      counter += 1;
      if (firstIssued === null) firstIssued = counter;
      ref = `ref_${counter}`;
      byElement.set(el, ref);
      byRef.set(ref, { target: new WeakRef(el), serial, role: seen.role, name: seen.name });
      return ref;
    }

    function resolve(ref) {
      const PageError = ns.PageError;
      if (typeof ref !== "string" || !/^ref_\d+$/.test(ref)) {
        throw new PageError(`"${ref}" is not an element ref (expected ref_N)`, "bad_ref");
      }
      const entry = byRef.get(ref);
      if (!entry) {
        const number = Number(ref.slice(4));
        const elsewhere = firstIssued === null || number < firstIssued;
        throw new PageError(
          elsewhere
            ? `Element ${ref} is not on this page: it was read from another page (before a navigation or reload, or in another tab). Call read_page or find for fresh refs.`
            : `Element ${ref} not found: this page has issued no such ref. Call read_page or find for fresh refs.`,
          "ref_not_found",
        );
      }
      const el = entry.target.deref();
      // An element of a frame document that was navigated or removed stays connected to that
      // dead document, which has lost its window.
      const frameGone = !!el && !!el.ownerDocument && el.ownerDocument.defaultView === null;
      if (!el || el.isConnected === false || frameGone) {
        const why = frameGone
          ? "its frame navigated or was removed"
          : entry.serial < serial
            ? `the page re-rendered since it was issued (render serial ${entry.serial} -> ${serial})`
            : "its element was removed from the page";
        throw new PageError(`Element ${ref} is stale: ${why}. Call read_page or find again.`, "stale_ref");
      }
      // The same node, relabelled or re-roled in place, is not the control the ref named.
      const current = identityOf(el);
      if (!sameIdentity(entry, current, el)) {
        throw new PageError(
          `${ref} was ${shown(entry)} when issued; the element is now ${shown(current)}. ` +
            "Nothing was done. Get a fresh ref (find / read_page) before acting.",
          "stale_ref",
        );
      }
      return el;
    }

    // Feeds DOM mutation counts (from a MutationObserver) into the render serial.
    function noteMutations(count) {
      const t = now();
      if (t - windowStart >= WINDOW_MS) {
        windowStart = t;
        windowCount = 0;
        advancedThisWindow = false;
      }
      windowCount += count;
      if (!advancedThisWindow && windowCount >= MUTATIONS_PER_RENDER) {
        serial += 1;
        advancedThisWindow = true;
      }
    }

    // Counting goes on from `floor` (the highest ref number issued anywhere so far).
    function raiseFloor(floor) {
      if (Number.isSafeInteger(floor) && floor > counter) counter = floor;
    }

    return { refFor, resolve, noteMutations, raiseFloor, high: () => counter, serial: () => serial };
  }

  ns.refs = { createRefRegistry };
})(globalThis);
