// Subscribing to a chrome.* event that may be missing (an older browser, a test's stand-in):
// one place for the check every module that listens on its own would repeat. True when it
// subscribed.

export function listen(event, fn) {
  if (!event || typeof event.addListener !== "function") return false;
  event.addListener(fn);
  return true;
}
