import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";

const { normalizeNavigateTarget } = await import(lib("urls.js"));

test("bare hosts get https", () => {
  assert.deepEqual(normalizeNavigateTarget("example.com"), { kind: "url", url: "https://example.com" });
  assert.deepEqual(normalizeNavigateTarget("  example.com/a?b=1 "), { kind: "url", url: "https://example.com/a?b=1" });
  assert.deepEqual(normalizeNavigateTarget("//cdn.example.com/x"), { kind: "url", url: "https://cdn.example.com/x" });
});

test("loopback hosts get http", () => {
  assert.equal(normalizeNavigateTarget("localhost:8000").url, "http://localhost:8000");
  assert.equal(normalizeNavigateTarget("127.0.0.1:8765/form.html").url, "http://127.0.0.1:8765/form.html");
  assert.equal(normalizeNavigateTarget("localhost").url, "http://localhost");
  assert.equal(normalizeNavigateTarget("localhost.example.com").url, "https://localhost.example.com");
});

test("explicit schemes are kept", () => {
  for (const url of ["about:blank", "http://x.test/", "https://x.test/", "chrome://version", "file:///tmp/a.html", "data:text/plain,hi"]) {
    assert.deepEqual(normalizeNavigateTarget(url), { kind: "url", url });
  }
});

test("history steps", () => {
  assert.deepEqual(normalizeNavigateTarget("back"), { kind: "back" });
  assert.deepEqual(normalizeNavigateTarget("Forward"), { kind: "forward" });
});

test("empty or unusable input is refused", () => {
  assert.throws(() => normalizeNavigateTarget(""), TypeError);
  assert.throws(() => normalizeNavigateTarget("   "), TypeError);
  assert.throws(() => normalizeNavigateTarget(42), TypeError);
  assert.throws(() => normalizeNavigateTarget("javascript:alert(1)"), TypeError);
});
