// A stand-in for chrome.runtime.Port and for timers, to drive NativeLink in Node.

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), fire: (...args) => listeners.forEach((fn) => fn(...args)) };
}

export class FakePort {
  constructor() {
    this.sent = [];
    this.onMessage = event();
    this.onDisconnect = event();
    this.disconnected = false;
  }
  postMessage(frame) {
    if (this.disconnected) throw new Error("Attempting to use a disconnected port object");
    this.sent.push(frame);
  }
  disconnect() {
    this.disconnected = true;
  }
  // The other side went away.
  drop() {
    this.disconnected = true;
    this.onDisconnect.fire();
  }
}

export class FakeTimers {
  constructor(clock) {
    this.clock = clock;
    this.pending = [];
  }
  set = (fn, ms) => {
    const t = { fn, at: this.clock.t + ms, ms };
    this.pending.push(t);
    return t;
  };
  clear = (t) => {
    this.pending = this.pending.filter((p) => p !== t);
  };
  // Runs the earliest timer, advancing the clock to it. Returns its delay.
  runNext() {
    this.pending.sort((a, b) => a.at - b.at);
    const t = this.pending.shift();
    this.clock.t = Math.max(this.clock.t, t.at);
    t.fn();
    return t.ms;
  }
}
