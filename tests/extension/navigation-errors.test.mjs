// navigate on Chrome's error page: the cause it shows is read through the debugger, bounded and
// best effort, and only on that path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { navigate, parseErrorCode } = await import(lib("navigation.js"));

// A tab whose navigations load, and end on Chrome's error page unless `fine`.
function world({ fine = false } = {}) {
  const chromeApi = fakeChrome({ windows: [{ id: 1 }], tabs: [{ id: 7, windowId: 1, index: 0, url: "https://a.test/", title: "A" }] });
  chromeApi.onNavigate = (tab, url) => {
    setTimeout(() => {
      Object.assign(tab, { status: "loading", pendingUrl: url });
      chromeApi.tabs.onUpdated.fire(tab.id, { status: "loading" }, { ...tab });
      Object.assign(tab, { status: "complete", url, pendingUrl: undefined, title: "a.test" });
      chromeApi.tabs.onUpdated.fire(tab.id, { status: "complete" }, { ...tab });
    }, 5);
  };
  chromeApi.onInject = async () => {
    if (fine) return [{ frameId: 0, result: 200 }];
    throw new Error("Frame with ID 0 is showing error page");
  };
  return chromeApi;
}

// A CDP sender whose Runtime.evaluate answers `value` (what the error page shows as its code).
function showing(value, sent = []) {
  return async (tabId, method, params) => {
    sent.push([tabId, method, params]);
    return { result: { type: "string", value } };
  };
}

const go = (chromeApi, cdp) => navigate(chromeApi, { tabId: 7, url: "https://a.test/x", timeoutMs: 2000 }, { cdp });

test("navigate names the net error the browser's error page shows", async () => {
  const sent = [];
  const out = await go(world(), showing("ERR_TOO_MANY_REDIRECTS", sent));
  assert.deepEqual(out, { url: "https://a.test/x", title: "a.test", loaded: true, errorPage: true, netError: "ERR_TOO_MANY_REDIRECTS" });
  assert.equal(sent.length, 1);
  const [tabId, method, params] = sent[0];
  assert.equal(tabId, 7);
  assert.equal(method, "Runtime.evaluate");
  assert.equal(params.returnByValue, true);
  assert.match(params.expression, /chrome-error:/, "reads only Chrome's error page");
});

test("an HTTP error answered without a page is told with its status", async () => {
  const out = await go(world(), showing("HTTP ERROR 500"));
  assert.equal(out.errorPage, true);
  assert.equal(out.netError, "ERR_HTTP_RESPONSE_CODE_FAILURE");
  assert.equal(out.httpStatus, 500);
});

test("an unreadable cause leaves the error page told without one", async () => {
  for (const cdp of [
    undefined,
    async () => {
      throw new Error("Runtime.evaluate failed: detached");
    },
    showing(""),
    showing("This site can't be reached"),
    async () => ({ result: { type: "object" } }),
  ]) {
    const out = await go(world(), cdp);
    assert.equal(out.errorPage, true);
    assert.equal("netError" in out, false);
    assert.equal("httpStatus" in out, false);
  }
});

test("a debugger that does not answer holds navigate about a second at most", async () => {
  const started = Date.now();
  const out = await go(world(), () => new Promise(() => {}));
  const took = Date.now() - started;
  assert.equal(out.errorPage, true);
  assert.equal("netError" in out, false);
  assert.ok(took < 1800, `took ${took} ms`);
});

test("a page that loaded is not asked for an error cause", async () => {
  const sent = [];
  const out = await go(world({ fine: true }), showing("ERR_TOO_MANY_REDIRECTS", sent));
  assert.deepEqual(out, { url: "https://a.test/x", title: "a.test", loaded: true });
  assert.deepEqual(sent, []);
});

test("parseErrorCode keeps only what has the shape of an error code", () => {
  assert.deepEqual(parseErrorCode("ERR_CONNECTION_REFUSED"), { netError: "ERR_CONNECTION_REFUSED" });
  assert.deepEqual(parseErrorCode(" DNS_PROBE_FINISHED_NXDOMAIN\n"), { netError: "DNS_PROBE_FINISHED_NXDOMAIN" });
  assert.deepEqual(parseErrorCode("HTTP ERROR 404"), { netError: "ERR_HTTP_RESPONSE_CODE_FAILURE", httpStatus: 404 });
  for (const junk of [null, 42, "", "err_lower", "ERR_", "HTTP ERROR", "ERR_X<script>", "ERR_" + "A".repeat(80)]) {
    assert.deepEqual(parseErrorCode(junk), {}, String(junk));
  }
});
