// Reassembly of chunked service->extension frames (feature chunkingV1).
// Memory only and bounded; every transfer ends exactly once: one dispatch or one rejection.
// Pure apart from crypto.subtle (present in both the service worker and Node 20).

import { CHUNK_LIMITS } from "./constants.js";

const SHA256_HEX = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// Settled transfer ids are remembered so late or repeated chunks cannot start a second outcome.
const SETTLED_MEMORY_MS = 60_000;
const SETTLED_MAX = 256;

export async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function rejectionMessage(reason) {
  return `Large request rejected: ${reason}`;
}

export class ChunkAssembler {
  constructor({ limits = CHUNK_LIMITS, now = () => Date.now(), digest = sha256Hex } = {}) {
    this.limits = { ...CHUNK_LIMITS, ...limits };
    this.now = now;
    this.digest = digest;
    this.transfers = new Map(); // transferId -> transfer state
    this.settled = new Map(); // transferId -> forgetAt
  }

  get activeCount() {
    return this.transfers.size;
  }

  // Accepts one chunk frame. Resolves to one of:
  //   {kind:"pending"} | {kind:"ignored"} |
  //   {kind:"complete", requestId, frame} | {kind:"rejected", requestId, message}
  async accept(chunk) {
    const transferId = typeof chunk?.transferId === "string" ? chunk.transferId : "";
    const requestId = typeof chunk?.requestId === "string" ? chunk.requestId : "";
    if (!transferId || !requestId) return { kind: "ignored" }; // nobody to answer
    this.#forgetOldSettled();
    if (this.settled.has(transferId)) return { kind: "ignored" };

    let transfer = this.transfers.get(transferId);
    if (transfer && this.#isExpired(transfer)) {
      return this.#reject(transfer.transferId, transfer.requestId, "transfer expired before all chunks arrived");
    }

    const headerProblem = this.#headerProblem(chunk);
    if (headerProblem) {
      return this.#reject(transferId, transfer ? transfer.requestId : requestId, headerProblem);
    }

    if (!transfer) {
      const admission = this.#admissionProblem(chunk);
      if (admission) return this.#reject(transferId, requestId, admission);
      transfer = {
        transferId,
        requestId,
        count: chunk.count,
        totalBytes: chunk.totalBytes,
        sha256: chunk.sha256.toLowerCase(),
        startedAt: this.now(),
        parts: new Array(chunk.count),
        received: 0,
        receivedBytes: 0,
      };
      this.transfers.set(transferId, transfer);
    } else if (
      transfer.requestId !== requestId ||
      transfer.count !== chunk.count ||
      transfer.totalBytes !== chunk.totalBytes ||
      transfer.sha256 !== chunk.sha256.toLowerCase()
    ) {
      return this.#reject(transferId, transfer.requestId, `inconsistent header in chunk ${chunk.index}`);
    }

    if (transfer.parts[chunk.index] !== undefined) {
      return this.#reject(transferId, transfer.requestId, `duplicate chunk ${chunk.index}`);
    }
    const bytes = decodeBase64(chunk.data);
    if (!bytes) return this.#reject(transferId, transfer.requestId, `bad base64 in chunk ${chunk.index}`);
    transfer.receivedBytes += bytes.length;
    if (transfer.receivedBytes > transfer.totalBytes) {
      bytes.fill(0);
      return this.#reject(transferId, transfer.requestId, "byte count mismatch (more bytes than totalBytes)");
    }
    transfer.parts[chunk.index] = bytes;
    transfer.received += 1;
    if (transfer.received < transfer.count) return { kind: "pending" };

    // Settle before awaiting the digest so nothing can complete this transfer twice.
    this.transfers.delete(transferId);
    this.#markSettled(transferId);
    return this.#finish(transfer);
  }

