// Subscribing to a chrome.* event that may be missing (an older browser, a test's stand-in):
// one place for the check every module that listens on its own would repeat.

export function listen(event, fn) {
  if (event && typeof event.addListener === "function") event.addListener(fn);
}
