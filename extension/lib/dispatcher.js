// Maps a request's op to its handler and turns the outcome into exactly one reply frame.
// Pure: handlers are injected. Also drops a second copy of a request still in flight.
//
// `stop()` (the service's `stop` frame, sent for the kill switch) answers every request in
// flight at once with the `stopped` error and aborts the AbortSignal its handler got, so the
// handler's own waits (load waits, page answers, screencast frames) end too. A request that
// arrived before the stop but had not started yet is answered the same way and never runs:
// callers stamp each request with `epoch()` when it arrives and pass the stamp to `dispatch`.

import { errorFrame, errorFrameFrom, responseFrame, stoppedError } from "./frames.js";

export function createDispatcher(handlers) {
  const inFlight = new Map(); // id -> AbortController
  let stops = 0;
  let lastReason = "";

  // Resolves to the reply frame, or null for a duplicate of an in-flight request.
  async function dispatch(request, arrivedAt = stops) {
    const { id, op } = request;
    if (inFlight.has(id)) return null;
    if (arrivedAt < stops) return errorFrameFrom(id, stoppedError(lastReason));
    const handler = Object.prototype.hasOwnProperty.call(handlers, op) ? handlers[op] : null;
    if (!handler) return errorFrame(id, `Unknown operation: ${op}`, "extension", "unknown_op");
    const controller = new AbortController();
    inFlight.set(id, controller);
    try {
      const work = Promise.resolve().then(() => handler(request.args || {}, request, { signal: controller.signal }));
      work.catch(() => {}); // after a stop its outcome is no longer anyone's
      const result = await Promise.race([work, whenAborted(controller.signal)]);
      if (controller.signal.aborted) return errorFrameFrom(id, stoppedError(controller.signal.reason));
      return responseFrame(id, result);
    } catch (err) {
      if (controller.signal.aborted) return errorFrameFrom(id, stoppedError(controller.signal.reason));
      return errorFrameFrom(id, err);
    } finally {
      inFlight.delete(id);
    }
  }

  // Stops everything in flight; returns the ids stopped (each gets its reply from dispatch).
  function stop(reason = "") {
    stops += 1;
    lastReason = reason;
    const ids = [...inFlight.keys()];
    for (const controller of inFlight.values()) controller.abort(reason);
    return ids;
  }

  return { dispatch, stop, epoch: () => stops, inFlightCount: () => inFlight.size };
}

function whenAborted(signal) {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined), { once: true }));
}
