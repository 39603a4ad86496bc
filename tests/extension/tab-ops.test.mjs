import { test } from "node:test";
import assert from "node:assert/strict";
import { lib } from "./helpers/paths.mjs";
import { fakeChrome } from "./helpers/fake-chrome.mjs";

const { createTabOps } = await import(lib("tab-ops.js"));
const { WorkspaceBook } = await import(lib("workspaces.js"));

function setup(world) {
  const chromeApi = fakeChrome(world);
  const book = new WorkspaceBook();
  let persisted = 0;
  const ops = createTabOps({ chromeApi, book, persist: async () => void persisted++ });
  return { chromeApi, book, ops, persisted: () => persisted };
}

const req = (guid, title = "Ghostlight · A") => ({ guid, workspace: { groupTitle: title } });

const userWorld = () => ({
  windows: [{ id: 1 }, { id: 2 }],
  lastFocused: 2,
  tabs: [
    { id: 10, windowId: 1, index: 0, url: "https://mail.test/" },
    { id: 20, windowId: 2, index: 0, url: "https://news.test/" },
    { id: 21, windowId: 2, index: 1, url: "https://bank.test/" },
  ],
});

function userTabsSnapshot(chromeApi) {
  return [10, 20, 21].map((id) => {
    const t = chromeApi.tabMap.get(id);
    return [id, t.windowId, t.index, t.groupId];
  });
}

test("tabs_create opens an active tab in the last focused window, in a new titled group", async () => {
  const { chromeApi, ops, book, persisted } = setup(userWorld());
  const before = userTabsSnapshot(chromeApi);
  const out = await ops.tabsCreate({ url: "example.com" }, req("w1"));
  assert.equal(out.url, "https://example.com");
  const tab = chromeApi.tabMap.get(out.tabId);
  assert.equal(tab.windowId, 2);
  assert.equal(tab.active, true);
  assert.equal(out.groupId, tab.groupId);
  assert.deepEqual(chromeApi.groups.get(out.groupId), { id: out.groupId, windowId: 2, title: "Ghostlight · A", color: "blue" });
  assert.deepEqual(userTabsSnapshot(chromeApi), before, "user tabs untouched");
  assert.deepEqual([...book.get("w1").tabIds], [out.tabId]);
  assert.ok(persisted() > 0);
  // Only the new tab was ever grouped.
  for (const [name, details] of chromeApi.calls) if (name === "tabs.group") assert.deepEqual(details.tabIds, [out.tabId]);
});

test("a new workspace's tab is answered from one listing of the browser's tabs, as it is by then", async () => {
  const { chromeApi, ops } = setup(userWorld());
  const create = chromeApi.tabs.create;
  chromeApi.tabs.create = async (props) => {
    const made = await create(props);
    // The blank page commits before the listing is read: the answer names it as committed.
    Object.assign(chromeApi.tabMap.get(made.id), { url: "about:blank", pendingUrl: undefined, title: "about:blank" });
    return made;
  };
  const out = await ops.tabsCreate({}, req("w1"));
  assert.equal(out.title, "about:blank");
  assert.equal(out.url, "about:blank");
  assert.deepEqual(out.tabs, [{ tabId: out.tabId, title: "about:blank", url: "about:blank" }]);
  // Each read is a wait in a browser busy loading pages: the tab and the group it was just put
  // in are not read again on their own.
  assert.deepEqual(chromeApi.reads.map(([name]) => name), ["tabs.query"]);
});

test("a group that cannot be named fails tabs_create, though the listing went on meanwhile", async () => {
  const { chromeApi, ops } = setup(userWorld());
  chromeApi.tabGroups.update = async () => {
    throw new Error("No group with id: 7.");
  };
  await assert.rejects(ops.tabsCreate({}, req("w1")), /No group with id/);
  assert.ok(chromeApi.reads.some(([name]) => name === "tabs.query"));
});

