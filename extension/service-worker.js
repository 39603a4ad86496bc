// Ghostlight service worker: connects to the local service through the native host, runs the
// browser-wire operations it receives and reports tab events. It holds no policy; every
// decision about what may run is made by the service.
//
// MV3 may suspend this worker at any time. Listeners are registered synchronously at the top
// level (so Chrome can wake us for them) and every handler first awaits `ready`, which
// rehydrates state from chrome.storage.session.
//
// A `stop` frame (the service's kill switch) is obeyed at once, ahead of anything still waiting
// for `ready`: every request received before it is answered with the `stopped` error.

import { createCapture } from "./lib/capture.js";
import { createCdpCommand, createCdpSequence, requireCommands } from "./lib/cdp-sequence.js";
import { ChunkAssembler } from "./lib/chunks.js";
import {
  CONTENT_TIMEOUT_MS,
  FEATURES,
  KEEPALIVE_ALARM,
  KEEPALIVE_PERIOD_MINUTES,
  NATIVE_HOST_NAME,
} from "./lib/constants.js";
import { contentScriptFiles, runContent } from "./lib/content-bridge.js";
import { DebuggerSessions } from "./lib/debugger.js";
import { DIALOG_OPEN_CODE, createDialogGate, dialogOpenError } from "./lib/dialog-gate.js";
import { DialogBook, createDialogOps } from "./lib/dialogs.js";
import { createDispatcher } from "./lib/dispatcher.js";
import { createGroupCaptions } from "./lib/group-caption.js";
import { EventBuffers, hostOf } from "./lib/event-buffers.js";
import {
  OpError,
  classifyIncoming,
  errorFrame,
  focusFrame,
  helloFrame,
  isHeadless,
  requireTabId,
  tabCreatedFrame,
  tabReleasedFrame,
  tabRemovedFrame,
} from "./lib/frames.js";
import { loadIdentity } from "./lib/identity.js";
import { NativeLink } from "./lib/native-link.js";
import { navigate } from "./lib/navigation.js";
import { InFlight } from "./lib/in-flight.js";
import { Openers } from "./lib/openers.js";
import { privilegedScheme, refuseProtectedTab } from "./lib/privileged.js";
import { createRefFloor } from "./lib/ref-floor.js";
import { createScreenshots } from "./lib/screenshot.js";
import { stopWorkspaceLoads } from "./lib/stop-loads.js";
import { createTabControl } from "./lib/tab-control.js";
import { createTabOps } from "./lib/tab-ops.js";
import { TabViews } from "./lib/tab-views.js";
import { firstUrl, getTab, pendingUrlOf, tabUrl } from "./lib/tab-lookup.js";
import { createTopologyStore } from "./lib/topology-store.js";
import { resizeWindow } from "./lib/window-ops.js";
import { WorkspaceBook } from "./lib/workspaces.js";

const log = (...parts) => console.debug("[ghostlight]", ...parts);

let book = new WorkspaceBook();
const store = createTopologyStore(chrome.storage.session, () => book);
const debuggers = new DebuggerSessions(chrome);
// Each tab as Chrome last reported it: what a page operation is judged on before it goes out.
const tabViews = new TabViews(chrome);
const sendCdp = (tabId, method, params) => debuggers.send(tabId, method, params);
const chunks = new ChunkAssembler();
const buffers = new EventBuffers();
const openers = new Openers();
const inFlight = new InFlight();
// How often a settle looks whether the tab a page opened was reported yet.
const OPENED_POLL_MS = 5;
const capture = createCapture({
  chromeApi: chrome,
  buffers,
  cdp: sendCdp,
  sessionArea: chrome.storage.session,
});
const screenshots = createScreenshots({ chromeApi: chrome, cdp: sendCdp });
const refFloor = createRefFloor(chrome.storage.session);
// Open JavaScript dialogs per tab (Page.javascriptDialogOpening), for the `dialog` op, and the
// gate that keeps an open dialog from hanging the requests that touch the tab's page.
const dialogBook = new DialogBook();
const dialogs = createDialogOps({ book: dialogBook, cdp: sendCdp });
const gate = createDialogGate({ book: dialogBook, watch: (tabId) => dialogs.watch(tabId) });
const cdpSequence = createCdpSequence({ send: (...command) => debuggers.send(...command), gate });
const cdpCommand = createCdpCommand({ send: (...command) => debuggers.send(...command), gate });
const tabControl = createTabControl({ chromeApi: chrome });
// narrate's caption in the tab group's title, where no page reaches.
const groupCaptions = createGroupCaptions({ chromeApi: chrome, area: chrome.storage.session, log });
let chunkSweepTimer = null;
let identity = null;
// What the service told us in its welcome (slot, negotiated features); informational.
let session = null;

