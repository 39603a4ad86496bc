import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { lib } from "./helpers/paths.mjs";

const { ChunkAssembler, sha256Hex } = await import(lib("chunks.js"));

// Splits a frame the way the service does: raw byte slices, base64 each, digest of the whole.
function chunksOf(frame, { sliceBytes = 16, transferId = "t1", requestId = frame.id } = {}) {
  const raw = Buffer.from(JSON.stringify(frame), "utf8");
  const sha256 = createHash("sha256").update(raw).digest("hex");
  const count = Math.ceil(raw.length / sliceBytes);
  const out = [];
  for (let i = 0; i < count; i++) {
    const data = raw.subarray(i * sliceBytes, (i + 1) * sliceBytes).toString("base64");
    out.push({ type: "chunk", transferId, requestId, index: i, count, totalBytes: raw.length, sha256, data });
  }
  return out;
}

const request = (id = "r1", pad = "héllo wörld") => ({ type: "request", id, guid: "w", op: "ping", args: { pad } });

function clock(start = 1000) {
  const c = { t: start, now: () => c.t };
  return c;
}

async function feed(assembler, chunks) {
  const outcomes = [];
  for (const c of chunks) outcomes.push(await assembler.accept(c));
  return outcomes;
}

test("sha256Hex matches node:crypto", async () => {
  const bytes = new TextEncoder().encode("abc");
  assert.equal(await sha256Hex(bytes), createHash("sha256").update("abc").digest("hex"));
});

test("reassembles in order and dispatches once", async () => {
  const a = new ChunkAssembler();
  const chunks = chunksOf(request());
  assert.ok(chunks.length > 3);
  const outcomes = await feed(a, chunks);
  assert.ok(outcomes.slice(0, -1).every((o) => o.kind === "pending"));
  assert.deepEqual(outcomes.at(-1), { kind: "complete", requestId: "r1", frame: request() });
  assert.equal(a.activeCount, 0);
  // A late repeat of any chunk cannot produce a second outcome.
  assert.deepEqual(await a.accept(chunks[0]), { kind: "ignored" });
});

test("reassembles out of order", async () => {
  const a = new ChunkAssembler();
  const chunks = chunksOf(request()).reverse();
  const outcomes = await feed(a, chunks);
  assert.equal(outcomes.at(-1).kind, "complete");
  assert.deepEqual(outcomes.at(-1).frame, request());
});

test("a duplicate chunk rejects the transfer once", async () => {
  const a = new ChunkAssembler();
  const chunks = chunksOf(request());
  await a.accept(chunks[0]);
  const dup = await a.accept(chunks[0]);
  assert.deepEqual(dup, { kind: "rejected", requestId: "r1", message: "Large request rejected: duplicate chunk 0" });
  assert.equal(a.activeCount, 0);
  for (const c of chunks.slice(1)) assert.equal((await a.accept(c)).kind, "ignored");
});

test("a bad digest is rejected", async () => {
  const a = new ChunkAssembler();
  const chunks = chunksOf(request()).map((c) => ({ ...c, sha256: "0".repeat(64) }));
  const outcomes = await feed(a, chunks);
  assert.deepEqual(outcomes.at(-1), { kind: "rejected", requestId: "r1", message: "Large request rejected: sha256 mismatch" });
});

test("byte count mismatches are rejected", async () => {
  const short = chunksOf(request()).map((c) => ({ ...c, totalBytes: c.totalBytes + 5 }));
  const out = await feed(new ChunkAssembler(), short);
  assert.equal(out.at(-1).kind, "rejected");
  assert.match(out.at(-1).message, /^Large request rejected: byte count mismatch \(got \d+, expected \d+\)$/);

  const long = chunksOf(request()).map((c) => ({ ...c, totalBytes: 10 }));
  const out2 = await feed(new ChunkAssembler(), long);
  assert.ok(out2.some((o) => o.kind === "rejected" && /byte count mismatch/.test(o.message)));
});

