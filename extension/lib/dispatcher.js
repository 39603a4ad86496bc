// Maps a request's op to its handler and turns the outcome into exactly one reply frame.
// Pure: handlers are injected. Also drops a second copy of a request still in flight.
//
// `stop()` (the service's `stop` frame, sent for the kill switch) answers every request in
// flight at once with the `stopped` error and aborts the AbortSignal its handler got, so the
// handler's own waits (load waits, page answers, screencast frames) end too. A request that
// arrived before the stop but had not started yet is answered the same way and never runs:
// callers stamp each request with `epoch()` when it arrives and pass the stamp to `dispatch`.
// `stoppedTabIds()` then names the tabs those stopped requests were working on (`args.tabId`),
// so the kill switch can stop their loads too.
//
// `stopOne(id, reason)` (the service's `stop_request` frame) does the same for one request in
// flight only: it is answered `stopped` and its signal aborted. Nothing else changes: other
// requests, `epoch()` and `stoppedTabIds()` stay as they were, and an id not in flight is
// ignored (nothing is kept for a request that has not started or has been answered).

import { errorFrame, errorFrameFrom, responseFrame, stoppedError } from "./frames.js";
import { onStop } from "./stopping.js";

// What a `stopped` error of a request stopped alone says when the service gave no reason.
export const ONE_STOPPED_REASON = "the service stopped this request";

export function createDispatcher(handlers) {
  const inFlight = new Map(); // id -> {controller, tabId}
  let stops = 0;
  let lastReason = "";
  let lastTabIds = [];

  // Resolves to the reply frame, or null for a duplicate of an in-flight request.
  async function dispatch(request, arrivedAt = stops) {
    const { id, op } = request;
    if (inFlight.has(id)) return null;
    if (arrivedAt < stops) return errorFrameFrom(id, stoppedError(lastReason));
    const handler = Object.prototype.hasOwnProperty.call(handlers, op) ? handlers[op] : null;
    if (!handler) return errorFrame(id, `Unknown operation: ${op}`, "extension", "unknown_op");
    const controller = new AbortController();
    const { signal } = controller;
    const tabId = request.args && Number.isInteger(request.args.tabId) ? request.args.tabId : null;
    inFlight.set(id, { controller, tabId });
    try {
      // The race also handles a late outcome of the handler after a stop.
      const work = Promise.resolve().then(() => handler(request.args || {}, request, { signal }));
      const result = await Promise.race([work, new Promise((resolve) => onStop(signal, resolve))]);
      if (!signal.aborted) return responseFrame(id, result);
    } catch (err) {
      if (!signal.aborted) return errorFrameFrom(id, err);
    } finally {
      inFlight.delete(id);
    }
    // Stopped: whatever the handler did or does next, the answer is `stopped`.
    return errorFrameFrom(id, stoppedError(signal.reason));
  }

  // Stops everything in flight; returns the ids stopped (each gets its reply from dispatch).
  function stop(reason = "") {
    stops += 1;
    lastReason = reason;
    const entries = [...inFlight.entries()];
    lastTabIds = [...new Set(entries.map(([, entry]) => entry.tabId).filter((tabId) => tabId !== null))];
    for (const [, entry] of entries) entry.controller.abort(reason);
    return entries.map(([id]) => id);
  }

  // Stops one request in flight (it gets its reply from dispatch); true when it was in flight.
  function stopOne(id, reason = "") {
    const entry = inFlight.get(id);
    if (!entry) return false;
    entry.controller.abort(typeof reason === "string" && reason.trim() ? reason : ONE_STOPPED_REASON);
    return true;
  }

  // The tabs named by the requests the latest stop stopped (each once).
  const stoppedTabIds = () => [...lastTabIds];

  return { dispatch, stop, stopOne, stoppedTabIds, epoch: () => stops, inFlightCount: () => inFlight.size };
}
