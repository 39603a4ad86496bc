// Several CDP commands for one tab, sent in order as one request (op `cdp_sequence`), so that an
// action made of many input events (typing, a click's move-press-release) costs one service
// round trip instead of one per event.
//
// Each command is sent only after the previous one was answered, exactly as single `cdp`
// requests would be, unless it is `joined` to it: then it goes out at once behind it, without
// waiting for that answer (a key's up behind its down: Chrome delivers them in order, and half
// the round trips of typing are saved). The sequence stops at the first failure, at a stop (the kill switch), and
// when a JavaScript dialog opens. Its answer says how many commands were answered
// (`completed`), and a failure carries that count too, so the service can say exactly how much
// of the action took effect. When a dialog answers the request, `delivered` says whether a
// command was out when it opened (Chrome answers that command only after the dialog closes),
// and `sent` how many went out (those joined behind it reach the page once the dialog closes).

import { OpError } from "./frames.js";

export const MAX_SEQUENCE = 256;

// The `commands` argument, validated: 1..MAX_SEQUENCE of {method, params?, joined?}.
export function requireCommands(args) {
  const commands = args ? args.commands : undefined;
  if (!Array.isArray(commands) || commands.length === 0 || commands.length > MAX_SEQUENCE) {
    throw new OpError(`args.commands must be a list of 1 to ${MAX_SEQUENCE} CDP commands`, { code: "bad_args" });
  }
  return commands.map((command, index) => {
    const method = command && command.method;
    const params = command ? command.params : undefined;
    if (typeof method !== "string" || !method) {
      throw new OpError(`args.commands[${index}].method must be a CDP method name`, { code: "bad_args" });
    }
    if (params !== undefined && params !== null && (typeof params !== "object" || Array.isArray(params))) {
      throw new OpError(`args.commands[${index}].params must be an object`, { code: "bad_args" });
    }
    return command.joined === true ? { method, params: params || {}, joined: true } : { method, params: params || {} };
  });
}

// `send(tabId, method, params, signal)`: one CDP command (DebuggerSessions.send).
// `gate`: the dialog gate (dialog-gate.js), which refuses while a dialog is open and answers
// at once when one opens.
export function createCdpSequence({ send, gate }) {
  return async function cdpSequence(tabId, commands, signal) {
    let completed = 0;
    let outstanding = 0;
    let sent = 0;
    let halted = false;
    const start = async () => {
      for (let first = 0; first < commands.length; ) {
        if (halted) break; // a dialog already answered the request: nothing more goes out
        let end = first + 1;
        while (end < commands.length && commands[end].joined) end += 1;
        // The group goes out together; its answers are taken in order.
        outstanding = end - first;
        sent = end;
        const answers = commands.slice(first, end).map(({ method, params }) => send(tabId, method, params, signal));
        answers.forEach((answer) => answer.catch(() => {})); // one failure is reported, not all
        for (const answer of answers) {
          try {
            await answer;
          } catch (err) {
            if (err instanceof OpError) err.completed = completed;
            outstanding = 0;
            throw err;
          }
          outstanding -= 1;
          completed += 1;
        }
        first = end;
      }
      return completed;
    };
    const out = await gate.run(tabId, start, { method: commands[0].method });
    if (out.dialog) {
      halted = true;
      return { dialog: out.dialog, completed, delivered: outstanding > 0, sent };
    }
    return { completed: out.value };
  };
}

export const MAX_WAIT_MS = 600_000;

// One CDP command (op `cdp`), through the same dialog gate. With `waitMs`, a command Chrome has
// not answered by then is answered `{pending: true}` and left running: a script still awaiting
// a promise that never settles is reported as waiting instead of holding the request (and the
// tab) until the service gives up on it with an unknown outcome.
export function createCdpCommand({ send, gate, setTimer = setTimeout, clearTimer = clearTimeout }) {
  return async function cdpCommand(tabId, method, params, { signal, waitMs } = {}) {
    const running = gate.run(tabId, () => send(tabId, method, params, signal), { method });
    let timer = null;
    const pending = new Promise((resolve) => {
      if (Number.isFinite(waitMs) && waitMs > 0) timer = setTimer(() => resolve(null), Math.min(waitMs, MAX_WAIT_MS));
    });
    running.catch(() => {}); // answered or not, a late failure must not go unhandled
    try {
      const out = await Promise.race([running, pending]);
      if (out === null) return { pending: true };
      return out.dialog ? { dialog: out.dialog } : { result: out.value };
    } finally {
      if (timer !== null) clearTimer(timer);
    }
  };
}