const tabOps = createTabOps({
  chromeApi: chrome,
  book: {
    // Indirection so rehydration can swap the book without rebuilding the ops.
    get: (g) => book.get(g),
    keys: () => book.keys(),
    ensure: (g) => book.ensure(g),
    addTab: (g, t) => book.addTab(g, t),
    removeTab: (t) => book.removeTab(t),
    setGroup: (g, id, w) => book.setGroup(g, id, w),
    forgetGroup: (id) => book.forgetGroup(id),
    forgetWorkspace: (g) => book.forgetWorkspace(g),
    releaseTab: (t) => book.releaseTab(t),
    isUndecided: (t) => book.isUndecided(t),
    workspaceOfTab: (t) => book.workspaceOfTab(t),
  },
  persist: (guid) => store.persist(guid),
  prepareTab: keepWorkersOut,
});

// An agent's tab is under a debugger session from its start: the session keeps service workers
// out of its pages (debugger.js), so that a worker registered from another workspace's tab on
// the same site can neither serve, watch nor steer it. Best effort.
function keepWorkersOut(tabId) {
  return debuggers.prepare(tabId);
}

const dispatcher = createDispatcher({
  ping: async () => ({}),
  tabs_context: (args, request) => tabOps.tabsContext(args, request),
  tabs_create: (args, request) => tabOps.tabsCreate(args, request),
  tab_info: (args) => tabOps.tabInfo(args),
  // After the tab's debugger session, if one is being made: its page loads with workers kept out.
  navigate: async (args, _request, { signal }) => {
    await debuggers.made(requireTabId(args));
    return browserSide(
      args,
      () => navigate(chrome, args, { cdp: (tabId, method, params) => debuggers.send(tabId, method, params, signal), signal }),
      { navigates: true },
    );
  },
  // `tabFacts`: the answer also says where the tab was as the command went out (its url and
  // title, the browser's word: the page a script ran in), so its result needs no listing.
  cdp: enteringPage(async (args, _request, { signal, tab }) => {
    const tabId = requireTabId(args);
    const answer = await cdpCommand(tabId, args.method, args.params, { signal, waitMs: args.wait_ms });
    if (args.tabFacts !== true || !answer || answer.dialog || answer.pending) return answer;
    return { ...answer, tab: { url: tabUrl(tab), title: tab.title || "" } };
  }),
  cdp_sequence: enteringPage(sequenceWithSettle),
  // Only a reload can meet a new dialog (beforeunload); focus and close need no watching.
  tab_control: (args, _request, { signal }) =>
    browserSide(args, () => tabControl.tabControl(args, { signal }), {
      watch: args.action === "reload",
      navigates: args.action === "reload",
    }),
  dialog: enteringPage((args) => dialogs.dialog(args)),
  // Starting capture enables a CDP domain, which waits for the page; reading a buffer does not.
  capture_read: enteringPage(async (args) => {
    const tabId = requireTabId(args);
    if (buffers.isCapturing(tabId, args.kind)) return capture.captureRead(args);
    return pageRead(tabId, () => capture.captureRead(args));
  }),
  screenshot: enteringPage((args, _request, { signal }) =>
    pageRead(requireTabId(args), () => screenshots.screenshot(args, { signal }))),
  window_resize: (args) => resizeWindow(chrome, args),
  group_caption: (args) => groupCaptions.show(args),
  // The page the browser committed in an embedded frame of another site (a process of its own,
  // absent from the tab's frame tree), by the frame's id: never what its `src` says.
  frame_url: async (args) => {
    requireTabId(args);
    const frameId = typeof args.frameId === "string" ? args.frameId : "";
    const found = frameId ? (await chrome.debugger.getTargets()).find((target) => target.id === frameId) : null;
    return { frameId, url: found && typeof found.url === "string" ? found.url : null };
  },
  content: enteringPage(contentWithSettle),
  // An input request with what the page was before it, in one round trip: the page is observed
  // (`observe`: the observation's {args, timeoutMs}) and then, unless the observation shows one
  // of the facts `holdIf` names (say, keyboard focus in an embedded frame, which the service
  // judges before input goes there), `then` ({op: "cdp_sequence" | "content", args}) is carried
  // out. A held request sends nothing; the service decides and asks again.
  observed: enteringPage(async (args, request, options) => {
    const tabId = requireTabId(args);
    const then = args.then && typeof args.then === "object" ? args.then : {};
    const carry = OBSERVED_THEN[then.op];
    if (!carry) throw new OpError("args.then.op must be cdp_sequence or content", { code: "bad_args" });
    const look = args.observe && typeof args.observe === "object" ? args.observe : {};
    const holdIf = Array.isArray(args.holdIf) ? args.holdIf : [];
    if (then.op === "content" && !holdIf.length) {
      const once = await contentObserved(tabId, look, then.args || {}, options);
      if (once) return once;
    }
    let observed = null;
    try {
      observed = await pageMechanism({ tabId, fn: "observe", args: look.args || {}, timeoutMs: look.timeoutMs }, options.signal, options.tab);
    } catch (err) {
      if (err && err.code === DIALOG_OPEN_CODE) throw err; // refused unsent, as the input would be
      // Best effort, as a separate observation is: a page no script enters still takes input.
    }
    const seen = observed && observed.value;
    if ((observed && observed.dialog) || (seen && holdIf.some((fact) => seen[fact]))) return { observed, held: true };
    return { observed, answer: await carry({ ...then.args, tabId }, request, options) };
  }),
  // After an input action: the page's `settle` (its DOM at rest), and then the requests the
  // action started (since `args.requestsSinceMs` ago) finished, with the page asked again once they
  // did, all within `args.args.maxMs`. One answer, so the service never polls.
  settle: enteringPage((args, _request, { signal }) =>
    settleTab(requireTabId(args), args, performance.now(), signal)),
});

