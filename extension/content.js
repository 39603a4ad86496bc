// Ghostlight content script: answers the worker's {channel:"ghostlight", fn, args} messages
// by running one named mechanism in this page and replying {ok, value} or {ok:false, error}.
// The mechanisms live in page/*.js (loaded before this file); this file only routes.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage;
  // The worker may inject us again into a page that already has us; listen only once.
  if (!ns || ns.listening) return;
  ns.listening = true;

  const env = {
    // An element inside a same-origin frame is styled by its own document's window.
    getComputedStyle: (el) => {
      const view = el.ownerDocument && el.ownerDocument.defaultView;
      return (view || root).getComputedStyle(el);
    },
    get innerWidth() {
      return root.innerWidth;
    },
    get innerHeight() {
      return root.innerHeight;
    },
    Event: root.Event,
  };
  const refs = ns.refs.createRefRegistry();

  // Mutations feed the render serial that dates refs, and the running total that lets an
  // observation before and after an action count what changed. Same-origin frame documents
  // are watched from the first time a mechanism reads into them.
  let mutationTotal = 0;
  let lastChangeAt = -Infinity;
  const observer = new MutationObserver((records) => {
    // A caption coming or going (narrate) is not a change of the page.
    const changes = records.filter((record) => !ns.narrate.isOwnMutation(record)).length;
    mutationTotal += changes;
    if (changes) lastChangeAt = performance.now();
    refs.noteMutations(changes);
  });
  const watched = new WeakSet();
  function watchDocument(doc) {
    if (!doc || watched.has(doc)) return;
    watched.add(doc);
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  watchDocument(document);
  const ctx = { env, refs, watchDocument };

  function elementArg(args) {
    return refs.resolve(args && args.ref);
  }

  // The focused element, looking through shadow roots and same-origin frames; null when
  // nothing is focused.
  function focusedElement() {
    let el = document.activeElement;
    for (let hops = 0; el && hops < 32; hops++) {
      const frameDoc = ns.dom.isFrame(el) ? ns.dom.frameDocument(el) : null;
      let next = null;
      const shadow = ns.dom.shadowOf(el);
      if (shadow && shadow.activeElement) next = shadow.activeElement;
      else if (frameDoc && frameDoc.activeElement && frameDoc.activeElement !== frameDoc.body) next = frameDoc.activeElement;
      if (!next) break;
      el = next;
    }
    const doc = (el && el.ownerDocument) || document;
    return el && el !== doc.body && el !== doc.documentElement ? el : null;
  }

  const STATUS_SELECTOR = '[role="alert"], [role="status"], [aria-live="assertive"]';

  // Visible alert/status texts (at most 3), which often carry a form's verdict.
  function statusTexts() {
    const out = [];
    for (const el of document.querySelectorAll(STATUS_SELECTOR)) {
      if (out.length >= 3) break;
      const text = ns.dom.clip(ns.dom.collapse(el.textContent || ""), 200);
      if (text && ns.dom.isVisible(el, env)) out.push(text);
    }
    return out;
  }

  // Which document this is: counts (mutations, render serial) start again in a new one, so a
  // receipt compares them only within one document and otherwise says a new one loaded.
  const DOCUMENT_ID = Math.random().toString(36).slice(2, 10);

  // The address of an embedded frame whose document this page cannot read (another site's):
  // input that lands there reaches that site, which the service judges on its own.
  function opaqueFrameSrc(el) {
    if (!el || !ns.dom.isFrame(el) || ns.dom.frameDocument(el)) return "";
    try {
      return new URL(el.getAttribute("src") || "", el.ownerDocument.baseURI).href;
    } catch {
      return "";
    }
  }

  // Whether `el` is an embedded frame (whatever its `src` says) or in one's document.
  const EMBEDDING = new Set(["OBJECT", "EMBED"]);
  function inFrame(el) {
    return !!el && (ns.dom.isFrame(el) || EMBEDDING.has(ns.dom.tagOf(el)) || el.ownerDocument !== document);
  }

  // The press watch the observation before a click or a drag arms on the element aimed at
  // (one at a time): `watchPress` {presses, releases} says how many presses the action makes
  // and whether where they come up counts. Its token, in the observation, is what the
  // observations after that action ask by, so that no other action's press is read.
  let pressWatch = null;
  function disarmPressWatch() {
    if (pressWatch) pressWatch.disarm();
    pressWatch = null;
  }
  function armPressWatch(el, spec, out) {
    disarmPressWatch();
    if (!el) return;
    const presses = Math.min(3, Math.max(1, Math.trunc(Number(spec && spec.presses)) || 1));
    const releases = !!(spec && spec.releases === true);
    pressWatch = ns.find.watchPress(el, ctx, { presses, releases });
    pressWatch.token = Math.random().toString(36).slice(2, 10);
    out.pressWatch = pressWatch.token;
  }

  // One observation of the page for interaction receipts: where it is, how much it changed,
  // what has focus and, optionally, the element at a point or behind a ref (with `near`, also
  // the interactive elements shown around it).
  function observe(args) {
    const out = { url: location.href, title: document.title, renderSerial: refs.serial(), mutations: mutationTotal, document: DOCUMENT_ID };
    if (typeof args.ref === "string") {
      try {
        const el = refs.resolve(args.ref);
        out.target = ns.find.describeElement(el, ctx);
        if (args.watchPress) armPressWatch(el, args.watchPress, out);
        if (args.near) out.nearby = ns.find.nearby(el, ctx);
        // What a click at its centre would reach now, without waiting for it to be at rest:
        // the caller looks again once the pointer is on it.
        if (args.hit && out.target.inViewport) {
          const { reaches, at } = ns.find.hitTest(el, out.target);
          out.hit = { hit: reaches, covering: at && !reaches ? ns.find.describeElement(at, ctx) : null };
        }
        ns.narrate.noteActivity(out.target.y);
      } catch (err) {
        out.targetError = { message: err.message, code: err.code || "page_error" };
      }
    } else if (Number.isFinite(args.x) && Number.isFinite(args.y)) {
      const el = ns.find.elementAtPoint(document, args.x, args.y);
      out.target = el ? ns.find.describeElement(el, ctx) : null;
      if (args.watchPress) armPressWatch(el, args.watchPress, out);
      if (el && args.near) out.nearby = ns.find.nearby(el, ctx);
      const frame = opaqueFrameSrc(el);
      if (frame) out.frameAt = frame;
      // Input there reaches an embedded frame's document: the service asks the browser which.
      if (inFrame(el)) out.pointInFrame = true;
      ns.narrate.noteActivity(args.y);
      out.viewport = { width: window.innerWidth, height: window.innerHeight };
    }
    const focused = focusedElement();
    if (focused) out.focused = ns.find.describeElement(focused, ctx);
    // A document edited as a whole (designMode, an editable body) takes typing with nothing
    // focused: say so, so that "nothing has focus" is not read as "typing goes nowhere".
    else if (document.designMode === "on" || (document.body && document.body.isContentEditable)) out.editableDocument = true;
    const focusFrame = opaqueFrameSrc(focused);
    if (focusFrame) out.focusFrame = focusFrame;
    if (inFrame(focused)) out.focusInFrame = true;
    out.statusTexts = statusTexts();
    // Where the presses of the watch `press` names landed, when they were seen (a press that
    // went into another frame, or that the page hid from every listener, is not: then nothing
    // is said of it).
    if (args.press && pressWatch && pressWatch.token === args.press && pressWatch.landed) out.pressed = pressWatch.landed;
    return out;
  }

  // A form this document sent (its submit event not cancelled, its answer for this tab): the
  // browser begins to leave for the answer a moment later, and until it does the page is not
  // at rest, however still it looks. Forgotten after a while (the answer may never come).
  // Noted as the event goes out and judged when asked, once the page's own handlers had their
  // say: the page may have cancelled it (a timer to look later can be held back while the
  // browser prepares to leave, past the moment a receipt waits).
  const SENT_FORM_MS = 1000;
  const IDLE_BOUND_MS = 50;
  let sentForm = null;
  addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      const submitter = event.submitter;
      const target = (submitter && submitter.getAttribute && submitter.getAttribute("formtarget")) || (form && form.getAttribute && form.getAttribute("target")) || "";
      if (target && target.toLowerCase() !== "_self") return; // its answer goes to another tab or frame
      sentForm = { event, until: performance.now() + SENT_FORM_MS };
    },
    true,
  );
  addEventListener("pagehide", () => (sentForm = null), true);
  const leaveExpected = () => sentForm !== null && !sentForm.event.defaultPrevented && performance.now() < sentForm.until;

  // The page as `rest.untilRest` sees it: its clock, its frames, its last change, and the
  // moment it starts to leave (a navigation away, which no quiet window would outlast).
  const restingPage = {
    now: () => performance.now(),
    frame: (callback) => requestAnimationFrame(() => callback()),
    later: (callback, ms) => {
      const timer = setTimeout(callback, ms);
      return () => clearTimeout(timer);
    },
    // Bounded: a page that is never idle is looked at anyway.
    idle: (callback) => {
      const id = requestIdleCallback(() => callback(), { timeout: IDLE_BOUND_MS });
      return () => cancelIdleCallback(id);
    },
    hidden: () => document.visibilityState === "hidden",
    lastChangeAt: () => lastChangeAt,
    leaveExpected,
    onLeave: (callback) => {
      const leaving = () => callback();
      const navigating = (event) => {
        if (!event.destination || event.destination.sameDocument === false) callback();
      };
      const navigation = root.navigation;
      addEventListener("beforeunload", leaving, true);
      addEventListener("pagehide", leaving, true);
      if (navigation) navigation.addEventListener("navigate", navigating);
      return () => {
        removeEventListener("beforeunload", leaving, true);
        removeEventListener("pagehide", leaving, true);
        if (navigation) navigation.removeEventListener("navigate", navigating);
      };
    },
  };

  // After an input action: the page once at rest (or leaving, or at the bound), observed.
  async function settle(args) {
    const rest = await ns.rest.untilRest(args, restingPage);
    return { ...observe(args), ...rest };
  }

  // An action with the page as it was before it and, once it acted, the page at rest after it
  // (`settle`'s arguments, or null), in one message: {before, value, settled}. A mechanism that
  // answers `awaitingText` has not acted yet (its text goes in as browser input next).
  async function acted(args) {
    if (args.fn === "acted") throw new ns.PageError("acted cannot carry itself", "bad_args");
    const before = observe(args.observe || {});
    const value = await run(args.fn, args.args);
    const done = value === undefined ? null : value;
    const settled = args.settle && !(done && done.awaitingText) ? await settle(args.settle) : null;
    return { before, value: done, settled };
  }

  // The page an answer is about: its address, its title and the serial of its refs (those
  // the answer just gave out counted).
  function pageFacts() {
    return { url: location.href, title: document.title, renderSerial: refs.serial() };
  }

  const MECHANISMS = {
    observe,
    settle,
    acted,
    ping: pageFacts,
    page_text: (args) => ns.text.pageText(document, args),
    // Each with the page it read, as it is once the answer is made: no trip more to ask.
    read_page: (args) => ({ ...ns.tree.readPage(document, args, ctx), page: pageFacts() }),
    find_text: (args) => ({ ...ns.find.findText(document, args, ctx), page: pageFacts() }),
    form_input: (args) => {
      const el = elementArg(args);
      if (!args || !("value" in args)) throw new ns.PageError("form_input needs a value", "bad_args");
      const done = ns.forms.setFormValue(el, args.value, env);
      // An ARIA toggle the page re-renders later answers once it shows its new state.
      if (done && typeof done.then === "function") return done.then((value) => ({ ref: args.ref, ...value }));
      return { ref: args.ref, ...done };
    },
    // What an editable region holds once its editor had a turn, after input the service sent.
    edited_value: (args) => ns.forms.editedContent(elementArg(args)),
    form_fields: () => ns.forms.formFields(document, ctx, env),
    form_validity: (args) => ns.forms.formValidity(elementArg(args), ctx),
    // A one-shot watch on a submit control's form, armed before form_fill clicks it.
    submit_watch: (args) => ns.forms.watchSubmit(elementArg(args), ctx),
    submit_seen: (args) => ns.forms.submitSeen(args.token),
    narrate: (args) => ns.narrate.show(document, args, env),
    cue: (args) => ns.narrate.cue(document, ns.find.describeElement(elementArg(args), ctx).box),
    drop_files: (args) => {
      if (!Array.isArray(args.files) || !args.files.length) throw new ns.PageError("drop_files needs files", "bad_args");
      return ns.forms.dropFiles(document, Number(args.x), Number(args.y), args.files, ctx);
    },
    set_files: (args) => {
      const el = elementArg(args);
      if (!Array.isArray(args.files) || !args.files.length) throw new ns.PageError("set_files needs files", "bad_args");
      return { ref: args.ref, ...ns.forms.setFiles(el, args.files, env) };
    },
    scroll_into_view: (args) => {
      const el = elementArg(args);
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      return ns.find.describeElement(el, ctx);
    },
    element_rect: (args) => ns.find.describeElement(elementArg(args), ctx),
    // Whether a click at the centre of the ref'd element would reach it (or something inside
    // it, or its label), and if not, what is on top.
    // It is looked at once it has stopped moving: a target still sliding into place would be
    // missed by input aimed at where it was (`moving` when it never stopped).
    // `still`: the box the element had when looked at before the pointer moved onto it (a
    // move waits for a rendered frame): one that has not moved since is at rest already.
    hit_test: async (args) => {
      const el = elementArg(args);
      const rest = sameBox(args.still, ns.dom.rectOf(el)) ? { stable: true } : await ns.find.restingBox(el);
      const target = ns.find.describeElement(el, ctx);
      if (!rest.stable && !rest.steady) return { target, hit: false, moving: true, covering: null };
      const { reaches, at } = ns.find.hitTest(el, target);
      return { target, hit: reaches, covering: at && !reaches ? ns.find.describeElement(at, ctx) : null };
    },
    // One observation for wait_for: matches of a selector/text plus the mutation count and
    // document state that tell whether the page has settled.
    wait_probe: (args) => ({
      url: location.href,
      title: document.title,
      readyState: document.readyState,
      renderSerial: refs.serial(),
      mutations: mutationTotal,
      ...(args.selector || args.text ? ns.wait.probe(document, args, ctx) : {}),
    }),
    // record_actions: the element behind a ref, at a point or focused, described so that it
    // can be found again elsewhere; with `page`, also what the page shows now.
    locator: (args) => {
      let el = null;
      if (typeof args.ref === "string") el = refs.resolve(args.ref);
      else if (Number.isFinite(args.x) && Number.isFinite(args.y)) el = ns.find.elementAtPoint(document, args.x, args.y);
      else if (args.focused) el = focusedElement();
      const out = {};
      if (el) out.element = ns.locator.describe(el);
      if (args.page) out.page = ns.locator.pageState(document, env);
      return out;
    },
    element_at: (args) => {
      const el = ns.find.elementAtPoint(document, Number(args.x), Number(args.y));
      return el ? ns.find.describeElement(el, ctx) : null;
    },
  };

  function sameBox(a, b) {
    return !!a && typeof a === "object" && ["x", "y", "width", "height"].every((key) => a[key] === b[key]);
  }

  function run(fn, args) {
    if (!Object.prototype.hasOwnProperty.call(MECHANISMS, fn)) {
      throw new ns.PageError(`Unknown content mechanism: ${fn}`, "unknown_mechanism");
    }
    return MECHANISMS[fn](args || {});
  }

  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (!message || message.channel !== "ghostlight" || sender.id !== chrome.runtime.id) return false;
    refs.raiseFloor(message.refFloor);
    Promise.resolve()
      .then(() => run(message.fn, message.args))
      .then(
        (value) => sendResponse({ ok: true, value: value === undefined ? null : value, refHigh: refs.high() }),
        (err) =>
          sendResponse({
            ok: false,
            error: { message: err && err.message ? err.message : String(err), code: (err && err.code) || "page_error" },
            refHigh: refs.high(),
          }),
      );
    return true; // the answer is sent asynchronously
  });
})(globalThis);
