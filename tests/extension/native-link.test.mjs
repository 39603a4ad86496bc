import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { FakePort, FakeTimers } from "./helpers/fake-port.mjs";

const { NativeLink } = await import(lib("native-link.js"));

function setup({ failConnects = 0 } = {}) {
  const clock = { t: 0 };
  const timers = new FakeTimers(clock);
  const ports = [];
  const received = [];
  let downs = 0;
  let failures = failConnects;
  const link = new NativeLink({
    connect: () => {
      if (failures-- > 0) throw new Error("no host");
      const p = new FakePort();
      ports.push(p);
      return p;
    },
    hello: () => ({ type: "hello", n: ports.length }),
    onFrame: (f) => received.push(f),
    onDown: () => downs++,
    timers,
    now: () => clock.t,
  });
  return { link, clock, timers, ports, received, downs: () => downs };
}

test("hello is the first frame on every port and frames reach onFrame", () => {
  const { link, ports, received } = setup();
  link.start();
  assert.deepEqual(ports[0].sent, [{ type: "hello", n: 1 }]);
  assert.ok(link.connected);
  ports[0].onMessage.fire({ type: "welcome" });
  assert.deepEqual(received, [{ type: "welcome" }]);
  link.start(); // already connected: no second port
  assert.equal(ports.length, 1);
});

test("reconnects after a port loss with growing backoff, reset by a healthy port", () => {
  const { link, ports, timers, clock, downs } = setup();
  link.start();
  ports[0].drop();
  assert.equal(downs(), 1);
  assert.equal(link.connected, false);
  assert.equal(timers.runNext(), 1000);
  assert.equal(ports.length, 2);
  assert.deepEqual(ports[1].sent[0].type, "hello");
  ports[1].drop();
  assert.equal(timers.runNext(), 2000);
  ports[2].drop();
  assert.equal(timers.runNext(), 4000);
  clock.t += 60_000; // this port stays up a while
  ports[3].drop();
  assert.equal(timers.runNext(), 1000);
});

test("a failing connectNative is retried, capped at 30 s", () => {
  const { link, timers, ports } = setup({ failConnects: 8 });
  link.start();
  const delays = [];
  while (ports.length === 0) delays.push(timers.runNext());
  assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test("start() during a scheduled retry does not connect early", () => {
  const { link, ports, timers } = setup();
  link.start();
  ports[0].drop();
  link.start(); // e.g. the keepalive alarm
  assert.equal(ports.length, 1);
  timers.runNext();
  assert.equal(ports.length, 2);
});

test("welcome resets the backoff", () => {
  const { link, ports, timers } = setup();
  link.start();
  ports[0].drop();
  timers.runNext();
  ports[1].drop();
  timers.runNext();
  link.welcomed();
  ports[2].drop();
  assert.equal(timers.runNext(), 1000);
});

test("incompatible closes the port and waits long before retrying", () => {
  const { link, ports, timers } = setup();
  link.start();
  link.incompatible();
  assert.ok(ports[0].disconnected);
  assert.equal(link.connected, false);
  assert.equal(timers.runNext(), 5 * 60_000);
  assert.equal(ports.length, 2);
});

test("replies made while disconnected are flushed after the next hello, within bounds", () => {
  const { link, ports, timers, clock } = setup();
  link.start();
  ports[0].drop();
  link.reply({ type: "response", id: "old" });
  clock.t += 9_000;
  link.reply({ type: "response", id: "r1" });
  assert.equal(link.send({ type: "focus" }), false); // events are not held
  clock.t += 2_000; // "old" is now past the 10 s bound
  timers.runNext();
  assert.deepEqual(ports[1].sent, [{ type: "hello", n: 2 }, { type: "response", id: "r1" }]);
});

test("frames from a replaced port are not delivered", () => {
  const { link, ports, timers, received } = setup();
  link.start();
  const stale = ports[0];
  stale.drop();
  timers.runNext();
  stale.onMessage.fire({ type: "late" });
  assert.deepEqual(received, []);
});