// `cdp_sequence`. `settle` (the settle op's `args`): once every command went through, the page is
// asked to come to rest as the settle op does, and its answer is `settled`: one round trip for an
// action and its receipt.
async function sequenceWithSettle(args, _request, { signal }) {
  const tabId = requireTabId(args);
  const began = performance.now();
  const answer = await cdpSequence(tabId, requireCommands(args), signal);
  if (!args.settle || typeof args.settle !== "object" || answer.dialog) return answer;
  return withSettled(tabId, answer, args.settle, began, signal);
}

// `content`, with `settle` as for cdp_sequence once the mechanism acted. A mechanism that answers
// `awaitingText` has not acted yet (the text goes in as browser input next): no settle then.
async function contentWithSettle(args, _request, { signal, tab }) {
  const began = performance.now();
  const answer = await pageMechanism(args, signal, tab);
  const value = answer && answer.value;
  if (!args.settle || typeof args.settle !== "object" || answer.dialog || (value && value.awaitingText)) return answer;
  return withSettled(requireTabId(args), answer, args.settle, began, signal);
}

// `first`: the page's own answer to the settle, when it was asked with the action (`acted`).
async function withSettled(tabId, answer, settle, began, signal, first = null) {
  try {
    return { ...answer, settled: await settleTab(tabId, settle, began, signal, first) };
  } catch {
    // The action went through; the page could not be asked (it is leaving, say): the service
    // asks again on its own, never reads this as the action failing.
    return answer;
  }
}

