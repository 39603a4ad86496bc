import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { EXTENSION_DIR, lib } from "./helpers/paths.mjs";

const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, "manifest.json"), "utf8"));

test("manifest basics", () => {
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.name, "Ghostlight");
  assert.equal(manifest.version, "0.1.0");
  assert.equal(manifest.minimum_chrome_version, "116");
  assert.deepEqual(manifest.background, { service_worker: "service-worker.js", type: "module" });
  assert.deepEqual(
    [...manifest.permissions].sort(),
    ["alarms", "debugger", "nativeMessaging", "scripting", "storage", "tabGroups", "tabs", "windows"],
  );
  assert.deepEqual(manifest.host_permissions, ["<all_urls>"]);
  const [cs] = manifest.content_scripts;
  assert.deepEqual(cs.matches, ["<all_urls>"]);
  assert.equal(cs.all_frames, false);
  assert.equal(cs.run_at, "document_idle");
  assert.equal(cs.js.at(-1), "content.js");
  for (const file of [manifest.background.service_worker, ...cs.js]) {
    assert.ok(existsSync(path.join(EXTENSION_DIR, file)), file);
  }
});

test("extension-id.txt is the id derived from the manifest key", () => {
  const der = Buffer.from(manifest.key, "base64");
  const hex = createHash("sha256").update(der).digest("hex").slice(0, 32);
  const id = [...hex].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join("");
  assert.equal(readFileSync(path.join(EXTENSION_DIR, "extension-id.txt"), "utf8"), `${id}\n`);
});

test("no private key material ships with the extension", () => {
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk(EXTENSION_DIR)) {
    assert.ok(!/\.(pem|key|crx)$/.test(file), file);
    assert.ok(!readFileSync(file, "utf8").includes("PRIVATE KEY"), file);
  }
});

test("the native host name is fixed", async () => {
  const { NATIVE_HOST_NAME } = await import(lib("constants.js"));
  assert.equal(NATIVE_HOST_NAME, "io.ghostlight.trio");
});

test("every worker module imports without chrome.*", async () => {
  assert.equal(globalThis.chrome, undefined);
  for (const file of readdirSync(path.join(EXTENSION_DIR, "lib"))) {
    if (file.endsWith(".js")) await import(lib(file));
  }
});
