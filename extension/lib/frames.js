// Builders and classifiers for browser-wire frames. Pure: no chrome.* use.

import { FEATURES, GROUP_COLORS, HOPS, WIRE_VERSION } from "./constants.js";

// An operation failure that knows which hop it belongs to, so the service can word it.
// `dialog`: the JavaScript dialog that stopped it (code `dialog_open`), sent along.
// `completed`: for a command sequence, how many of its commands were answered before it failed.
export class OpError extends Error {
  // `errorPage`: why the tab shows the browser's error page ({netError, httpStatus?}), when a
  // request failed on one and the cause could be read.
  constructor(message, { hop = HOPS.extension, code, dialog, errorPage } = {}) {
    super(message);
    this.name = "OpError";
    this.hop = hop;
    if (code) this.code = code;
    if (dialog && typeof dialog === "object") this.dialog = dialog;
    if (errorPage && typeof errorPage === "object" && errorPage.netError) this.errorPage = errorPage;
  }
}

// `headless`: a browser without a screen (no one sees its tabs), a fact the service may use.
export function helloFrame({ browserId, generation, extensionVersion, features = FEATURES, headless = false }) {
  return {
    type: "hello",
    wire: WIRE_VERSION,
    browserId,
    generation,
    extensionVersion,
    features: [...features],
    headless: headless === true,
  };
}

// Chrome names itself HeadlessChrome in the user agent when it runs without a screen.
export function isHeadless(userAgent) {
  return typeof userAgent === "string" && userAgent.includes("HeadlessChrome");
}

export function responseFrame(id, result) {
  return { type: "response", id, result: result ?? {} };
}

export function errorFrame(id, message, hop = HOPS.extension, code) {
  const error = { message: String(message || "Unknown error"), hop: normalizeHop(hop) };
  if (code) error.code = String(code);
  return { type: "error", id, error };
}

// Turns anything thrown by an operation into an error frame for that request.
export function errorFrameFrom(id, err) {
  if (err instanceof OpError) {
    const frame = errorFrame(id, err.message, err.hop, err.code);
    if (err.dialog) frame.error.dialog = err.dialog;
    if (err.errorPage) frame.error.errorPage = err.errorPage;
    if (Number.isInteger(err.completed)) frame.error.completed = err.completed;
    if (err.delivered === true) frame.error.delivered = true;
    return frame;
  }
  const message = err && typeof err.message === "string" ? err.message : String(err);
  return errorFrame(id, message, HOPS.extension);
}

// The error a request gets when the service's `stop` frame ended it (the kill switch), or its
// `stop_request` frame ended that one request: the request had started, so what it set going
// may or may not have taken effect.
export const STOPPED_CODE = "stopped";
const REASON_LIMIT = 200;

export function stoppedError(reason) {
  const why = typeof reason === "string" && reason.trim() ? reason.trim().slice(0, REASON_LIMIT) : "the service stopped all browser work";
  return new OpError(`Stopped before it finished (${why}); what it had already started may or may not have taken effect`, {
    code: STOPPED_CODE,
  });
}

export function tabRemovedFrame(tabId) {
  return { type: "tab_removed", tabId };
}

// A workspace's tab the user moved out of its group (to no group or another one): the service
// stops letting that workspace drive it.
export function tabReleasedFrame(tabId) {
  return { type: "tab_released", tabId };
}

export function tabCreatedFrame(tabId, openerTabId, active = false) {
  const frame = { type: "tab_created", tabId };
  if (Number.isInteger(openerTabId)) frame.openerTabId = openerTabId;
  frame.active = active === true;
  return frame;
}

export function focusFrame() {
  return { type: "focus" };
}

function normalizeHop(hop) {
  return Object.values(HOPS).includes(hop) ? hop : HOPS.extension;
}

// Sorts an incoming service frame into what the worker should do with it.
// Returns {kind: "welcome"|"incompatible"|"request"|"chunk"|"stop"|"stop_request"|
//   "workspace_ended"|"invalid_request"|"ignore", ...}.
export function classifyIncoming(frame) {
  if (!frame || typeof frame !== "object" || Array.isArray(frame)) return { kind: "ignore" };
  switch (frame.type) {
    case "welcome":
      return {
        kind: "welcome",
        slot: frame.slot,
        features: Array.isArray(frame.features) ? frame.features.filter((f) => typeof f === "string") : [],
        serviceVersion: typeof frame.serviceVersion === "string" ? frame.serviceVersion : null,
        // Absent from older services: then nothing is said about other workspaces.
        liveWorkspaces: Array.isArray(frame.liveWorkspaces) ? frame.liveWorkspaces.filter((g) => typeof g === "string") : null,
      };
    case "incompatible":
      return { kind: "incompatible", message: String(frame.message || "incompatible wire") };
    case "chunk":
      return { kind: "chunk", frame };
    case "stop":
      return { kind: "stop", reason: typeof frame.reason === "string" ? frame.reason : "" };
    case "stop_request":
      // One request's stop (feature stopRequestV1); without a usable id there is nothing to stop.
      return typeof frame.id === "string" && frame.id
        ? { kind: "stop_request", id: frame.id, reason: typeof frame.reason === "string" ? frame.reason : "" }
        : { kind: "ignore" };
    case "workspace_ended":
      return typeof frame.guid === "string" && frame.guid
        ? { kind: "workspace_ended", guid: frame.guid, title: groupTitleOf(frame, null), closeTabs: frame.closeTabs === true }
        : { kind: "ignore" };
    case "request": {
      const problem = requestProblem(frame);
      if (problem) {
        // A request we cannot run still gets its one reply when it has an id.
        return typeof frame.id === "string" && frame.id
          ? { kind: "invalid_request", id: frame.id, message: problem }
          : { kind: "ignore" };
      }
      return { kind: "request", request: frame };
    }
    default:
      return { kind: "ignore" };
  }
}

function requestProblem(frame) {
  if (typeof frame.id !== "string" || !frame.id) return "request without an id";
  if (typeof frame.op !== "string" || !frame.op) return "request without an op";
  if (frame.args !== undefined && (typeof frame.args !== "object" || frame.args === null || Array.isArray(frame.args))) {
    return "request args must be an object";
  }
  if (frame.guid !== undefined && frame.guid !== null && typeof frame.guid !== "string") {
    return "request guid must be a string or null";
  }
  return null;
}

// Reads the group title from a request's presentation block, with a fallback.
export function groupTitleOf(request, fallback) {
  const title = request && request.workspace && request.workspace.groupTitle;
  return typeof title === "string" && title.trim() ? title : fallback;
}

// Reads the group colour from a request's presentation block: one of Chrome's group colours
// a live workspace may have, else the fallback.
export function groupColorOf(request, fallback) {
  const color = request && request.workspace && request.workspace.groupColor;
  return GROUP_COLORS.includes(color) ? color : fallback;
}

// Validates a native tab id argument.
export function requireTabId(args) {
  const tabId = args ? args.tabId : undefined;
  if (!Number.isInteger(tabId) || tabId < 0) {
    throw new OpError("args.tabId must be a native tab id (non-negative integer)", { code: "bad_args" });
  }
  return tabId;
}