// `observed` with a content mechanism, asked of the page in one message (its `acted`
// mechanism: the observation, the mechanism, and its wait for rest), then the requests the action
// started waited for as settleTab does. Null from a page script without `acted`: asked apart.
async function contentObserved(tabId, look, then, { signal, tab }) {
  const settle = then.settle && typeof then.settle === "object" ? then.settle : null;
  const began = performance.now();
  let out;
  try {
    const args = { observe: look.args || {}, fn: then.fn, args: then.args || {}, settle: settle ? settle.args || {} : null };
    const timeoutMs = (Number(then.timeoutMs) || CONTENT_TIMEOUT_MS) + (settle ? Number(settle.timeoutMs) || 0 : 0);
    out = await pageMechanism({ tabId, fn: "acted", args, timeoutMs }, signal, tab);
  } catch (err) {
    if (err && err.code === "unknown_mechanism") return null;
    throw err;
  }
  // A dialog the action opened (its handlers run as the value goes in, or as the page settles).
  if (out.dialog) return { observed: null, answer: { value: null, dialog: out.dialog } };
  const { before = null, value = null, settled = null } = out.value || {};
  const pending = out.pendingUrl ? { pendingUrl: out.pendingUrl } : {};
  const answer = { value, ...pending };
  const whole = settled ? await withSettled(tabId, answer, settle, began, signal, { value: settled, ...pending }) : answer;
  return { observed: { value: before }, answer: whole };
}

const OBSERVED_THEN = { cdp_sequence: sequenceWithSettle, content: contentWithSettle };

// The page's `settle` mechanism (`request.args`: its arguments; `timeoutMs`), then the requests
// the action started (since `request.args.requestsSinceMs` before `from`) finished, with the page
// asked again once they did, all within `request.args.maxMs`.
// `first`: the page's own answer, when it was asked already (with the action, `acted`).
async function settleTab(tabId, request, from, signal, first = null) {
  const asked = performance.now();
  const wait = request.args || {};
  const since = from - Math.max(0, Number(wait.requestsSinceMs) || 0);
  const deadline = (first ? from : asked) + Math.max(0, Number(wait.maxMs) || 0);
  const ask = (extra) => pageMechanism({ ...request, tabId, fn: "settle", args: { ...wait, ...extra } }, signal);
  let answer = first || (await ask({}));
  const started = () => inFlight.pending(tabId, since);
  while (answer.value && answer.value.rest === "quiet" && started().length && performance.now() < deadline) {
    await inFlight.drained(tabId, since, deadline, signal);
    answer = await ask({ maxMs: Math.max(0, deadline - performance.now()), sinceMs: 0 });
  }
  // A window the action opened: its tab is reported (tab_created, on the same port) before
  // this answer, so the action's answer names it.
  const announcedSince = Date.now() - (performance.now() - since);
  while (openers.awaiting(tabId, announcedSince) && performance.now() < deadline && !(signal && signal.aborted)) {
    await new Promise((resolve) => setTimeout(resolve, OPENED_POLL_MS));
  }
  const pending = started();
  if (answer.value && pending.length) {
    answer.value = { ...answer.value, rest: answer.value.rest === "quiet" ? "loading" : answer.value.rest };
    answer.value.requestsPending = pending.length;
  }
  // Where the tab is heading is read now, after the wait, not as the page was first asked: a
  // navigation the action began meanwhile (a form sent to a slow server) is named.
  if (answer.value) {
    const tab = await getTab(chrome, tabId).catch(() => null);
    const heading = tab ? pendingUrlOf(tab) : null;
    if (heading) answer.pendingUrl = heading;
    else if (tab) delete answer.pendingUrl;
  }
  return answer;
}

