// The native-messaging port to the browser connector, with reconnection.
// The hello frame always goes first on every new port. Replies produced while no port is
// open are held briefly (bounded) and flushed after the next hello, because the service
// keeps unanswered calls alive for a short grace window across reconnects.
// chrome.runtime.connectNative is injected so the reconnect rules can be tested in Node.

import { OUTBOX, RECONNECT } from "./constants.js";

export class NativeLink {
  constructor({
    connect, // () => Port (chrome.runtime.connectNative bound to the host name)
    hello, // () => hello frame
    onFrame, // (frame) => void
    onDown = () => {}, // () => void, after a port is lost
    lastError = () => null, // () => string|null, reads chrome.runtime.lastError
    timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (t) => clearTimeout(t) },
    now = () => Date.now(),
    log = () => {},
  }) {
    Object.assign(this, { connect, hello, onFrame, onDown, lastError, timers, now, log });
    this.port = null;
    this.connectedAt = 0;
    this.retryTimer = null;
    this.nextDelayMs = RECONNECT.initialDelayMs;
    this.outbox = [];
  }

  get connected() {
    return this.port !== null;
  }

  // Connects unless a port is open or a retry is already scheduled. Safe to call often
  // (the keepalive alarm does).
  start() {
    if (this.port || this.retryTimer !== null) return;
    this.#open();
  }

  // Sends a frame on the open port. Returns false when there is no port.
  send(frame) {
    if (!this.port) return false;
    try {
      this.port.postMessage(frame);
      return true;
    } catch (err) {
      this.log("post failed", err && err.message);
      this.#lost(this.port);
      return false;
    }
  }

  // Sends a reply, or holds it for the next port when disconnected.
  reply(frame) {
    if (this.send(frame)) return;
    this.#pruneOutbox();
    if (this.outbox.length >= OUTBOX.maxFrames) this.outbox.shift();
    this.outbox.push({ frame, at: this.now() });
  }

  // The service accepted us: the link is healthy again.
  welcomed() {
    this.nextDelayMs = RECONNECT.initialDelayMs;
  }

  // The service speaks another wire major. Close and retry only after a long pause
  // (the user may update one side meanwhile).
  incompatible() {
    const port = this.port;
    this.nextDelayMs = RECONNECT.incompatibleDelayMs;
    if (port) {
      try {
        port.disconnect();
      } catch {
        // already closed
      }
      this.#lost(port, { keepDelay: true });
    }
  }

  #open() {
    let port;
    try {
      port = this.connect();
    } catch (err) {
      this.log("connectNative threw", err && err.message);
      this.#scheduleRetry();
      return;
    }
    this.port = port;
    this.connectedAt = this.now();
    port.onMessage.addListener((frame) => {
      if (this.port === port) this.onFrame(frame);
    });
    port.onDisconnect.addListener(() => this.#lost(port));
    if (!this.send(this.hello())) return;
    this.#flushOutbox();
  }

  #lost(port, { keepDelay = false } = {}) {
    if (this.port !== port) return;
    const reason = this.lastError();
    this.port = null;
    const upFor = this.now() - this.connectedAt;
    if (!keepDelay && upFor >= RECONNECT.healthyAfterMs) this.nextDelayMs = RECONNECT.initialDelayMs;
    this.log("native port lost", reason || "");
    this.onDown();
    this.#scheduleRetry();
  }

  #scheduleRetry() {
    if (this.retryTimer !== null) return;
    const delay = this.nextDelayMs;
    if (delay < RECONNECT.incompatibleDelayMs) {
      this.nextDelayMs = Math.min(delay * 2, RECONNECT.maxDelayMs);
    }
    this.retryTimer = this.timers.set(() => {
      this.retryTimer = null;
      this.start();
    }, delay);
  }

  #pruneOutbox() {
    const oldest = this.now() - OUTBOX.maxAgeMs;
    this.outbox = this.outbox.filter((item) => item.at >= oldest);
  }

  #flushOutbox() {
    this.#pruneOutbox();
    const pending = this.outbox;
    this.outbox = [];
    for (const item of pending) this.send(item.frame);
  }
}