  // Rejects transfers older than the expiry bound. Returns the rejections to report.
  sweep() {
    const out = [];
    for (const transfer of [...this.transfers.values()]) {
      if (this.#isExpired(transfer)) {
        out.push(this.#reject(transfer.transferId, transfer.requestId, "transfer expired before all chunks arrived"));
      }
    }
    this.#forgetOldSettled();
    return out;
  }

  // Earliest moment a sweep could find something to expire, or null.
  nextExpiryAt() {
    let at = null;
    for (const t of this.transfers.values()) {
      const due = t.startedAt + this.limits.expiryMs;
      if (at === null || due < at) at = due;
    }
    return at;
  }

  // Drops every transfer without answering (the port that carried them is gone).
  clear() {
    for (const t of this.transfers.values()) zeroParts(t.parts);
    this.transfers.clear();
    this.settled.clear();
  }

  #headerProblem(chunk) {
    const { index, count, totalBytes, sha256, data } = chunk;
    if (!Number.isInteger(count) || count < 1) return "invalid chunk count";
    if (!Number.isInteger(index) || index < 0 || index >= count) return "invalid chunk index";
    if (!Number.isInteger(totalBytes) || totalBytes < 1) return "invalid totalBytes";
    if (typeof sha256 !== "string" || !SHA256_HEX.test(sha256.toLowerCase())) return "invalid sha256";
    if (typeof data !== "string") return `missing data in chunk ${index}`;
    return null;
  }

  #admissionProblem(chunk) {
    const l = this.limits;
    if (chunk.count > l.maxChunks) return `too many chunks (${chunk.count} > ${l.maxChunks})`;
    if (chunk.totalBytes > l.maxTransferBytes) return `too large (${chunk.totalBytes} bytes > ${l.maxTransferBytes})`;
    if (this.transfers.size >= l.maxTransfers) return `too many concurrent transfers (limit ${l.maxTransfers})`;
    let pending = 0;
    for (const t of this.transfers.values()) pending += t.totalBytes;
    if (pending + chunk.totalBytes > l.maxTotalBytes) return "not enough reassembly memory for another transfer";
    return null;
  }

  async #finish(transfer) {
    const whole = new Uint8Array(transfer.receivedBytes);
    let offset = 0;
    for (const part of transfer.parts) {
      whole.set(part, offset);
      offset += part.length;
    }
    zeroParts(transfer.parts);
    const fail = (reason) => {
      whole.fill(0);
      return { kind: "rejected", requestId: transfer.requestId, message: rejectionMessage(reason) };
    };
    if (whole.length !== transfer.totalBytes) {
      return fail(`byte count mismatch (got ${whole.length}, expected ${transfer.totalBytes})`);
    }
    const digest = await this.digest(whole);
    if (digest !== transfer.sha256) return fail("sha256 mismatch");
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(whole);
    } catch {
      return fail("payload is not UTF-8");
    }
    whole.fill(0);
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return fail("payload is not JSON");
    }
    if (!frame || typeof frame !== "object" || Array.isArray(frame) || frame.type !== "request") {
      return fail("payload is not a request frame");
    }
    if (frame.id !== transfer.requestId) return fail("payload id does not match requestId");
    return { kind: "complete", requestId: transfer.requestId, frame };
  }

  #reject(transferId, requestId, reason) {
    const transfer = this.transfers.get(transferId);
    if (transfer) {
      zeroParts(transfer.parts);
      this.transfers.delete(transferId);
    }
    this.#markSettled(transferId);
    return { kind: "rejected", requestId, message: rejectionMessage(reason) };
  }

  #isExpired(transfer) {
    return this.now() - transfer.startedAt > this.limits.expiryMs;
  }

  #markSettled(transferId) {
    this.settled.set(transferId, this.now() + SETTLED_MEMORY_MS);
    while (this.settled.size > SETTLED_MAX) this.settled.delete(this.settled.keys().next().value);
  }

  #forgetOldSettled() {
    const now = this.now();
    for (const [id, forgetAt] of this.settled) if (forgetAt <= now) this.settled.delete(id);
  }
}

function decodeBase64(data) {
  if (data.length % 4 !== 0 || !BASE64.test(data)) return null;
  try {
    const binary = atob(data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

function zeroParts(parts) {
  for (const part of parts) if (part) part.fill(0);
}