test("a workspace is listed from its group alone, and from every tab when one of its tabs is elsewhere", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const first = await ops.tabsCreate({}, req("w1"));
  const second = await ops.tabsCreate({}, req("w1"));
  chromeApi.reads.length = 0;
  const listed = await ops.tabsContext({}, req("w1"));
  assert.deepEqual(listed.tabs.map((t) => t.tabId), [first.tabId, second.tabId]);
  assert.deepEqual(chromeApi.reads.filter(([name]) => name === "tabs.query").map(([, q]) => q), [{ groupId: first.groupId }]);
  // A tab of the workspace outside its group (ungrouped meanwhile): every tab is asked for.
  chromeApi.tabMap.get(second.tabId).groupId = -1;
  chromeApi.reads.length = 0;
  const again = await ops.tabsContext({}, req("w1"));
  assert.deepEqual(again.tabs.map((t) => t.tabId), [first.tabId, second.tabId]);
  assert.deepEqual(chromeApi.reads.filter(([name]) => name === "tabs.query").map(([, q]) => q), [{ groupId: first.groupId }, {}]);
  assert.ok(book.get("w1").tabIds.has(second.tabId), "not dropped as closed");
});

test("a blank tab listed before its page commits is titled as Chrome titles it once in: about:blank", async () => {
  const { ops } = setup(userWorld());
  const out = await ops.tabsCreate({}, req("w1"));
  assert.equal(out.title, "about:blank");
  assert.deepEqual(out.tabs.map((t) => t.title), ["about:blank"]);
  assert.equal((await ops.tabInfo({ tabId: out.tabId })).title, "about:blank");
  const other = await ops.tabsCreate({ url: "https://shop.test/" }, req("w2"));
  assert.equal(other.title, "", "a page's own title is never made up");
});

test("a second tab joins the workspace group, placed right after it", async () => {
  const { chromeApi, ops } = setup(userWorld());
  const first = await ops.tabsCreate({}, req("w1"));
  const second = await ops.tabsCreate({}, req("w1"));
  assert.equal(second.groupId, first.groupId);
  const create = chromeApi.calls.filter(([n]) => n === "tabs.create").at(-1)[1];
  assert.equal(create.index, chromeApi.tabMap.get(first.tabId).index + 1);
  assert.equal(chromeApi.groups.size, 1);
});

test("workspaces get separate groups; a workspace follows its own window", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const a = await ops.tabsCreate({}, req("w1"));
  const b = await ops.tabsCreate({}, req("w2", "Ghostlight · B"));
  assert.notEqual(a.groupId, b.groupId);
  assert.equal(chromeApi.groups.get(b.groupId).title, "Ghostlight · B");
  // Move w1's tab and group to window 1: the next tab follows it, not the focused window.
  chromeApi.tabMap.get(a.tabId).windowId = 1;
  chromeApi.groups.get(a.groupId).windowId = 1;
  const c = await ops.tabsCreate({}, req("w1"));
  assert.equal(chromeApi.tabMap.get(c.tabId).windowId, 1);
  assert.equal(c.groupId, a.groupId);
  assert.equal(book.workspaceOfTab(c.tabId), "w1");
});

test("with no usable window a new window is created", async () => {
  const { chromeApi, ops } = setup({ windows: [], tabs: [] });
  const out = await ops.tabsCreate({ url: "about:blank" }, req("w1"));
  assert.ok(chromeApi.calls.some(([n]) => n === "windows.create"));
  assert.equal(chromeApi.tabMap.get(out.tabId).groupId, out.groupId);
});

test("tabs_create refuses history steps and junk URLs", async () => {
  const { ops } = setup(userWorld());
  await assert.rejects(ops.tabsCreate({ url: "back" }, req("w1")), (e) => e.code === "bad_args");
  await assert.rejects(ops.tabsCreate({ url: "javascript:alert(1)" }, req("w1")), (e) => e.code === "bad_args");
});

test("tabs_context lists only the workspace's tabs", async () => {
  const { chromeApi, ops } = setup(userWorld());
  assert.deepEqual(await ops.tabsContext({ createIfEmpty: false }, req("w1")), { groupId: null, tabs: [] });
  const a = await ops.tabsCreate({ url: "https://a.test/" }, req("w1"));
  await ops.tabsCreate({}, req("w2"));
  chromeApi.tabMap.get(a.tabId).title = "A";
  chromeApi.tabMap.get(a.tabId).url = "https://a.test/";
  const ctx = await ops.tabsContext({}, req("w1"));
  assert.deepEqual(ctx, { groupId: a.groupId, tabs: [{ tabId: a.tabId, title: "A", url: "https://a.test/" }] });
});