test("too many chunks, too large, bad headers", async () => {
  const many = await new ChunkAssembler().accept({ ...chunksOf(request())[0], count: 65 });
  assert.equal(many.message, "Large request rejected: too many chunks (65 > 64)");

  const big = await new ChunkAssembler().accept({ ...chunksOf(request())[0], totalBytes: 32 * 1024 * 1024 + 1 });
  assert.match(big.message, /too large/);

  const badIndex = await new ChunkAssembler().accept({ ...chunksOf(request())[0], index: 99 });
  assert.equal(badIndex.message, "Large request rejected: invalid chunk index");

  const badB64 = await new ChunkAssembler().accept({ ...chunksOf(request())[0], data: "@@@=" });
  assert.equal(badB64.message, "Large request rejected: bad base64 in chunk 0");

  const a = new ChunkAssembler();
  const chunks = chunksOf(request());
  await a.accept(chunks[0]);
  const inconsistent = await a.accept({ ...chunks[1], count: chunks[1].count + 1 });
  assert.equal(inconsistent.message, "Large request rejected: inconsistent header in chunk 1");
});

test("chunks without ids cannot be answered and are ignored", async () => {
  const a = new ChunkAssembler();
  assert.deepEqual(await a.accept({ type: "chunk", requestId: "r1" }), { kind: "ignored" });
  assert.deepEqual(await a.accept({ type: "chunk", transferId: "t" }), { kind: "ignored" });
});

test("at most two concurrent transfers", async () => {
  const a = new ChunkAssembler();
  const t1 = chunksOf(request("r1"), { transferId: "t1" });
  const t2 = chunksOf(request("r2"), { transferId: "t2" });
  const t3 = chunksOf(request("r3"), { transferId: "t3" });
  await a.accept(t1[0]);
  await a.accept(t2[0]);
  const third = await a.accept(t3[0]);
  assert.deepEqual(third, {
    kind: "rejected",
    requestId: "r3",
    message: "Large request rejected: too many concurrent transfers (limit 2)",
  });
  // The first two still complete.
  assert.equal((await feed(a, t1.slice(1))).at(-1).kind, "complete");
  assert.equal((await feed(a, t2.slice(1))).at(-1).kind, "complete");
});

test("transfers expire after 15 s", async () => {
  const c = clock();
  const a = new ChunkAssembler({ now: c.now });
  const chunks = chunksOf(request());
  await a.accept(chunks[0]);
  assert.equal(a.nextExpiryAt(), 1000 + 15_000);
  c.t += 15_000;
  assert.deepEqual(a.sweep(), []);
  c.t += 1;
  const expired = a.sweep();
  assert.deepEqual(expired, [
    { kind: "rejected", requestId: "r1", message: "Large request rejected: transfer expired before all chunks arrived" },
  ]);
  assert.equal(a.activeCount, 0);
  assert.equal(a.nextExpiryAt(), null);
  assert.equal((await a.accept(chunks[1])).kind, "ignored");
});

test("a chunk arriving after expiry rejects without a sweep", async () => {
  const c = clock();
  const a = new ChunkAssembler({ now: c.now });
  const chunks = chunksOf(request());
  await a.accept(chunks[0]);
  c.t += 20_000;
  const late = await a.accept(chunks[1]);
  assert.equal(late.kind, "rejected");
  assert.match(late.message, /expired/);
});

test("payload must be a request whose id matches", async () => {
  const wrongId = chunksOf(request("r1"), { requestId: "r2" });
  const out = await feed(new ChunkAssembler(), wrongId);
  assert.deepEqual(out.at(-1), { kind: "rejected", requestId: "r2", message: "Large request rejected: payload id does not match requestId" });

  const notRequest = chunksOf({ type: "welcome", id: "r1" });
  assert.equal((await feed(new ChunkAssembler(), notRequest)).at(-1).message, "Large request rejected: payload is not a request frame");
});

test("clear drops every transfer silently", async () => {
  const a = new ChunkAssembler();
  const chunks = chunksOf(request());
  await a.accept(chunks[0]);
  a.clear();
  assert.equal(a.activeCount, 0);
  // After a new port, the same transfer id may start over.
  assert.equal((await feed(a, chunks)).at(-1).kind, "complete");
});
