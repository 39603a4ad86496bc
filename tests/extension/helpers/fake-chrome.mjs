// An in-memory stand-in for the chrome.* APIs the worker's operations use.

export function event() {
  const listeners = new Set();
  return {
    addListener: (fn) => listeners.add(fn),
    removeListener: (fn) => listeners.delete(fn),
    fire: (...args) => [...listeners].forEach((fn) => fn(...args)),
    get size() {
      return listeners.size;
    },
  };
}

export function fakeChrome({ windows = [], tabs = [], lastFocused = null } = {}) {
  let nextId = 1000;
  const winList = windows.map((w) => ({ type: "normal", incognito: false, ...w }));
  const tabMap = new Map(tabs.map((t) => [t.id, { groupId: -1, status: "complete", title: "", active: false, ...t }]));
  const groups = new Map();
  const calls = [];
  const reads = []; // what was only read: [name, argument]
  const api = {
    calls,
    reads,
    tabMap,
    groups,
    windowsList: winList,
    tabs: {
      onUpdated: event(),
      onRemoved: event(),
      query: async (q = {}) => reads.push(["tabs.query", q]) && [...tabMap.values()].filter((t) => q.groupId === undefined || t.groupId === q.groupId).map((t) => ({ ...t })),
      get: async (id) => {
        reads.push(["tabs.get", id]);
        const t = tabMap.get(id);
        if (!t) throw new Error(`No tab with id: ${id}.`);
        return { ...t };
      },
      create: async ({ windowId, url, active, index }) => {
        calls.push(["tabs.create", { windowId, url, active, index }]);
        const inWindow = [...tabMap.values()].filter((t) => t.windowId === windowId);
        const at = index ?? inWindow.length;
        for (const t of inWindow) if (t.index >= at) t.index += 1;
        const tab = { id: nextId++, windowId, index: at, url: "", pendingUrl: url, groupId: -1, status: "loading", title: "", active };
        tabMap.set(tab.id, tab);
        return { ...tab };
      },
      group: async ({ groupId, tabIds, createProperties }) => {
        calls.push(["tabs.group", { groupId, tabIds, createProperties }]);
        let gid = groupId;
        if (gid === undefined) {
          gid = nextId++;
          groups.set(gid, { id: gid, windowId: createProperties.windowId, title: "", color: "grey" });
        }
        for (const id of tabIds) tabMap.get(id).groupId = gid;
        return gid;
      },
      update: async (id, props) => {
        calls.push(["tabs.update", id, props]);
        const t = tabMap.get(id);
        if (api.onNavigate) api.onNavigate(t, props.url);
        return { ...t };
      },
      ungroup: async (ids) => {
        calls.push(["tabs.ungroup", ids]);
        for (const id of Array.isArray(ids) ? ids : [ids]) tabMap.get(id).groupId = -1;
      },
      remove: async (ids) => {
        calls.push(["tabs.remove", ids]);
        for (const id of Array.isArray(ids) ? ids : [ids]) {
          if (!tabMap.delete(id)) throw new Error(`No tab with id: ${id}.`);
        }
      },
      goBack: async () => {
        throw new Error("Cannot find a next page in history.");
      },
      goForward: async () => {
        throw new Error("Cannot find a next page in history.");
      },
      sendMessage: async (tabId, message) => api.onMessage(tabId, message),
    },
    tabGroups: {
      get: async (id) => {
        reads.push(["tabGroups.get", id]);
        const g = groups.get(id);
        if (!g) throw new Error(`No group with id: ${id}.`);
        return { ...g };
      },
      update: async (id, props) => {
        calls.push(["tabGroups.update", id, props]);
        Object.assign(groups.get(id), props);
        return { ...groups.get(id) };
      },
      query: async () => [...groups.values()],
    },
    windows: {
      getAll: async () => winList.map((w) => ({ ...w })),
      getLastFocused: async () => {
        if (lastFocused === null) throw new Error("No last-focused window");
        return { ...winList.find((w) => w.id === lastFocused) };
      },
      create: async ({ url }) => {
        calls.push(["windows.create", { url }]);
        const win = { id: nextId++, type: "normal", incognito: false };
        winList.push(win);
        const tab = { id: nextId++, windowId: win.id, index: 0, url: "", pendingUrl: url, groupId: -1, status: "loading", title: "", active: true };
        tabMap.set(tab.id, tab);
        return { ...win, tabs: [{ ...tab }] };
      },
    },
    scripting: {
      executeScript: async (details) => {
        calls.push(["scripting.executeScript", details]);
        return api.onInject(details);
      },
    },
    debugger: {
      onEvent: event(),
      attach: async (target, version) => {
        calls.push(["debugger.attach", target.tabId, version]);
        return api.onAttach(target.tabId);
      },
      sendCommand: async (target, method, params) => {
        calls.push(["debugger.sendCommand", target.tabId, method]);
        return api.onCommand(target.tabId, method, params);
      },
    },
    onMessage: async () => ({ ok: true, value: null }),
    onInject: async () => [],
    onAttach: async () => {},
    onCommand: async () => ({}),
    onNavigate: null,
  };
  return api;
}
