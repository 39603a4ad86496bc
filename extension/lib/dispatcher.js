// Maps a request's op to its handler and turns the outcome into exactly one reply frame.
// Pure: handlers are injected. Also drops a second copy of a request still in flight.

import { errorFrame, errorFrameFrom, responseFrame } from "./frames.js";

export function createDispatcher(handlers) {
  const inFlight = new Set();

  // Resolves to the reply frame, or null for a duplicate of an in-flight request.
  async function dispatch(request) {
    const { id, op } = request;
    if (inFlight.has(id)) return null;
    const handler = Object.prototype.hasOwnProperty.call(handlers, op) ? handlers[op] : null;
    if (!handler) return errorFrame(id, `Unknown operation: ${op}`, "extension", "unknown_op");
    inFlight.add(id);
    try {
      const result = await handler(request.args || {}, request);
      return responseFrame(id, result);
    } catch (err) {
      return errorFrameFrom(id, err);
    } finally {
      inFlight.delete(id);
    }
  }

  return { dispatch, inFlightCount: () => inFlight.size };
}