test("tabs_context includes tabs dragged into the group and tabs the service vouches for", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const a = await ops.tabsCreate({}, req("w1"));
  chromeApi.tabMap.get(21).groupId = a.groupId; // the user dragged a tab into the group
  const ctx = await ops.tabsContext({ ownedTabIds: [10, 999] }, req("w1"));
  assert.deepEqual(ctx.tabs.map((t) => t.tabId).sort(), [10, 21, a.tabId].sort());
  assert.ok(book.isManaged(21) && book.isManaged(10));
  assert.ok(!book.isManaged(999));
});

test("tabs_context drops closed tabs and creates one when asked", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const a = await ops.tabsCreate({}, req("w1"));
  chromeApi.tabMap.delete(a.tabId);
  chromeApi.groups.delete(a.groupId);
  const ctx = await ops.tabsContext({ createIfEmpty: true }, req("w1"));
  assert.equal(ctx.tabs.length, 1);
  assert.notEqual(ctx.tabs[0].tabId, a.tabId);
  assert.equal(ctx.groupId, chromeApi.tabMap.get(ctx.tabs[0].tabId).groupId);
  assert.equal(book.isManaged(a.tabId), false);
});

test("tab_info", async () => {
  const { ops } = setup(userWorld());
  assert.deepEqual(await ops.tabInfo({ tabId: 20 }), {
    tabId: 20,
    url: "https://news.test/",
    title: "",
    windowId: 2,
    status: "complete",
    active: false,
    groupId: null,
  });
  await assert.rejects(ops.tabInfo({ tabId: 5 }), (e) => e.code === "tab_not_found" && e.hop === "extension");
});

test("a workspace's group takes the colour the service gives it; anything else is blue", async () => {
  const { chromeApi, ops } = setup(userWorld());
  const red = await ops.tabsCreate({}, { guid: "w1", workspace: { groupTitle: "Ghostlight · A", groupColor: "red" } });
  assert.equal(chromeApi.groups.get(red.groupId).color, "red");
  for (const [guid, groupColor] of [["w2", "grey"], ["w3", "chartreuse"], ["w4", 7]]) {
    const out = await ops.tabsCreate({}, { guid, workspace: { groupTitle: "Ghostlight · B", groupColor } });
    assert.equal(chromeApi.groups.get(out.groupId).color, "blue", String(groupColor));
  }
  const again = await ops.tabsCreate({}, { guid: "w1", workspace: { groupTitle: "Ghostlight · A 2", groupColor: "cyan" } });
  assert.equal(again.groupId, red.groupId);
  assert.deepEqual(
    [chromeApi.groups.get(red.groupId).title, chromeApi.groups.get(red.groupId).color],
    ["Ghostlight · A 2", "cyan"],
  );
});

test("an ended workspace's group is retitled and greyed; its tabs stay open and are nobody's", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const out = await ops.tabsCreate({}, req("w1"));
  assert.equal(await ops.workspaceEnded("w1", "Ghostlight · A (ended)"), true);
  assert.deepEqual(
    [chromeApi.groups.get(out.groupId).title, chromeApi.groups.get(out.groupId).color],
    ["Ghostlight · A (ended)", "grey"],
  );
  assert.ok(chromeApi.tabMap.has(out.tabId), "the tab is left open for the user");
  assert.equal(book.get("w1"), null);
  assert.equal(book.isManaged(out.tabId), false);
  assert.equal(await ops.workspaceEnded("w1", "again"), false, "a second notice changes nothing");
  const next = await ops.tabsCreate({}, req("w1"));
  assert.notEqual(next.groupId, out.groupId, "the ended group is never reused");

  const gone = await ops.tabsCreate({}, req("w2"));
  chromeApi.groups.delete(gone.groupId); // the user closed the group
  assert.equal(await ops.workspaceEnded("w2", "Ghostlight · B (ended)"), false);
  assert.equal(book.get("w2"), null);
});

