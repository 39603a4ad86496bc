// Per-tab console and network buffers fed by CDP events (Runtime.* and Network.*).
// Capture starts on first use for a tab and kind; each buffer keeps the newest entries up to a
// bound and resets when the tab's hostname changes, so a read only ever shows one site's
// traffic: what came before the new site's page goes, what its page did since stays. Pure: the
// worker feeds it events and hostnames; nothing here touches chrome.*.

export const KINDS = Object.freeze(["console", "network"]);
const TEXT_LIMIT = 2_000;
const URL_LIMIT = 1_000;

export function hostOf(url) {
  try {
    const parsed = new URL(url);
    return parsed.hostname || parsed.protocol;
  } catch {
    return "";
  }
}

function clipText(text, limit) {
  const s = String(text ?? "");
  return s.length > limit ? `${s.slice(0, limit)}…` : s;
}

// One console argument as a readable string: an object or array shows its contents (Chrome's
// one-level preview, as the DevTools console prints it), not just "Object" or "Array(2)".
function describeArg(arg) {
  if (!arg || typeof arg !== "object") return String(arg);
  if (arg.value !== undefined) return typeof arg.value === "string" ? arg.value : JSON.stringify(arg.value);
  if (arg.unserializableValue !== undefined) return String(arg.unserializableValue);
  if (arg.preview && arg.subtype !== "error" && arg.subtype !== "node") return describePreview(arg.preview);
  if (arg.description !== undefined) return arg.description;
  return arg.type || "";
}

// A CDP ObjectPreview in one line: {a: 1, b: Array(2)}, [1, 2], Map(1) {"k" => 2}.
function describePreview(preview) {
  const more = preview.overflow ? ", …" : "";
  const properties = Array.isArray(preview.properties) ? preview.properties : [];
  if (Array.isArray(preview.entries) && preview.entries.length) {
    const entries = preview.entries.map((e) => (e.key ? `${describePreview(e.key)} => ${describePreview(e.value)}` : describePreview(e.value)));
    return `${preview.description} {${entries.join(", ")}${more}}`;
  }
  if (preview.type !== "object" || preview.subtype === "null") return previewValue(preview);
  if (preview.subtype === "array" || preview.subtype === "typedarray") {
    return `[${properties.map(previewProperty).join(", ")}${more}]`;
  }
  const fields = properties.map((p) => `${p.name}: ${previewProperty(p)}`).join(", ");
  const label = preview.description && preview.description !== "Object" ? `${preview.description} ` : "";
  return `${label}{${fields}${more}}`;
}

function previewProperty(property) {
  return property.valuePreview ? describePreview(property.valuePreview) : previewValue(property);
}

// A primitive or a nested object's summary as a preview gives it (value is a string there).
function previewValue(item) {
  if (item.type === "string") return JSON.stringify(item.value !== undefined ? item.value : item.description || "");
  if (item.type === "object" && item.subtype === "null") return "null";
  if (item.type === "undefined") return "undefined";
  return String(item.value !== undefined ? item.value : item.description || item.type || "");
}

// What an uncaught exception threw: an Error's own text, a thrown value as itself.
function describeThrown(details) {
  const exception = details.exception;
  const lead = details.text || "Uncaught";
  if (exception && exception.subtype !== "error") {
    if (exception.value !== undefined || exception.unserializableValue !== undefined || exception.preview) {
      return `${lead} ${describeArg(exception)}`;
    }
  }
  return (exception && exception.description) || details.text || "Uncaught exception";
}

function firstFrame(stackTrace) {
  const frames = stackTrace && Array.isArray(stackTrace.callFrames) ? stackTrace.callFrames : [];
  return frames[0] || null;
}

