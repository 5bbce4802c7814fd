// After-commit hooks (DESIGN 16): metrics, wake-ups and other side effects of a
// write run only once the transaction holding it has committed. Each open
// transaction or savepoint of a connection is a frame; a hook joins the
// innermost one. A frame that commits hands its hooks to the frame around it
// (or runs them, when it was the outermost); a frame rolled back drops them.
// So a rolled-back batch preview counts nothing, and a request whose group
// commit fails wakes nobody.
import type { Database } from "bun:sqlite";

type Hook = () => void;
const stacks = new WeakMap<Database, Hook[][]>();

function stackOf(client: Database): Hook[][] {
  let s = stacks.get(client);
  if (!s) stacks.set(client, (s = []));
  return s;
}

/** True while a frame is open on this connection (a write transaction begun by the machinery here). */
export function inFrame(client: Database): boolean {
  return stackOf(client).length > 0;
}

export function pushFrame(client: Database): void {
  stackOf(client).push([]);
}

/** Drops the innermost frame's hooks (its writes were rolled back). */
export function dropFrame(client: Database): void {
  stackOf(client).pop();
}

/**
 * Closes the innermost frame as committed: its hooks move to the enclosing frame,
 * or are returned when it was the outermost (the caller runs them once COMMIT returned).
 */
export function releaseFrame(client: Database): Hook[] {
  const s = stackOf(client);
  const hooks = s.pop() ?? [];
  if (s.length) {
    s[s.length - 1]!.push(...hooks);
    return [];
  }
  return hooks;
}

/** Where a failing hook is reported (the write itself has committed; the hook's failure must not undo the answer). */
let report: (e: unknown) => void = (e) =>
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "after-commit hook failed", error: String((e as Error)?.stack ?? e) }) + "\n");
export function onHookError(fn: (e: unknown) => void): void {
  report = fn;
}

export function runHooks(hooks: Hook[]): void {
  for (const h of hooks) {
    try {
      h();
    } catch (e) {
      report(e);
    }
  }
}

/** Queues `fn` on the innermost open frame; throws when none is open (a write outside writeTx). */
export function queueAfterCommit(client: Database, fn: Hook): void {
  const s = stackOf(client);
  if (!s.length) throw new Error("afterCommit called outside writeTx: side effects must wait for a commit");
  s[s.length - 1]!.push(fn);
}
