// Ending an operation's waits when its request is stopped (the service's `stop` frame; see
// dispatcher.js). The dispatcher has already answered the request by then: these helpers only
// make sure the operation starts nothing new and releases its timers, listeners and casts.

import { stoppedError } from "./frames.js";

// Calls `fn` once when `signal` aborts (at once if it already has). Returns a function that
// unregisters it. Without a signal nothing is ever stopped.
export function onStop(signal, fn) {
  if (!signal) return () => {};
  if (signal.aborted) {
    fn();
    return () => {};
  }
  const listener = () => fn();
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

// Throws the `stopped` error if the request was stopped: call it before each new effect.
export function throwIfStopped(signal) {
  if (signal && signal.aborted) throw stoppedError(signal.reason);
}

// Resolves after `ms`, or rejects with the `stopped` error as soon as the request is stopped.
export function stoppableSleep(ms, signal, sleep = (t) => new Promise((r) => setTimeout(r, t))) {
  if (!signal) return sleep(ms);
  return new Promise((resolve, reject) => {
    const off = onStop(signal, () => reject(stoppedError(signal.reason)));
    sleep(ms).then(() => {
      off();
      resolve();
    });
  });
}

// The promise's value, or null if it did not settle within `ms` (a rejection is thrown, and
// so is the `stopped` error once the request is stopped).
export async function within(promise, ms, signal) {
  let timer = null;
  let offStop = () => {};
  const late = new Promise((resolve, reject) => {
    timer = setTimeout(() => resolve(null), ms);
    offStop = onStop(signal, () => reject(stoppedError(signal.reason)));
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
    offStop();
  }
}