export function consoleEntry(method, params) {
  if (method === "Runtime.consoleAPICalled") {
    const frame = firstFrame(params.stackTrace);
    return {
      level: params.type || "log",
      text: clipText((params.args || []).map(describeArg).join(" "), TEXT_LIMIT),
      url: frame ? clipText(frame.url, URL_LIMIT) : "",
      line: frame ? frame.lineNumber + 1 : 0,
      timestamp: params.timestamp || 0,
    };
  }
  if (method === "Runtime.exceptionThrown") {
    const details = params.exceptionDetails || {};
    const description = describeThrown(details);
    const frames = details.stackTrace && Array.isArray(details.stackTrace.callFrames) ? details.stackTrace.callFrames : [];
    const where = frames.slice(0, 3).map((f) => `${f.functionName || "(anonymous)"} ${f.url}:${f.lineNumber + 1}`);
    return {
      level: "exception",
      text: clipText([String(description).split("\n")[0], ...where.map((w) => `    at ${w}`)].join("\n"), TEXT_LIMIT),
      url: clipText(details.url || "", URL_LIMIT),
      line: Number.isInteger(details.lineNumber) ? details.lineNumber + 1 : 0,
      timestamp: params.timestamp || 0,
    };
  }
  return null;
}

class Buffer {
  constructor(limit) {
    this.limit = limit;
    this.entries = [];
    this.dropped = 0;
    this.byRequest = new Map(); // network requestId -> entry
    // Console: where the newest top-level page's entries begin, and its host (from the page's
    // first script context after the tab's contexts were cleared by a navigation).
    this.pageStart = null;
    this.pageHost = null;
    this.pendingStart = null;
  }

  push(entry) {
    this.entries.push(entry);
    while (this.entries.length > this.limit) {
      const old = this.entries.shift();
      if (old.requestId) this.byRequest.delete(old.requestId);
      this.dropped += 1;
      if (this.pageStart) this.pageStart -= 1;
      if (this.pendingStart) this.pendingStart -= 1;
    }
  }

  clear() {
    this.keepFrom(this.entries.length);
  }

  // Keep only the entries from `index` on (those of the page the tab shows now).
  keepFrom(index) {
    this.entries = this.entries.slice(index);
    this.byRequest = new Map(this.entries.filter((e) => e.requestId).map((e) => [e.requestId, e]));
    this.dropped = 0;
    this.pageStart = this.pageStart === null ? null : 0;
    this.pendingStart = null;
  }
}

// Where the requests of a page at `host` begin: its document request, found back from the newest
// entry, not past a document request of the host the tab left (-1: none recorded). A frame of
// `host` that the old page loaded after its own document counts as the new page's too: the
// buffer does not tell frames from the top page.
function newPageStart(entries, host, previous) {
  let start = -1;
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i];
    if (entry.type !== "Document") continue;
    const entryHost = hostOf(entry.url);
    if (entryHost === host) start = i;
    else if (entryHost === previous) break;
  }
  return start;
}

export class EventBuffers {
  constructor({ limit = 1_000 } = {}) {
    this.limit = limit;
    this.tabs = new Map(); // tabId -> {host, console?: Buffer, network?: Buffer, reset: {kind: reason}}
  }