test("workspaces a restarted service no longer has are ended on its welcome; its live ones stay", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const gone = await ops.tabsCreate({}, req("old", "Ghostlight · claude-code"));
  const kept = await ops.tabsCreate({}, req("live", "Ghostlight · cursor"));
  const closed = await ops.tabsCreate({}, req("closed-group", "Ghostlight · codex"));
  chromeApi.groups.delete(closed.groupId); // the user closed that group already
  assert.equal(await ops.workspacesLive(["live", "never-seen-here"]), 1);
  assert.deepEqual(
    [chromeApi.groups.get(gone.groupId).title, chromeApi.groups.get(gone.groupId).color],
    ["Ghostlight · claude-code (ended)", "grey"],
  );
  assert.ok(chromeApi.tabMap.has(gone.tabId), "its tab is left open for the user");
  assert.equal(book.get("old"), null);
  assert.equal(book.get("closed-group"), null);
  assert.notEqual(book.get("live"), null);
  assert.equal(chromeApi.groups.get(kept.groupId).title, "Ghostlight · cursor");
  // Said again (a relay reconnect repeats the welcome): nothing more changes.
  assert.equal(await ops.workspacesLive(["live"]), 0);
  assert.equal(chromeApi.groups.get(gone.groupId).title, "Ghostlight · claude-code (ended)");
});

test("in a browser no one sees, an ended workspace's tabs are closed, each window keeping a tab", async () => {
  const { chromeApi, ops, book } = setup({ windows: [{ id: 1 }], lastFocused: 1, tabs: [] });
  const first = await ops.tabsCreate({}, req("w1"));
  const second = await ops.tabsCreate({}, req("w1"));
  const other = await ops.tabsCreate({}, req("w2"));
  assert.equal(await ops.workspaceEnded("w1", "Ghostlight · A (ended)", { closeTabs: true }), true);
  assert.ok(!chromeApi.tabMap.has(first.tabId) && !chromeApi.tabMap.has(second.tabId));
  assert.ok(chromeApi.tabMap.has(other.tabId), "another workspace's tab is untouched");
  assert.equal(book.get("w1"), null);
  // The last workspace's tabs go too, but the window keeps a blank tab of its own.
  assert.equal(await ops.workspaceEnded("w2", "Ghostlight · B (ended)", { closeTabs: true }), true);
  const left = [...chromeApi.tabMap.values()];
  assert.equal(left.length, 1);
  assert.deepEqual([left[0].windowId, left[0].pendingUrl], [1, "about:blank"]);
});

test("a tab the user moves out of its workspace's group leaves the workspace; the module's own grouping does not", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const a1 = await ops.tabsCreate({}, req("wA"));
  const a2 = await ops.tabsCreate({}, req("wA"));
  const b1 = await ops.tabsCreate({}, req("wB", "Ghostlight · B"));
  // Chrome reports the groups the module itself put the tabs in: nothing changes hands.
  for (const out of [a1, a2, b1]) assert.equal(await ops.groupChanged(out.tabId, out.groupId), false);
  assert.deepEqual([...book.get("wA").tabIds].sort(), [a1.tabId, a2.tabId].sort());
  // The user drags one of A's tabs out of any group, and B's tab into A's group.
  assert.equal(await ops.groupChanged(a2.tabId, -1), true);
  assert.equal(await ops.groupChanged(b1.tabId, a1.groupId), true);
  assert.equal(book.workspaceOfTab(a2.tabId), null);
  assert.equal(book.workspaceOfTab(b1.tabId), null);
  assert.ok(book.isManaged(a2.tabId), "its closing is still reported");
  // A tab in A's group that nobody has is A's again at its next listing.
  chromeApi.tabMap.get(b1.tabId).groupId = a1.groupId;
  const listed = await ops.tabsContext({}, req("wA"));
  assert.ok(listed.tabs.some((t) => t.tabId === b1.tabId));
  assert.equal(await ops.groupChanged(a1.tabId, -1), true);
  assert.equal(await ops.groupChanged(12345, -1), false, "a tab no workspace has");
});

