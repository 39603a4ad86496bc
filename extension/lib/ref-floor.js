// The highest element-ref number any page has issued (see page/refs.js). Each request to a
// page carries it, and the page counts on from there, so a ref number stands for one element
// in one document of one tab: a ref read before a navigation, or in another tab, is not found
// instead of naming whatever element the new page numbered the same.
//
// Two pages asked at once would both count on from the same number; the later one starts
// SPREAD further on. The number is kept in chrome.storage.session, so a worker that was
// suspended does not count from 0 again while pages it numbered are still open.

const STORAGE_KEY = "ghostlight_ref_high";
export const SPREAD = 10_000; // more refs than one read issues (read_page shows at most 10,000 lines)

export function createRefFloor(sessionArea) {
  let high = 0;
  let loading = null;
  const asking = new Map(); // tabId -> requests to its page not answered yet

  function load() {
    loading ??= (async () => {
      try {
        const stored = sessionArea ? await sessionArea.get(STORAGE_KEY) : null;
        const kept = stored ? stored[STORAGE_KEY] : undefined;
        if (Number.isSafeInteger(kept) && kept > high) high = kept;
      } catch {
        // Counting from what this worker has seen is the best left.
      }
    })();
    return loading;
  }

  function keep() {
    if (!sessionArea) return;
    sessionArea.set({ [STORAGE_KEY]: high }).catch(() => {});
  }

  // The floor for a request to `tabId`'s page; `settle` must follow with what the page reported.
  async function take(tabId) {
    await load();
    const others = [...asking.keys()].some((id) => id !== tabId);
    if (others) {
      high += SPREAD;
      keep();
    }
    asking.set(tabId, (asking.get(tabId) || 0) + 1);
    return high;
  }

  function settle(tabId, reported) {
    const left = (asking.get(tabId) || 1) - 1;
    if (left > 0) asking.set(tabId, left);
    else asking.delete(tabId);
    if (Number.isSafeInteger(reported) && reported > high) {
      high = reported;
      keep();
    }
  }

  return { take, settle, high: () => high };
}
