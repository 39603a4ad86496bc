// Fixed values of the browser wire (specs/browser-wire.md) and of this extension.
// Kept free of chrome.* so Node tests can import it.

export const NATIVE_HOST_NAME = "io.ghostlight.trio";
export const WIRE_VERSION = 1;
export const FEATURES = Object.freeze(["chunkingV1", "tabGroupsV1", "stopV1", "dialogsV1", "stopRequestV1"]);

export const HOPS = Object.freeze({ extension: "extension", cdp: "cdp", page: "page" });

// Storage keys. browserId is per profile (storage.local); everything else is per browser
// process (storage.session), so it survives service-worker suspension but not a restart.
export const STORAGE_KEYS = Object.freeze({
  browserId: "ghostlight_browser_id",
  generation: "ghostlight_generation",
  topology: "ghostlight_topology",
});

// Chunk reassembly bounds (feature chunkingV1).
export const CHUNK_LIMITS = Object.freeze({
  maxTransfers: 2,
  maxChunks: 64,
  maxTransferBytes: 32 * 1024 * 1024,
  maxTotalBytes: 40 * 1024 * 1024,
  expiryMs: 15_000,
});

export const RECONNECT = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  // A port that stayed up this long counts as healthy and resets the backoff.
  healthyAfterMs: 10_000,
  // After an "incompatible" answer, retrying quickly cannot help.
  incompatibleDelayMs: 5 * 60_000,
});

export const KEEPALIVE_ALARM = "ghostlight-keepalive";
export const KEEPALIVE_PERIOD_MINUTES = 0.5;

export const NAVIGATE_DEFAULT_TIMEOUT_MS = 10_000;
export const NAVIGATE_MAX_TIMEOUT_MS = 120_000;
export const CONTENT_TIMEOUT_MS = 30_000;
export const CDP_PROTOCOL_VERSION = "1.3";

// Replies produced while no native port is open are kept this long for the next port.
export const OUTBOX = Object.freeze({ maxFrames: 64, maxAgeMs: 10_000 });

export const GROUP_COLOR = "blue";
// The colours a service may give a workspace's group; grey marks a workspace that has ended.
export const GROUP_COLORS = Object.freeze(["blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange"]);
export const ENDED_GROUP_COLOR = "grey";
export const DEFAULT_GROUP_TITLE = "Ghostlight";
// Requests without a workspace id (guid) share one workspace under this key.
export const UNKEYED_WORKSPACE_KEY = "";

export const CONTENT_CHANNEL = "ghostlight";
