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
    getComputedStyle: (el) => root.getComputedStyle(el),
    get innerWidth() {
      return root.innerWidth;
    },
    get innerHeight() {
      return root.innerHeight;
    },
    Event: root.Event,
  };
  const refs = ns.refs.createRefRegistry();
  const ctx = { env, refs };

  // Mutations feed the render serial that dates refs.
  new MutationObserver((records) => refs.noteMutations(records.length)).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });

  function elementArg(args) {
    return refs.resolve(args && args.ref);
  }

  const MECHANISMS = {
    ping: () => ({ url: location.href, renderSerial: refs.serial() }),
    page_text: (args) => ns.text.pageText(document, args),
    read_page: (args) => ns.tree.readPage(document, args, ctx),
    find_text: (args) => ns.find.findText(document, args, ctx),
    form_input: (args) => {
      const el = elementArg(args);
      if (!args || !("value" in args)) throw new ns.PageError("form_input needs a value", "bad_args");
      return { ref: args.ref, ...ns.forms.setFormValue(el, args.value, env) };
    },
    scroll_into_view: (args) => {
      const el = elementArg(args);
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      return ns.find.describeElement(el, ctx);
    },
    element_rect: (args) => ns.find.describeElement(elementArg(args), ctx),
  };

  function run(fn, args) {
    if (!Object.prototype.hasOwnProperty.call(MECHANISMS, fn)) {
      throw new ns.PageError(`Unknown content mechanism: ${fn}`, "unknown_mechanism");
    }
    return MECHANISMS[fn](args || {});
  }

  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (!message || message.channel !== "ghostlight" || sender.id !== chrome.runtime.id) return false;
    Promise.resolve()
      .then(() => run(message.fn, message.args))
      .then(
        (value) => sendResponse({ ok: true, value: value === undefined ? null : value }),
        (err) =>
          sendResponse({
            ok: false,
            error: { message: err && err.message ? err.message : String(err), code: (err && err.code) || "page_error" },
          }),
      );
    return true; // the answer is sent asynchronously
  });
})(globalThis);