  #tab(tabId) {
    let rec = this.tabs.get(tabId);
    if (!rec) {
      rec = { host: null, reset: {} };
      this.tabs.set(tabId, rec);
    }
    return rec;
  }

  isCapturing(tabId, kind) {
    const rec = this.tabs.get(tabId);
    return !!(rec && rec[kind]);
  }

  start(tabId, kind, host) {
    const rec = this.#tab(tabId);
    if (rec.host === null) rec.host = host;
    if (!rec[kind]) rec[kind] = new Buffer(this.limit);
  }

  // The tab now shows `host`; a different site empties its buffers.
  noteHost(tabId, host) {
    const rec = this.tabs.get(tabId);
    if (!rec || !host || rec.host === host) return;
    const previous = rec.host;
    rec.host = host;
    for (const kind of KINDS) {
      const buf = rec[kind];
      if (!buf || !(buf.entries.length || buf.dropped)) continue;
      let start = buf.entries.length;
      if (kind === "network") {
        const found = newPageStart(buf.entries, host, previous);
        if (found >= 0) start = found;
      } else if (buf.pageStart !== null && buf.pageHost === host) {
        start = buf.pageStart;
      }
      if (start === 0 && !buf.dropped) continue; // all of it is the new page's
      buf.keepFrom(start);
      rec.reset[kind] = `the tab moved from ${previous} to ${host}`;
    }
  }

  // Capture stopped under us (debugger detached, worker restarted): the next read restarts it.
  stop(tabId, reason) {
    const rec = this.tabs.get(tabId);
    if (!rec) return;
    for (const kind of KINDS) {
      if (rec[kind]) {
        rec[kind] = undefined;
        rec.reset[kind] = reason;
      }
    }
  }

  forget(tabId) {
    this.tabs.delete(tabId);
  }

  onEvent(tabId, method, params) {
    const rec = this.tabs.get(tabId);
    if (!rec || !params) return;
    if (rec.console && method.startsWith("Runtime.")) {
      if (this.#notePage(rec.console, method, params)) return;
      const entry = consoleEntry(method, params);
      if (entry) rec.console.push(entry);
      return;
    }
    const buf = rec.network;
    if (!buf || !method.startsWith("Network.")) return;
    const known = buf.byRequest.get(params.requestId);
    if (method === "Network.requestWillBeSent") {
      if (known && params.redirectResponse) {
        known.status = params.redirectResponse.status;
        known.redirected = true;
        buf.byRequest.delete(params.requestId);
      }
      const request = params.request || {};
      const entry = {
        requestId: params.requestId,
        method: request.method || "GET",
        url: clipText(request.url, URL_LIMIT),
        type: params.type || "",
        // The document the request is for (the browser's word): a frame's requests are that
        // frame's site's, which the service judges on its own.
        documentURL: clipText(params.documentURL || "", URL_LIMIT),
        timestamp: params.wallTime || params.timestamp || 0,
      };
      buf.push(entry);
      buf.byRequest.set(params.requestId, entry);
    } else if (method === "Network.responseReceived" && known) {
      const response = params.response || {};
      known.status = response.status;
      known.mimeType = response.mimeType || "";
    } else if (method === "Network.loadingFailed" && known) {
      known.status = known.status || 0; // 0: no response came, so there is no HTTP status
      // A request the browser itself refused says why (`inspector`: the tab's blocked-URL list).
      known.errorText = params.blockedReason ? `blocked (${params.blockedReason})` : params.errorText || "failed";
      if (params.canceled) known.canceled = true;
    }
  }

  // A navigation clears the tab's script contexts; the first default context created after that
  // is the new top-level page's, and its origin says its host. True when the event was one of
  // these (it carries no console entry).
  #notePage(buf, method, params) {
    if (method === "Runtime.executionContextsCleared") {
      buf.pendingStart = buf.entries.length;
      return true;
    }
    if (method !== "Runtime.executionContextCreated") return false;
    const context = params.context || {};
    if (buf.pendingStart !== null && context.auxData && context.auxData.isDefault) {
      buf.pageStart = buf.pendingStart;
      buf.pageHost = hostOf(context.origin);
      buf.pendingStart = null;
    }
    return true;
  }

  // Entries oldest first, plus bookkeeping for the service's notes.
  read(tabId, kind, { clear = false } = {}) {
    const rec = this.tabs.get(tabId);
    const buf = rec && rec[kind];
    const reset = rec && rec.reset[kind] ? rec.reset[kind] : null;
    if (rec) delete rec.reset[kind];
    if (!buf) return { entries: [], dropped: 0, host: rec ? rec.host : null, reset };
    const entries = buf.entries.map(({ requestId, ...rest }) => rest);
    const out = { entries, dropped: buf.dropped, host: rec.host, reset };
    if (clear) buf.clear();
    return out;
  }
}
