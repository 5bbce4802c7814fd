// The order whileLeader keeps (DESIGN 22): one epoch's work at a time; a new epoch's work starts
// only once the old one has stopped; a failed start is reported and stops nothing else. The
// elector's events are played by hand here (the real elector's are in leader.e2e.test.ts).
import { describe, expect, test } from "bun:test";
import { whileLeader } from "./while-leader";

function events() {
  const fns = { gained: new Set<(e: number) => void>(), lost: new Set<(e: number) => void>() };
  return {
    on: (ev: "gained" | "lost", fn: (e: number) => void) => (fns[ev].add(fn), () => fns[ev].delete(fn)),
    emit: (ev: "gained" | "lost", epoch: number) => fns[ev].forEach((fn) => fn(epoch)),
  };
}

describe("whileLeader", () => {
  test("lost then gained at once: the new epoch's work waits for the old one to stop", async () => {
    const e = events();
    const log: string[] = [];
    let finishStop!: () => void;
    const w = whileLeader(e, async (epoch) => {
      log.push(`start ${epoch}`);
      return {
        stop: async () => {
          log.push(`stopping ${epoch}`);
          if (epoch === 1) await new Promise<void>((r) => (finishStop = r));
          log.push(`stopped ${epoch}`);
        },
      };
    });
    e.emit("gained", 1);
    await Bun.sleep(1);
    e.emit("lost", 1);
    e.emit("gained", 2);
    await Bun.sleep(20);
    expect(log).toEqual(["start 1", "stopping 1"]);
    expect(w.epoch()).toBe(2);
    finishStop();
    await Bun.sleep(20);
    expect(log).toEqual(["start 1", "stopping 1", "stopped 1", "start 2"]);
    await w.stop();
    expect(log.at(-1)).toBe("stopped 2");
  });

  test("a start that fails is reported; the next gained starts afresh", async () => {
    const e = events();
    const errors: unknown[] = [];
    let tries = 0;
    const w = whileLeader(
      e,
      async () => {
        if (++tries === 1) throw new Error("no chain adapter");
        return { stop: async () => {} };
      },
      (err) => errors.push(err),
    );
    e.emit("gained", 1);
    await Bun.sleep(5);
    expect(errors.map(String)).toEqual(["Error: no chain adapter"]);
    e.emit("lost", 1);
    e.emit("gained", 2);
    await Bun.sleep(5);
    expect(tries).toBe(2);
    expect(w.epoch()).toBe(2);
    await w.stop();
    expect(w.epoch()).toBeNull();
  });
});
