// Element refs ("ref_N") and the render serial. A ref is held weakly and remembers the
// render serial it was (last) issued under, so a ref that stops resolving after the page
// re-rendered is reported as stale rather than simply "not found".
// The serial advances once per 500 ms window that saw at least 3 DOM mutations.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.refs) return;

  const WINDOW_MS = 500;
  const MUTATIONS_PER_RENDER = 3;

  function createRefRegistry({ now = () => Date.now() } = {}) {
    let counter = 0;
    let serial = 0;
    let windowStart = -Infinity;
    let windowCount = 0;
    let advancedThisWindow = false;
    const byRef = new Map(); // ref -> {target: WeakRef, serial}
    const byElement = new WeakMap(); // element -> ref

    function refFor(el) {
      let ref = byElement.get(el);
      if (!ref) {
        counter += 1;
        ref = `ref_${counter}`;
        byElement.set(el, ref);
        byRef.set(ref, { target: new WeakRef(el), serial });
      } else {
        byRef.get(ref).serial = serial;
      }
      return ref;
    }

    function resolve(ref) {
      const PageError = ns.PageError;
      if (typeof ref !== "string" || !/^ref_\d+$/.test(ref)) {
        throw new PageError(`"${ref}" is not an element ref (expected ref_N)`, "bad_ref");
      }
      const entry = byRef.get(ref);
      if (!entry) {
        throw new PageError(
          `Element ${ref} not found. Refs do not survive navigation or a page reload; call read_page or find for fresh refs.`,
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

    return { refFor, resolve, noteMutations, serial: () => serial };
  }

  ns.refs = { createRefRegistry };
})(globalThis);
