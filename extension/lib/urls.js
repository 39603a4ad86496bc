// Normalises the navigate target. Pure.
// Returns {kind: "back"} | {kind: "forward"} | {kind: "url", url} or throws TypeError.

// Schemes taken as written. Anything else that looks like "name:..." is treated as a host
// with a port ("localhost:8000") or a bare host, and gets a scheme added.
const KNOWN_SCHEMES = new Set([
  "http", "https", "about", "chrome", "chrome-extension", "file", "data", "blob",
  "view-source", "ftp", "ws", "wss", "mailto", "tel", "edge", "brave", "chrome-untrusted",
  "chrome-search", "chrome-native", "chrome-devtools", "devtools", "opera", "vivaldi",
  "extension", "isolated-app", "moz-extension", "filesystem",
]);

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:[/?#]|$)/i;

export function normalizeNavigateTarget(raw) {
  if (typeof raw !== "string") throw new TypeError("url must be a string");
  const text = raw.trim();
  if (!text) throw new TypeError("url must not be empty");
  const lower = text.toLowerCase();
  if (lower === "back") return { kind: "back" };
  if (lower === "forward") return { kind: "forward" };

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text);
  if (scheme && KNOWN_SCHEMES.has(scheme[1].toLowerCase())) {
    return { kind: "url", url: text };
  }
  if (text.startsWith("//")) return { kind: "url", url: `https:${text}` };
  // Loopback services rarely have certificates; everything else defaults to https.
  const prefix = LOOPBACK_HOST.test(text) ? "http://" : "https://";
  const url = prefix + text;
  try {
    new URL(url);
  } catch {
    throw new TypeError(`not a navigable URL: ${text}`);
  }
  return { kind: "url", url };
}