// One content mechanism in the tab's top frame, through the dialog gate. `tab`: the tab as
// the operation read it a moment ago (its first mechanism), spared another lookup.
async function pageMechanism(args, signal, tab = null) {
  const tabId = requireTabId(args);
  const run = () =>
    runContent(chrome, args, {
      files: contentScriptFiles(chrome.runtime.getManifest()),
      timeoutMs: Number.isFinite(args.timeoutMs) ? Math.max(1, args.timeoutMs) : CONTENT_TIMEOUT_MS,
      signal,
      refFloor,
      cdp: (id, method, params) => debuggers.send(id, method, params, signal),
      tab,
    });
  const out = await gate.run(tabId, run);
  return out.dialog ? { value: null, dialog: out.dialog } : out.value;
}

// An operation that reads, scripts, captures or drives the tab's page: refused, with nothing
// sent, on a page no agent may enter (privileged.js), whatever the service asked. The tab is
// judged as Chrome last reported it (tab-views.js), and the handler gets it so (`options.tab`).
function enteringPage(handler) {
  return async (args, request, options) => {
    const tab = await refuseProtectedTab(chrome, requireTabId(args), { read: (id) => tabViews.read(id) });
    return handler(args, request, { ...options, tab });
  };
}

// capture_read and screenshot: through the gate; a dialog that opens meanwhile fails them like
// one that was already open (they have no use for a partial answer).
async function pageRead(tabId, start) {
  const out = await gate.run(tabId, start);
  if (out.dialog) throw dialogOpenError(tabId, out.dialog);
  return out.value;
}

// navigate and tab_control: the browser carries them out, also while a dialog is open (a
// navigation closes it); a dialog opening meanwhile (e.g. beforeunload) answers them at once.
async function browserSide(args, start, options) {
  const tabId = requireTabId(args);
  const out = await gate.browserSide(tabId, start, options);
  if (out.dialog) {
    const tab = await getTab(chrome, tabId);
    const action = typeof args.action === "string" ? { action: args.action } : {};
    return { ...action, tabId, url: tabUrl(tab), title: tab.title || "", loaded: false, dialog: out.dialog };
  }
  return out.closed ? { ...out.value, closedDialog: { type: out.closed.type } } : out.value;
}

const HEADLESS = isHeadless(self.navigator && self.navigator.userAgent);

const link = new NativeLink({
  connect: () => chrome.runtime.connectNative(NATIVE_HOST_NAME),
  hello: () =>
    helloFrame({
      browserId: identity.browserId,
      generation: identity.generation,
      extensionVersion: chrome.runtime.getManifest().version,
      features: FEATURES,
      headless: HEADLESS,
    }),
  onFrame: (frame) => {
    handleFrame(frame).catch((err) => log("frame handling failed", err));
  },
  onDown: () => {
    session = null;
    // Transfers in progress belonged to the lost port; the service fails those calls itself.
    chunks.clear();
  },
  lastError: () => chrome.runtime.lastError?.message || null,
  log,
});

const ready = (async () => {
  identity = await loadIdentity(chrome.storage.local, chrome.storage.session);
  book = WorkspaceBook.fromSnapshot(await store.load());
  try {
    const [tabs, groups] = await Promise.all([chrome.tabs.query({}), chrome.tabGroups.query({})]);
    book.reconcile(tabs, groups.map((g) => g.id));
  } catch (err) {
    log("reconcile failed", err);
  }
  await store.persist();
  try {
    await groupCaptions.resume();
  } catch (err) {
    log("resuming narrate captions failed", err);
  }
  await chrome.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: KEEPALIVE_PERIOD_MINUTES });
  log(`worker ready; ${book.workspaces.size} workspace(s), ${book.managed.size} managed tab(s) restored`);
  link.start();
})();
ready.catch((err) => log("startup failed", err));