test("a child tab Chrome put in another workspace's group joins its own, and that is no release", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const a = await ops.tabsCreate({}, req("wA"));
  const b = await ops.tabsCreate({}, req("wB", "Ghostlight · B"));
  const child = { id: 777, windowId: 2, index: 9, url: "", groupId: b.groupId };
  chromeApi.tabMap.set(777, { ...child });
  book.addTab("wA", 777);
  await ops.placeChild(child, "wA");
  assert.equal(chromeApi.tabMap.get(777).groupId, a.groupId);
  assert.equal(await ops.groupChanged(777, a.groupId), false);
  assert.equal(book.workspaceOfTab(777), "wA");
});

test("a new tab whose opener is still being worked out is taken by no workspace's listing", async () => {
  const { chromeApi, ops, book } = setup(userWorld());
  const a = await ops.tabsCreate({}, req("wA"));
  chromeApi.tabMap.set(888, { id: 888, windowId: 2, index: 9, url: "", groupId: a.groupId, status: "loading", title: "", active: false });
  book.undecided.add(888);
  const meanwhile = await ops.tabsContext({}, req("wA"));
  assert.deepEqual(meanwhile.tabs.map((t) => t.tabId), [a.tabId]);
  assert.equal(book.workspaceOfTab(888), null);
  book.undecided.delete(888);
  const after = await ops.tabsContext({}, req("wA"));
  assert.deepEqual(after.tabs.map((t) => t.tabId).sort(), [a.tabId, 888].sort());
});

test("a new workspace tab is readied (its debugger session keeps service workers out) before tabs_create answers", async () => {
  const chromeApi = fakeChrome(userWorld());
  const readied = [];
  const ops = createTabOps({
    chromeApi,
    book: new WorkspaceBook(),
    persist: async () => {},
    prepareTab: async (tabId) => {
      readied.push(tabId);
      throw new Error("best effort: a failure does not fail the creation");
    },
  });
  const out = await ops.tabsCreate({}, req("w1"));
  assert.deepEqual(readied, [out.tabId]);
});

// Tab operations over a real topology store whose writes land only when `land()` is called.
async function withHeldWrites() {
  const { createTopologyStore } = await import(lib("topology-store.js"));
  const chromeApi = fakeChrome(userWorld());
  const book = new WorkspaceBook();
  const writes = [];
  const landing = [];
  const area = {
    get: async () => ({}),
    set: (items) => {
      writes.push(JSON.parse(JSON.stringify(Object.values(items)[0])));
      return new Promise((resolve) => landing.push(resolve));
    },
  };
  const store = createTopologyStore(area, () => book);
  const ops = createTabOps({ chromeApi, book, persist: (guid) => store.persist(guid) });
  return { ops, writes, land: () => landing.forEach((resolve) => resolve()) };
}

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

for (const [what, make] of [
  ["tabs_create", (ops) => ops.tabsCreate({}, req("w1")).then((out) => ({ tabId: out.tabId, groupId: out.groupId }))],
  ["tabs_context with createIfEmpty", (ops) => ops.tabsContext({ createIfEmpty: true }, req("w1")).then((out) => ({ tabId: out.tabs[0].tabId, groupId: out.groupId }))],
]) {
  test(`a tab made by ${what} costs one write of the book, sent with its group, and is answered while it lands`, async () => {
    const { ops, writes, land } = await withHeldWrites();
    let answer = null;
    make(ops).then((out) => (answer = out));
    await turns();
    assert.equal(writes.length, 1, "one write for the tab and its group");
    const stored = writes[0].workspaces.w1;
    assert.equal(stored.tabIds.length, 1);
    assert.ok(Number.isInteger(stored.groupId), "the write carries the tab's group");
    assert.ok(answer !== null, "answered with the write sent, not held until it lands");
    land();
    await turns();
    assert.equal(answer.tabId, stored.tabIds[0]);
    assert.equal(answer.groupId, stored.groupId);
    assert.equal(writes.length, 1, "the listing changed nothing: no write more");
  });
}
