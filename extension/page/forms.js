// form_input: sets one form control the way a user would, so page frameworks notice:
// the prototype's native value setter (bypassing framework-patched instance setters), then
// bubbling, composed input and change events. Checkboxes and radios are clicked only when
// their state must change; selects match an option by value or visible text.
(function (root) {
  "use strict";
  const ns = root.GhostlightPage || (root.GhostlightPage = {});
  if (ns.forms) return;
  const dom = ns.dom;

  // ARIA roles form_input sets by clicking, like their native inputs.
  const ARIA_TOGGLE_ROLES = new Set(["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]);
  const TRUE_WORDS = new Set(["true", "on", "yes", "1", "checked"]);
  const FALSE_WORDS = new Set(["false", "off", "no", "0", "unchecked", ""]);

  // Coerces a requested toggle state; null when the value is not a clear yes/no.
  function toBoolean(value) {
    if (typeof value === "boolean") return value;
    if (typeof value === "number") return value !== 0;
    const word = String(value).trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    return null;
  }

  // Picks the option whose value, else trimmed text, equals the request. Pure over
  // [{value, text}]; returns the index or -1. Texts compare in one Unicode form first:
  // "Kraków" typed with a combining accent is the option that shows "Kraków" (they look the
  // same, so a refusal listing it would leave the agent nothing to correct). Failing that,
  // they compare folded as find and wait_for match text (no accents, width or case), when
  // exactly one option matches so: "Zurich" picks "Zürich", never one of two look-alikes.
  function matchOption(options, wanted) {
    const target = String(wanted);
    const byValue = options.findIndex((o) => String(o.value) === target);
    if (byValue >= 0) return byValue;
    const plain = (text) => text.normalize("NFC").toLowerCase();
    const trimmed = plain(target.trim());
    const byText = options.findIndex((o) => plain(dom.collapse(o.text)) === trimmed);
    if (byText >= 0) return byText;
    const folded = dom.collapse(dom.fold(target));
    if (!folded) return -1;
    const alike = [];
    options.forEach((o, index) => {
      if (dom.collapse(dom.fold(o.text)) === folded) alike.push(index);
    });
    return alike.length === 1 ? alike[0] : -1;
  }

  // Selects all of an editable element's content, so that input replaces it; false where
  // there is no selection to set (then its text is assigned instead).
  function selectContents(el) {
    const doc = el.ownerDocument;
    const view = doc && doc.defaultView;
    if (!doc || typeof doc.createRange !== "function" || !view || typeof view.getSelection !== "function") return false;
    const selection = view.getSelection();
    const range = doc.createRange();
    range.selectNodeContents(el);
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
  }

  // What an edited element shows once its editor had a turn: a rich editor applies the edit
  // to its model and renders it back in a microtask or the next task, not during the event.
  // One task later (a message, which a background tab does not hold back as it does timers).
  async function editedContent(el) {
    await new Promise((resolve) => {
      if (typeof root.MessageChannel !== "function") {
        setTimeout(resolve, 0);
        return;
      }
      const channel = new root.MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(0);
    });
    // innerText keeps the lines a person sees ("line one<div>line two</div>" is two lines).
    return { kind: "contenteditable", value: typeof el.innerText === "string" ? el.innerText : el.textContent };
  }

  // The options a multiple select is asked to hold: the whole value as one option, else its
  // comma-separated parts, each an option ("Cheese, Olives"); "" holds none. An unknown part
  // refuses the whole value, so nothing is half set.
  function chosenOptions(options, value) {
    const wanted = String(value);
    const whole = matchOption(options, wanted);
    if (whole >= 0) return [whole];
    const parts = wanted.split(",").map((part) => part.trim()).filter(Boolean);
    const indexes = parts.map((part) => matchOption(options, part));
    const missing = parts.filter((part, i) => indexes[i] < 0);
    if (missing.length) {
      throw new ns.PageError(
        `No option matching ${missing.map((part) => JSON.stringify(part)).join(", ")} in this list, which takes several options separated by commas; options: ${listed(options)}`,
        "no_such_option",
      );
    }
    return [...new Set(indexes)];
  }

  // The first options' texts, quoted, as a refusal lists them for the agent to pick from.
  function listed(options) {
    return options.slice(0, 20).map((o) => JSON.stringify(dom.collapse(o.text))).join(", ");
  }

  // A disabled option (or one in a disabled group) cannot be chosen by a person, and a form
  // never sends it: choosing it by script would leave the field out of the submitted form
  // while saying it was set. Refused, naming the options that can be chosen.
  function refuseDisabled(el, options, index) {
    const disabled = (option) => option.disabled || (option.parentElement && dom.tagOf(option.parentElement) === "OPTGROUP" && option.parentElement.disabled);
    if (!disabled(el.options[index])) return;
    const open = listed(options.filter((o, i) => !disabled(el.options[i])));
    throw new ns.PageError(
      `The option ${JSON.stringify(dom.collapse(options[index].text))} is disabled: it cannot be chosen, and a form never sends it; options that can be chosen: ${open}`,
      "disabled_option",
    );
  }

  // Selects exactly `indexes` of a multiple select (none of them disabled), as a person's
  // ctrl-clicks would leave it, and fires input and change once.
  function setSelected(el, indexes, options, EventCtor) {
    for (const index of indexes) refuseDisabled(el, options, index);
    [...el.options].forEach((option, index) => {
      option.selected = indexes.includes(index);
    });
    fire(el, "input", EventCtor);
    fire(el, "change", EventCtor);
    return afterPageTurn(() => {
      const chosen = [...el.options].filter((option) => option.selected);
      const now = [...el.options].flatMap((option, index) => (option.selected ? [index] : []));
      if (now.length !== indexes.length || now.some((index) => !indexes.includes(index))) {
        throw setBack(el, indexes.map((index) => options[index].text));
      }
      return { kind: "select", value: chosen.map((o) => o.value).join(", "), text: chosen.map((o) => dom.collapse(o.textContent)).join(", ") };
    });
  }

  // A page may undo a change in its own handlers: a click it prevents, a component that renders
  // its own state back at once or in a microtask (React, Vue). What the control holds is read
  // once the page has had that turn, and a change it did not keep is an error, never a success.
  function afterPageTurn(read) {
    return new Promise((resolve, reject) => {
      setTimeout(() => {
        try {
          resolve(read());
        } catch (err) {
          reject(err);
        }
      }, 0);
    });
  }

  // The error for a list the page set back to other options than those chosen.
  function setBack(el, asked) {
    const shown = (texts) => (texts.length ? texts.map((t) => JSON.stringify(dom.collapse(t))).join(", ") : "nothing");
    const held = [...el.options].filter((option) => option.selected).map((option) => option.textContent);
    return new ns.PageError(
      `The list was set to ${shown(asked)} and shows ${shown(held)}: the page's own script set it back`,
      "value_kept",
    );
  }

  // The editable control behind a label or a custom element (its shadow root, open or closed), if any.
  function resolveControl(el) {
    const tag = dom.tagOf(el);
    if (tag === "LABEL" && el.control) return el.control;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable) return el;
    const shadow = dom.shadowOf(el);
    const inner = shadow && shadow.querySelector ? shadow.querySelector("input, textarea, select, [contenteditable='true']") : null;
    return inner || el;
  }

  // The first of a control's labels that is shown: a styled checkbox or radio hides its real
  // input (display:none, no size) and shows a label or a box drawn inside one instead.
  function shownLabel(el, env) {
    const labels = el.labels ? [...el.labels] : [];
    return labels.find((label) => dom.isVisible(label, env)) || null;
  }

  // What a person clicks to toggle a box: the box itself when it is shown, else its shown
  // label, whose own click handlers then run before the browser passes the click on to the box.
  function clickTarget(el, env) {
    if (dom.isVisible(el, env)) return el;
    return shownLabel(el, env) || el;
  }

  // Calls the nearest prototype "value" setter, skipping any setter defined on the instance.
  function setNativeValue(el, value) {
    let proto = Object.getPrototypeOf(el);
    while (proto) {
      const desc = Object.getOwnPropertyDescriptor(proto, "value");
      if (desc && desc.set) {
        desc.set.call(el, value);
        return;
      }
      proto = Object.getPrototypeOf(proto);
    }
    el.value = value;
  }

  function fire(el, type, EventCtor) {
    el.dispatchEvent(new EventCtor(type, { bubbles: true, composed: true }));
  }

  // Mechanism core. Returns {kind, value} describing the control's state afterwards.
  function setFormValue(target, value, env) {
    const PageError = ns.PageError;
    const el = resolveControl(target);
    // Events are made in the element's own window (it may sit in a same-origin frame).
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    const EventCtor = (view && view !== root && view.Event) || env.Event || root.Event;
    const tag = dom.tagOf(el);
    if (dom.isDisabled(el)) throw new PageError("The element is disabled", "disabled");
    if (el.scrollIntoView) el.scrollIntoView({ block: "center", inline: "center" });

    if (tag === "SELECT") {
      const options = [...el.options].map((o) => ({ value: o.value, text: o.textContent }));
      if (el.multiple) return setSelected(el, chosenOptions(options, value), options, EventCtor);
      const index = matchOption(options, value);
      if (index < 0) {
        throw new PageError(`No option matching ${JSON.stringify(String(value))}; options: ${listed(options)}`, "no_such_option");
      }
      refuseDisabled(el, options, index);
      el.selectedIndex = index;
      fire(el, "input", EventCtor);
      fire(el, "change", EventCtor);
      return afterPageTurn(() => {
        if (el.selectedIndex !== index) throw setBack(el, [options[index].text]);
        return { kind: "select", value: el.options[index].value, text: dom.collapse(options[index].text) };
      });
    }

    const type = dom.attr(el, "type").toLowerCase();
    if (tag === "INPUT" && (type === "checkbox" || type === "radio")) {
      const wanted = toBoolean(value);
      if (wanted === null) throw new PageError(`Cannot read ${JSON.stringify(value)} as checked/unchecked`, "bad_value");
      if (type === "radio" && !wanted && el.checked) {
        throw new PageError("Cannot uncheck a radio button; choose another option of its group instead", "radio_uncheck");
      }
      if (el.checked === wanted) return { kind: type, value: wanted };
      const through = clickTarget(el, env);
      through.click(); // the click fires input/change like a user's would
      const clicked = through === el ? `The ${type} was clicked` : `The ${type}'s label was clicked (the ${type} itself is hidden), and the ${type}`;
      return afterPageTurn(() => {
        if (el.checked !== wanted) {
          throw new PageError(
            `${clicked} and is still ${el.checked ? "checked" : "unchecked"}: the page's own script prevented the change or set it back`,
            "value_kept",
          );
        }
        return { kind: type, value: wanted };
      });
    }

    if (tag === "INPUT" && type === "file") {
      throw new PageError("File inputs cannot be set with form_input", "unsupported_control");
    }

    if (tag === "INPUT" || tag === "TEXTAREA") {
      if (el.readOnly) throw new PageError("The field is read-only", "read_only");
      if (el.focus) el.focus();
      setNativeValue(el, String(value));
      fire(el, "input", EventCtor);
      fire(el, "change", EventCtor);
      const kind = tag === "TEXTAREA" ? "textarea" : "input";
      const out = dom.isSecretField(el) ? { kind, secret: true } : { kind, value: el.value };
      const problem = invalidity(el);
      if (problem) out.invalid = problem;
      const over = overLimit(el);
      if (over) out.overLimit = over;
      // Secret fields do not echo their value back.
      return out;
    }

    if (ARIA_TOGGLE_ROLES.has(dom.roleOf(el))) return setAriaToggle(el, value);

    if (el.isContentEditable || dom.attr(el, "contenteditable") === "true") {
      if (el.focus) el.focus();
      // The browser's own input puts the text in (the service sends it): a rich editor that
      // keeps its own model (Lexical, Slate, ProseMirror) takes text only through the
      // beforeinput events real input fires; assigned textContent it shows but never learns.
      if (selectContents(el)) return { kind: "contenteditable", awaitingText: true };
      el.textContent = String(value);
      fire(el, "input", EventCtor);
      return { kind: "contenteditable", value: el.textContent };
    }

    throw new PageError(`Element <${tag.toLowerCase()}> is not a form control`, "not_a_control");
  }

  // How long a clicked ARIA toggle is given to show its new state: frameworks (React, Vue,
  // Lit, ...) re-render after the click handler returns, in a later task.
  const TOGGLE_SETTLE_MS = 500;
  const TOGGLE_POLL_MS = 20;

  // A checkbox, switch or radio built of ARIA (<div role="checkbox" aria-checked>): clicked, as
  // a person would, when its state must change; the page's own script flips aria-checked, now
  // or once it re-renders (then the answer is a promise). A click the page ignores is an
  // error, never a reported success.
  function setAriaToggle(el, value) {
    const PageError = ns.PageError;
    const role = dom.roleOf(el);
    const wanted = toBoolean(value);
    if (wanted === null) throw new PageError(`Cannot read ${JSON.stringify(value)} as checked/unchecked`, "bad_value");
    const isRadio = role === "radio" || role === "menuitemradio";
    if (isRadio && !wanted && dom.ariaChecked(el) === true) {
      throw new PageError("Cannot uncheck a radio button; choose another option of its group instead", "radio_uncheck");
    }
    const done = { kind: isRadio ? "radio" : "checkbox", value: wanted };
    if (dom.ariaChecked(el) === wanted) return done;
    if (typeof el.click === "function") el.click();
    if (dom.ariaChecked(el) === wanted) return done;
    return settledToggle(el, role, wanted, done);
  }

  // Polls until the time is up, by the clock: a background tab's timers fire far later than
  // asked (once a second or less), and counting polls would then wait many times too long.
  async function settledToggle(el, role, wanted, done) {
    const started = Date.now();
    do {
      await new Promise((resolve) => setTimeout(resolve, TOGGLE_POLL_MS));
      if (dom.ariaChecked(el) === wanted) return done;
    } while (Date.now() - started < TOGGLE_SETTLE_MS);
    throw new ns.PageError(
      `The ${role} did not become ${wanted ? "checked" : "unchecked"} when clicked (aria-checked is ` +
        `${JSON.stringify(dom.attr(el, "aria-checked"))})`,
      "value_kept",
    );
  }

  // Why the browser would refuse this control's value on submit, or "" when it would not.
  function invalidity(el) {
    if (!el.willValidate) return "";
    return el.validity && !el.validity.valid ? dom.collapse(el.validationMessage || "not valid") : "";
  }

  // A value longer than the field's maxlength, or "". Only typing is held to that limit: the
  // browser submits a longer value set by script as it is (validity.tooLong stays false), but
  // a person could not have entered it, and the site may refuse or cut it.
  function overLimit(el) {
    const limit = Number(el.maxLength);
    if (!Number.isInteger(limit) || limit < 0 || typeof el.value !== "string" || el.value.length <= limit) return "";
    return `${el.value.length} characters, more than the field's limit of ${limit}`;
  }

  // Mechanism `form_validity`: the controls of `submit`'s form the browser would refuse, so a
  // submit that would be blocked is not clicked. Empty when the form is not validated.
  function formValidity(submit, ctx) {
    const form = submit.form || (submit.closest ? submit.closest("form") : null);
    if (!form || form.noValidate || submit.formNoValidate) return { validated: false, invalid: [] };
    const invalid = [];
    for (const el of form.elements || []) {
      const problem = invalidity(el);
      if (problem && invalid.length < 20) {
        const label = el.labels ? [...el.labels].map(labelText).filter(Boolean).join(" ") : "";
        invalid.push({ ref: ctx.refs.refFor(el), label: dom.clip(label || dom.accessibleName(el) || dom.attr(el, "name"), 120), message: dom.clip(problem, 200) });
      }
    }
    return { validated: true, invalid };
  }

  // --- set_files: file_upload's bytes into a file input ------------------------------------

  function decodeBase64(data) {
    const binary = root.atob(String(data));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  // Puts the files into the input the way a file chooser does: its FileList replaced, then
  // bubbling, composed input and change events. Returns what the input holds afterwards.
  function isFileInput(el) {
    return !!el && dom.tagOf(el) === "INPUT" && dom.attr(el, "type").toLowerCase() === "file";
  }

  const FILE_INPUTS = "input[type=file i]";
  const STAND_IN_LEVELS = 3;

  // The one file input a control that is not one stands for: the common upload button that
  // opens a hidden input by script. Inside it, named by its aria-controls, the only one next to
  // it (its parent's subtree, up to three levels out), or the only one on the page; never a
  // guess between two. {input, via} or null.
  function fileInputFor(el) {
    const only = (list) => (list.length === 1 ? list[0] : null);
    const inside = el.querySelectorAll ? only([...el.querySelectorAll(FILE_INPUTS)]) : null;
    if (inside) return { input: inside, via: "inside" };
    const doc = el.ownerDocument;
    const named = (dom.attr(el, "aria-controls") || "").split(/\s+/).filter(Boolean).map((id) => doc && doc.getElementById(id));
    const controlled = only(named.filter(isFileInput));
    if (controlled) return { input: controlled, via: "controls" };
    let around = el.parentElement;
    for (let level = 0; around && level < STAND_IN_LEVELS; level += 1, around = around.parentElement) {
      const near = [...around.querySelectorAll(FILE_INPUTS)];
      if (near.length > 1) return null;
      if (near.length === 1) return { input: near[0], via: "beside" };
    }
    const all = doc ? only([...doc.querySelectorAll(FILE_INPUTS)]) : null;
    return all ? { input: all, via: "only" } : null;
  }

  function setFiles(target, files, env) {
    const PageError = ns.PageError;
    const shadow = dom.shadowOf(target);
    const inner = shadow && shadow.querySelector ? shadow.querySelector("input[type=file]") : null;
    let el = inner || resolveControl(target);
    let standIn = null;
    if (!isFileInput(el)) {
      standIn = fileInputFor(el);
      if (!standIn) {
        throw new PageError(`Element <${dom.tagOf(el).toLowerCase()}> is not a file input, and no one file input goes with it (none inside it or next to it, and not exactly one on the page)`, "not_a_file_input");
      }
      el = standIn.input;
    }
    if (dom.isDisabled(el)) throw new PageError("The file input is disabled", "disabled");
    if (files.length > 1 && !el.multiple) {
      throw new PageError(`The file input takes one file (it has no "multiple"); ${files.length} were given`, "single_file");
    }
    const view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
    const transfer = new view.DataTransfer();
    for (const file of files) {
      let bytes;
      try {
        bytes = decodeBase64(file.data);
      } catch (err) {
        throw new PageError(`The data of ${JSON.stringify(String(file.name))} is not base64`, "bad_value");
      }
      transfer.items.add(new view.File([bytes], String(file.name), { type: String(file.mimeType || "") }));
    }
    el.files = transfer.files;
    const EventCtor = view.Event || env.Event || root.Event;
    fire(el, "input", EventCtor);
    fire(el, "change", EventCtor);
    const held = [...el.files].map((f) => ({ name: f.name, size: f.size, type: f.type }));
    const out = { files: held, accept: dom.attr(el, "accept") };
    if (standIn) {
      out.standIn = {
        via: standIn.via,
        name: dom.attr(el, "name"),
        id: el.id || "",
        hidden: !dom.isVisible(el, env),
      };
    }
    return out;
  }

  // --- drop_files: upload_image's drop onto whatever is at a point --------------------------

  // Drags the files onto the element at top-viewport point (x, y) the way a drag from the
  // desktop does: dragenter, dragover and drop carrying them. "handled" says whether the page
  // claimed the drop (a drop target cancels dragover or drop); nothing else can tell.
  function dropFiles(doc, x, y, files, ctx) {
    const PageError = ns.PageError;
    const el = ns.find.elementAtPoint(doc, x, y);
    if (!el) throw new PageError("There is no element at that point of the page", "no_target");
    const view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
    const transfer = new view.DataTransfer();
    for (const file of files) {
      transfer.items.add(new view.File([decodeBase64(file.data)], String(file.name), { type: String(file.mimeType || "") }));
    }
    const drag = (type) =>
      new view.DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: transfer, clientX: x, clientY: y });
    el.dispatchEvent(drag("dragenter"));
    const claimedOver = !el.dispatchEvent(drag("dragover"));
    const claimedDrop = !el.dispatchEvent(drag("drop"));
    return { target: ns.find.describeElement(el, ctx), handled: claimedOver || claimedDrop };
  }

  // --- form_fields: the page's forms and their fillable controls, for form_fill -------------

  // ARIA controls form_fill lists beside native ones: checkboxes and switches (an ARIA radio
  // group has no name tying its radios together, so each radio stays a click).
  const ARIA_FIELD_ROLES = new Set(["checkbox", "switch"]);
  const SKIPPED_INPUTS = new Set(["hidden", "submit", "button", "reset", "image"]);
  const NOT_LABEL_TEXT = new Set(["SELECT", "TEXTAREA", "OPTION", "SCRIPT", "STYLE"]);
  const SUBMIT_WORDS = /\b(submit|sign ?in|log ?in|sign ?up|register|save|continue|send|search|next)\b/i;
  const MAX_FORMS = 20;
  const MAX_FIELDS = 200;
  const MAX_SCANNED = 50000;
  const MAX_NESTING = 8;

  // A label's own words, without the text of controls inside it (a select's options).
  function labelText(label) {
    const parts = [];
    const walk = (node, depth) => {
      for (const child of node.childNodes || []) {
        if (child.nodeType === 3) parts.push(child.nodeValue || "");
        else if (child.nodeType === 1 && depth < 16 && !NOT_LABEL_TEXT.has(dom.tagOf(child))) walk(child, depth + 1);
      }
    };
    walk(label, 0);
    return dom.collapse(parts.join(" "));
  }

  function fieldType(el) {
    const tag = dom.tagOf(el);
    if (tag === "INPUT") return dom.attr(el, "type").toLowerCase() || "text";
    if (tag === "SELECT" || tag === "TEXTAREA") return tag.toLowerCase();
    if (ARIA_FIELD_ROLES.has(dom.roleOf(el))) return "checkbox"; // role=checkbox or switch
    return "contenteditable";
  }

  // What labels a control: its own labels, else, inside a custom element's shadow root, the
  // labels of the element that hosts it (a <label> around it, or its own aria-label).
  function labelOf(el) {
    const own = el.labels ? [...el.labels].map(labelText).filter(Boolean).join(" ") : "";
    if (own) return own;
    const scope = el.getRootNode ? el.getRootNode() : null;
    const host = scope && scope.host;
    if (!host) return "";
    const around = host.closest ? host.closest("label") : null;
    return around ? labelText(around) : dom.collapse(dom.attr(host, "aria-label"));
  }

  function describeField(el, ctx) {
    const label = labelOf(el);
    const aria = dom.attr(el, "aria-label") || (label ? "" : dom.accessibleName(el));
    const out = {
      ref: ctx.refs.refFor(el),
      type: fieldType(el),
      label: dom.clip(label, 200),
      placeholder: dom.clip(dom.attr(el, "placeholder"), 200),
      name: dom.clip(dom.attr(el, "name"), 200),
      id: dom.clip(el.id || "", 200),
      aria: dom.clip(aria, 200),
      enabled: !dom.isDisabled(el) && !el.readOnly,
    };
    if (out.type === "radio" || out.type === "checkbox") out.value = dom.clip(dom.attr(el, "value"), 200);
    const group = out.type === "radio" ? radioGroupName(el) : "";
    if (group) out.group = dom.clip(group, 200);
    if (out.type === "select") out.options = [...el.options].slice(0, 50).map((o) => dom.clip(dom.collapse(o.textContent), 80));
    if (dom.isSecretField(el)) out.secret = true;
    return out;
  }

  // The nearest fieldset or radiogroup around a radio, within its own tree; null when none.
  function radioContainer(el) {
    for (let node = el.parentElement, hops = 0; node && hops < 32; node = node.parentElement, hops++) {
      if (dom.tagOf(node) === "FIELDSET" || dom.roleOf(node) === "radiogroup") return node;
    }
    return null;
  }

  // What names a radio's group as a person reads it: the legend of the fieldset around it (or
  // the name of a radiogroup), when that holds no radios of another group; else "". A group's
  // name attribute ("d") is often all the markup ties to "Delivery".
  function radioGroupName(el) {
    const container = radioContainer(el);
    if (!container) return "";
    const name = dom.attr(el, "name");
    const radios = [...container.querySelectorAll("input")].filter((input) => dom.attr(input, "type").toLowerCase() === "radio");
    if (radios.some((radio) => dom.attr(radio, "name") !== name)) return "";
    const legend = dom.tagOf(container) === "FIELDSET" ? container.children && [...container.children].find((child) => dom.tagOf(child) === "LEGEND") : null;
    return (legend && labelText(legend)) || dom.accessibleName(container);
  }

  // A styled checkbox or radio: its real input is hidden and a label of it is what is shown
  // and clicked. It is listed as the field that label names.
  function isStyledBox(el, env) {
    const type = dom.tagOf(el) === "INPUT" ? dom.attr(el, "type").toLowerCase() : "";
    return (type === "checkbox" || type === "radio") && !!shownLabel(el, env);
  }

  function isSubmitControl(el) {
    const tag = dom.tagOf(el);
    const type = dom.attr(el, "type").toLowerCase();
    if (tag === "BUTTON") return type === "" || type === "submit";
    return tag === "INPUT" && (type === "submit" || type === "image");
  }

  // The controls matching `selector` in document order, including those inside shadow roots,
  // open or closed (right after their host), and in same-origin frames (right after the frame
  // element): a form
  // built of web components or shown in a frame is filled like any other.
  function deepControls(doc, selector) {
    const out = [];
    let scanned = 0;
    const visit = (scope, depth) => {
      for (const el of scope.querySelectorAll("*")) {
        if ((scanned += 1) > MAX_SCANNED) return;
        if (el.matches(selector)) out.push(el);
        if (depth >= MAX_NESTING) continue;
        const shadow = dom.shadowOf(el);
        if (shadow) visit(shadow, depth + 1);
        const frameDoc = dom.isFrame(el) ? dom.frameDocument(el) : null;
        if (frameDoc) visit(frameDoc, depth + 1);
      }
    };
    visit(doc, 0);
    return out;
  }

  // The form a control belongs to as a user sees it: its own, else the nearest enclosing form,
  // looking out through shadow roots (an input inside a custom element inside a form).
  function owningForm(el) {
    if (el.form) return el.form;
    for (let node = el, hops = 0; node && hops < MAX_NESTING; hops++) {
      const form = node.closest ? node.closest("form") : null;
      if (form) return form;
      const scope = node.getRootNode ? node.getRootNode() : null;
      node = scope && scope.host ? scope.host : null;
    }
    return null;
  }

  // Forms in document order (controls outside any form make a last, formless group), each with
  // its visible fillable controls and its submit candidates.
  function formFields(doc, ctx, env) {
    const groups = new Map();
    const group = (form) => {
      if (!groups.has(form)) {
        groups.set(form, {
          ref: form ? ctx.refs.refFor(form) : null,
          name: form ? dom.clip(dom.attr(form, "aria-label") || dom.attr(form, "name") || form.id || "", 120) : "",
          fields: [],
          submits: [],
        });
      }
      return groups.get(form);
    };
    const selector =
      "input, textarea, select, [contenteditable='true'], [contenteditable=''], button, [role='checkbox'], [role='switch']";
    for (const el of deepControls(doc, selector)) {
      const form = owningForm(el);
      if (!dom.isVisible(el, env) && !isStyledBox(el, env)) continue;
      // A <button role="switch"> is a field, not a submit candidate.
      const ariaField = dom.tagOf(el) !== "INPUT" && ARIA_FIELD_ROLES.has(dom.roleOf(el));
      const isButton = dom.tagOf(el) === "BUTTON" && !ariaField;
      if (isButton || (dom.tagOf(el) === "INPUT" && SKIPPED_INPUTS.has(fieldType(el)))) {
        const name = dom.accessibleName(el);
        const native = isSubmitControl(el) && !!el.form;
        const named = SUBMIT_WORDS.test(name);
        if ((native || named) && !dom.isDisabled(el) && groups.size <= MAX_FORMS) {
          group(form).submits.push({ ref: ctx.refs.refFor(el), name: dom.clip(name, 120), native, named });
        }
        continue;
      }
      if (!form && groups.size >= MAX_FORMS && !groups.has(null)) continue;
      if (form && !groups.has(form) && groups.size > MAX_FORMS) continue;
      const entry = group(form);
      if (entry.fields.length < MAX_FIELDS) entry.fields.push(describeField(el, ctx));
    }
    const forms = [...groups.entries()].sort((a, b) => (a[0] === null) - (b[0] === null)).map((e) => e[1]);
    return { url: doc.location ? doc.location.href : "", title: doc.title, forms: forms.filter((f) => f.fields.length), renderSerial: ctx.refs.serial() };
  }

  // --- submit_watch / submit_seen: whether a submit click sent the form --------------------
  // A click on a submit control proves nothing about the form: a click handler may stop it
  // before any submit event, and a submit handler may cancel the browser's sending, either to
  // send the data itself (most single-page apps) or because its own check refused it. Before
  // form_fill clicks, it arms a watch on the control's form; after, it asks what the watch saw.
  const MAX_SUBMITS_SEEN = 5;
  let submitWatch = null;

  function stopSubmitWatch() {
    if (submitWatch) submitWatch.stop();
    submitWatch = null;
  }

  // Arms a watch for `control`'s form's submit events (replacing any earlier watch), on the
  // form itself (a form in a shadow root sends its submit event no further) and, capturing, on
  // its window (a page listener that stops the event on its way to the form still leaves it
  // seen). {armed, token, form} or {armed: false}.
  function watchSubmit(control, ctx) {
    stopSubmitWatch();
    const form = control.form || owningForm(control);
    if (!form || typeof form.addEventListener !== "function") return { armed: false };
    const seen = [];
    const note = (event) => {
      if (event.target === form && !seen.includes(event) && seen.length < MAX_SUBMITS_SEEN) seen.push(event);
    };
    const view = form.ownerDocument && form.ownerDocument.defaultView;
    const targets = [form, view].filter((target) => target && typeof target.addEventListener === "function");
    for (const target of targets) target.addEventListener("submit", note, true);
    const token = Math.random().toString(36).slice(2, 10);
    submitWatch = { token, seen, stop: () => targets.forEach((target) => target.removeEventListener("submit", note, true)) };
    return { armed: true, token, form: ctx.refs.refFor(form) };
  }

  // What the watch `token` saw, read once (it stops it): `known` false when this document holds
  // no such watch (a new document loaded since). `cancelled`: the page's script prevented the
  // browser's sending of every submit event seen; read now, once the page's handlers have run.
  function submitSeen(token) {
    const watch = submitWatch;
    if (!watch || watch.token !== token) return { known: false };
    stopSubmitWatch();
    const events = watch.seen;
    if (!events.length) return { known: true, submitEvent: false };
    return { known: true, submitEvent: true, cancelled: events.every((event) => event.defaultPrevented) };
  }

  ns.forms = { toBoolean, matchOption, setNativeValue, setFormValue, editedContent, setFiles, dropFiles, labelText, formFields, formValidity, watchSubmit, submitSeen };
})(globalThis);