async function handleFrame(frame) {
  const incoming = classifyIncoming(frame);
  if (incoming.kind === "stop") {
    stopAll(incoming.reason);
    return;
  }
  if (incoming.kind === "stop_request") {
    // One request's stop: it is answered `stopped` now; its navigation or reload is not undone.
    const stopped = dispatcher.stopOne(incoming.id, incoming.reason);
    log(`stop_request: ${incoming.id} ${stopped ? "stopped" : "not in flight; ignored"}`, incoming.reason || "");
    return;
  }
  // Stamped on arrival: a request that arrived before a stop is answered `stopped`, never run.
  const arrivedAt = dispatcher.epoch();
  await ready;
  switch (incoming.kind) {
    case "welcome":
      session = { slot: incoming.slot, features: incoming.features, serviceVersion: incoming.serviceVersion };
      link.welcomed();
      if (incoming.liveWorkspaces) {
        const ended = await tabOps.workspacesLive(incoming.liveWorkspaces, { closeTabs: HEADLESS });
        if (ended) log(`${ended} workspace(s) the service no longer has are marked ended`);
      }
      break;
    case "incompatible":
      log("service is incompatible:", incoming.message);
      link.incompatible();
      break;
    case "request":
      await runRequest(incoming.request, arrivedAt);
      break;
    case "invalid_request":
      link.reply(errorFrame(incoming.id, `Malformed request: ${incoming.message}`, "extension", "bad_request"));
      break;
    case "chunk":
      await acceptChunk(incoming.frame, arrivedAt);
      break;
    case "workspace_ended":
      if (await tabOps.workspaceEnded(incoming.guid, incoming.title, { closeTabs: incoming.closeTabs })) {
        log("a workspace ended; its group is marked or its tabs closed");
      }
      break;
    default:
      break; // unknown frames are ignored by design
  }
}

async function runRequest(request, arrivedAt) {
  const reply = await dispatcher.dispatch(request, arrivedAt);
  if (reply) link.reply(reply);
}

// The service's kill switch: every request in flight is answered `stopped` now (its dispatch
// resolves with that reply) and its waits end. Then, as the browser's Stop button would, the
// loads still running in workspace tabs and in tabs a stopped request named are stopped; the
// replies do not wait for that. Nothing else already set going is undone.
function stopAll(reason) {
  const stopped = dispatcher.stop(reason);
  const named = new Set(dispatcher.stoppedTabIds());
  log(`stop: ${stopped.length} request(s) stopped`, reason || "");
  // Before `ready` the book is still the empty one, so only the named tabs count then. No
  // signal for the CDP command: the stop must not refuse it.
  const isWorkspaceTab = (tabId) => named.has(tabId) || book.workspaceOfTab(tabId) != null;
  stopWorkspaceLoads(chrome, { isWorkspaceTab, cdp: sendCdp })
    .then((tabIds) => log(`stop: asked ${tabIds.length} loading tab(s) to stop loading`))
    .catch((err) => log("stop: stopping page loads failed", err));
}

async function acceptChunk(frame, arrivedAt) {
  const outcome = await chunks.accept(frame);
  scheduleChunkSweep();
  if (outcome.kind === "complete") await runRequest(outcome.frame, arrivedAt);
  else if (outcome.kind === "rejected") link.reply(errorFrame(outcome.requestId, outcome.message, "extension", "large_request_rejected"));
}

function scheduleChunkSweep() {
  if (chunkSweepTimer !== null) clearTimeout(chunkSweepTimer);
  chunkSweepTimer = null;
  const at = chunks.nextExpiryAt();
  if (at === null) return;
  chunkSweepTimer = setTimeout(() => {
    chunkSweepTimer = null;
    for (const outcome of chunks.sweep()) {
      link.reply(errorFrame(outcome.requestId, outcome.message, "extension", "large_request_rejected"));
    }
    scheduleChunkSweep();
  }, Math.max(0, at - Date.now()) + 50);
}

