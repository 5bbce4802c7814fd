// The callback wake-up relay between gateways (callbacks/cluster-wake.ts): one NOTIFY when this
// gateway's worker cannot take a callback due now, coalesced to one per gap, none while it has
// room, and a wake-up that came over the bus never relayed. Table-driven on a test clock.
import { afterEach, expect, test } from "bun:test";
import { TestClock } from "../lib/clock";
import { silentLogger } from "../lib/logger";
import { callbacksDue } from "../db/callbacks-due";
import { CallbackWakeRelay, WAKE_GAP_MS } from "./cluster-wake";

const relays: CallbackWakeRelay[] = [];
afterEach(() => {
  for (const r of relays.splice(0)) r.stop();
});

function relay(room: () => boolean) {
  const clock = new TestClock(1_000_000);
  const at: number[] = [];
  const r = new CallbackWakeRelay({ publish: async () => void at.push(clock.now()), localRoom: room, clock, logger: silentLogger }).start();
  relays.push(r);
  return { r, clock, at };
}

type Step = { due?: number; cluster?: number; advance?: number };
const cases: { name: string; room: boolean; steps: Step[]; sent: number[] }[] = [
  { name: "room here: no NOTIFY", room: true, steps: [{ due: 5 }, { advance: WAKE_GAP_MS * 3 }], sent: [] },
  { name: "no room: one at once", room: false, steps: [{ due: 1 }], sent: [0] },
  { name: "a burst: one at once, one at the end of the gap", room: false, steps: [{ due: 100 }, { advance: WAKE_GAP_MS }, { advance: WAKE_GAP_MS * 3 }], sent: [0, WAKE_GAP_MS] },
  { name: "spaced past the gap: one each", room: false, steps: [{ due: 1 }, { advance: WAKE_GAP_MS }, { due: 1 }, { advance: WAKE_GAP_MS * 2 }, { due: 1 }], sent: [0, WAKE_GAP_MS, WAKE_GAP_MS * 3] },
  { name: "a wake-up from the bus is never relayed", room: false, steps: [{ cluster: 10 }, { advance: WAKE_GAP_MS * 2 }], sent: [] },
];

for (const c of cases) {
  test(`relay: ${c.name}`, async () => {
    const { clock, at } = relay(() => c.room);
    const t0 = clock.now();
    for (const s of c.steps) {
      for (let i = 0; i < (s.due ?? 0); i++) callbacksDue();
      for (let i = 0; i < (s.cluster ?? 0); i++) callbacksDue("cluster");
      if (s.advance) await clock.advance(s.advance);
    }
    expect(at.map((t) => t - t0)).toEqual(c.sent);
  });
}

test("relay: the trailing wake-up is dropped when the worker has room again by then; stop() ends it", async () => {
  let room = false;
  const { r, clock, at } = relay(() => room);
  callbacksDue();
  callbacksDue(); // within the gap: one trailing wake-up armed
  room = true; // a slot freed: the worker polls on its own
  await clock.advance(WAKE_GAP_MS * 2);
  expect(at).toHaveLength(1);
  room = false;
  r.stop();
  callbacksDue();
  await clock.advance(WAKE_GAP_MS * 2);
  expect(at).toHaveLength(1);
});