// ---- browser events -------------------------------------------------------------------

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== KEEPALIVE_ALARM) return;
  ready.then(() => link.start());
});

chrome.runtime.onStartup.addListener(() => {
  // Top-level code already connects; registering the listener makes Chrome start us early.
});

chrome.tabs.onRemoved.addListener((tabId) => {
  inFlight.forget(tabId);
  ready.then(() => {
    debuggers.closed(tabId);
    buffers.forget(tabId);
    openers.forget(tabId);
    dialogs.detached(tabId);
    dialogBook.forget(tabId);
    if (book.removeTab(tabId)) {
      store.persist();
      link.send(tabRemovedFrame(tabId));
    }
  });
});

chrome.tabs.onCreated.addListener((tab) => {
  ready.then(async () => {
    // Chrome links it to the active tab, which may be a managed tab or, when the user's own tab
    // is the active one, not; the page that really opened it is the one that announced a
    // window for the URL it loads (see openers.js). It joins that tab's workspace and the
    // service is told.
    if (!book.isManaged(tab.openerTabId) && !openers.expecting()) return;
    book.undecided.add(tab.id); // no workspace's listing takes it from its group meanwhile
    let url;
    try {
      url = await firstUrl(chrome, tab);
    } finally {
      book.undecided.delete(tab.id);
    }
    if (url === null) return; // closed already
    const opener = openers.take(url);
    if (opener === null || !book.isManaged(opener)) return;
    const owner = book.workspaceOfTab(opener);
    if (owner !== null) {
      book.addTab(owner, tab.id);
      keepWorkersOut(tab.id).catch(() => {});
      store.persist();
      tabOps.placeChild(tab, owner).catch((err) => log("placing a child tab failed", err));
    }
    link.send(tabCreatedFrame(tab.id, opener, tab.active));
  });
});

chrome.tabGroups.onRemoved.addListener((group) => {
  ready.then(() => {
    book.forgetGroup(group.id);
    store.persist();
  });
});

chrome.windows.onFocusChanged.addListener((windowId) => {
  if (windowId === chrome.windows.WINDOW_ID_NONE) return;
  ready.then(() => link.send(focusFrame()));
});

chrome.debugger.onDetach.addListener((source) => {
  if (!Number.isInteger(source.tabId)) return;
  debuggers.forget(source.tabId);
  inFlight.forget(source.tabId);
  dialogs.detached(source.tabId);
  buffers.stop(source.tabId, "the debugger was detached from the tab, which stops capture");
});

// Console and network capture (capture_read) and screenshots of background tabs (screencast
// frames) are fed by the tab's debugger events.
chrome.debugger.onEvent.addListener((source, method, params) => {
  if (!Number.isInteger(source.tabId)) return;
  buffers.onEvent(source.tabId, method, params);
  inFlight.onEvent(source.tabId, method, params);
  openers.onEvent(source.tabId, method, params);
  dialogBook.onEvent(source.tabId, method, params);
  screenshots.onEvent(source.tabId, method, params);
});

chrome.tabs.onUpdated.addListener((tabId, changeInfo) => {
  if (changeInfo.url) buffers.noteHost(tabId, hostOf(changeInfo.url));
  // A debugger session never stays on a page no agent may enter (however the tab got there).
  if (changeInfo.url && privilegedScheme(changeInfo.url)) debuggers.detach(tabId).catch(() => {});
  if (changeInfo.groupId !== undefined) {
    ready
      .then(() => tabOps.groupChanged(tabId, changeInfo.groupId))
      .then((released) => released && link.send(tabReleasedFrame(tabId)))
      .catch((err) => log("following a group change failed", err));
  }
});
