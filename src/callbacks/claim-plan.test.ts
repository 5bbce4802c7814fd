// The claim planner alone: rows and deliveries in flight as data, the clock's time as a
// number, the page reader as an array slice. Each row of the table is one situation and the
// ids the planner must start, in order.
import { describe, expect, test } from "bun:test";
import { DEEP_SCAN_MS, FAILING_AFTER, FAILING_SLOTS, failingKeys, forgetFirstPage, HEALTHY_FOR_MS, KEEP_MIN, MAX_PAGES, newPlanMemory, noteOutcome, originOf, PAGE, planClaims, SLOW_MS, type PlanInFlight, type PlanLimits, type PlanMemory, type PlanRow } from "./claim-plan";

const T0 = 1_700_000_000_000;

/** `n` due rows of merchant `m` to `url` (ids m-prefix-0, m-prefix-1…), due in rowid order. */
function rows(m: number, n: number, url: string | null, prefix = "r", from = 0): PlanRow[] {
  return Array.from({ length: n }, (_, i) => ({ rid: m * 10_000 + from + i, nextAt: T0, id: `${m}-${prefix}${from + i}`, merchantId: m, target: url }));
}

function fly(m: number, origin: string, n: number, startedAt = T0, settling = false): PlanInFlight[] {
  return Array.from({ length: n }, (_, i) => ({ id: `f${m}-${origin}-${i}`, merchantId: m, origin, startedAt, settling }));
}

interface Case {
  name: string;
  due: PlanRow[];
  inflight?: PlanInFlight[];
  limits?: Partial<PlanLimits>;
  turn?: number;
  now?: number;
  memory?: (mem: PlanMemory) => void;
  /** The ids started, in order. */
  want: string[];
  /** Pages read per merchant, when it matters. */
  reads?: Record<number, number>;
  /** Whether due rows were left unstarted (the worker offers handoffs only when none were), when it matters. */
  leftBehind?: boolean;
}

const A = "https://a.example";
const B = "https://b.example";

const cases: Case[] = [
  { name: "nothing due: nothing started, nothing left behind", due: [], want: [], leftBehind: false },
  {
    name: "one merchant, one origin: at most perTarget (half the pool) in flight; the rest left behind",
    due: rows(1, 5, `${A}/cb`),
    limits: { concurrency: 4 },
    want: ["1-r0", "1-r1"],
    leftBehind: true,
  },
  {
    name: "every due row started: nothing left behind",
    due: [...rows(1, 2, `${A}/cb`), ...rows(2, 1, `${B}/cb`)],
    limits: { concurrency: 4 },
    want: ["1-r0", "2-r0", "1-r1"],
    leftBehind: false,
  },
  {
    name: "pages read up to MAX_PAGES, all started, the last one full: more may be behind it",
    due: rows(1, PAGE * MAX_PAGES + 1, `${A}/cb`),
    limits: { concurrency: 8 * PAGE, perTarget: 8 * PAGE },
    want: rows(1, PAGE * MAX_PAGES, `${A}/cb`).map((r) => r.id),
    leftBehind: true,
  },
  {
    name: "round robin across merchants, one slot at a time, in merchant id order from the turn",
    due: [...rows(1, 3, `${A}/x`), ...rows(2, 3, `${B}/y`)],
    limits: { concurrency: 4, perTarget: 4 },
    want: ["1-r0", "2-r0", "1-r1", "2-r1"],
  },
  {
    name: "the turn rotates who goes first",
    due: [...rows(1, 3, `${A}/x`), ...rows(2, 3, `${B}/y`)],
    limits: { concurrency: 4, perTarget: 4 },
    turn: 1,
    want: ["2-r0", "1-r0", "2-r1", "1-r1"],
  },
  {
    name: "a merchant with fewer in flight goes first",
    due: [...rows(1, 3, `${A}/x`), ...rows(2, 3, `${B}/y`)],
    inflight: fly(1, A, 1),
    limits: { concurrency: 4, perTarget: 4 },
    want: ["2-r0", "1-r0", "2-r1"],
  },
  {
    name: "a saturated origin does not hide the merchant's other origins (held rows, no target, take no origin slot)",
    due: [...rows(1, 3, `${A}/dead`, "a"), ...rows(1, 1, `${B}/ok`, "b", 3), ...rows(1, 1, null, "h", 4)],
    inflight: fly(1, A, 2),
    limits: { concurrency: 8, perTarget: 2 },
    want: ["1-b3", "1-h4"],
  },
  {
    name: "pool full: a merchant with nothing in flight still gets one overflow slot; a busy one does not",
    due: [...rows(1, 2, `${A}/x`), ...rows(2, 2, `${B}/y`)],
    inflight: fly(1, "https://c.example", 2),
    limits: { concurrency: 2, perTarget: 2, overflow: 2 },
    want: ["2-r0"],
  },
  {
    name: "settling deliveries hold no slot, but their rows are not started twice",
    due: rows(1, 3, `${A}/x`),
    inflight: [{ id: "1-r0", merchantId: 1, origin: A, startedAt: T0, settling: true }],
    limits: { concurrency: 2, perTarget: 2 },
    want: ["1-r1", "1-r2"],
  },
  {
    name: "an origin proven healthy may use the whole pool",
    due: rows(1, 6, `${A}/x`),
    limits: { concurrency: 4, perTarget: 2 },
    memory: (m) => noteOutcome(m, 1, A, true, 50, T0),
    want: ["1-r0", "1-r1", "1-r2", "1-r3"],
  },
  {
    name: "healthy, but a delivery in flight longer than SLOW_MS: back to perTarget",
    due: rows(1, 6, `${A}/x`),
    inflight: fly(1, A, 1, T0 - SLOW_MS - 1),
    limits: { concurrency: 4, perTarget: 2 },
    memory: (m) => noteOutcome(m, 1, A, true, 50, T0),
    want: ["1-r0"],
  },
  {
    name: "health expires after HEALTHY_FOR_MS of the clock",
    due: rows(1, 6, `${A}/x`),
    limits: { concurrency: 4, perTarget: 2 },
    now: T0 + HEALTHY_FOR_MS,
    memory: (m) => noteOutcome(m, 1, A, true, 50, T0),
    want: ["1-r0", "1-r1"],
  },
  {
    name: "a slow success proves nothing",
    due: rows(1, 6, `${A}/x`),
    limits: { concurrency: 4, perTarget: 2 },
    memory: (m) => noteOutcome(m, 1, A, true, SLOW_MS, T0),
    want: ["1-r0", "1-r1"],
  },
  {
    name: "an origin whose last FAILING_AFTER attempts failed is probed with FAILING_SLOTS",
    due: rows(1, 6, `${A}/x`),
    limits: { concurrency: 8, perTarget: 4 },
    memory: (m) => {
      for (let i = 0; i < FAILING_AFTER; i++) noteOutcome(m, 1, A, false, 5, T0);
    },
    want: ["1-r0", "1-r1"], // FAILING_SLOTS
  },
  {
    name: "fewer failures in a row than FAILING_AFTER: perTarget still",
    due: rows(1, 6, `${A}/x`),
    limits: { concurrency: 8, perTarget: 4 },
    memory: (m) => {
      for (let i = 0; i < FAILING_AFTER - 1; i++) noteOutcome(m, 1, A, false, 5, T0);
    },
    want: ["1-r0", "1-r1", "1-r2", "1-r3"],
  },
  {
    name: "a success ends the run of failures (a slow one too): perTarget again",
    due: rows(1, 6, `${A}/x`),
    limits: { concurrency: 8, perTarget: 4 },
    memory: (m) => {
      for (let i = 0; i < FAILING_AFTER; i++) noteOutcome(m, 1, A, false, 5, T0);
      noteOutcome(m, 1, A, true, SLOW_MS, T0);
    },
    want: ["1-r0", "1-r1", "1-r2", "1-r3"],
  },
  {
    name: "a failing origin's probes count its deliveries in flight; another origin of the merchant keeps its share",
    due: [...rows(1, 4, `${A}/x`, "a"), ...rows(1, 3, `${B}/y`, "b", 4)],
    inflight: fly(1, A, 1),
    limits: { concurrency: 8, perTarget: 3 },
    memory: (m) => {
      for (let i = 0; i < FAILING_AFTER; i++) noteOutcome(m, 1, A, false, 5, T0);
    },
    want: ["1-a0", "1-b4", "1-b5", "1-b6"],
  },
  {
    name: "a dead origin's backlog: pages are read until a startable row, at most MAX_PAGES",
    due: [...rows(1, PAGE * 2, `${A}/dead`, "a"), ...rows(1, 1, `${B}/ok`, "b", PAGE * 2)],
    inflight: fly(1, A, 2),
    limits: { concurrency: 8, perTarget: 2 },
    want: [`1-b${PAGE * 2}`],
    reads: { 1: 3 },
  },
  {
    name: "beyond MAX_PAGES the other origin waits (the cost per claim is bounded)",
    due: [...rows(1, PAGE * MAX_PAGES, `${A}/dead`, "a"), ...rows(1, 1, `${B}/ok`, "b", PAGE * MAX_PAGES)],
    inflight: fly(1, A, 2),
    limits: { concurrency: 8, perTarget: 2 },
    want: [],
    reads: { 1: MAX_PAGES },
  },
  {
    name: "a deep scan within DEEP_SCAN_MS of the last reads the first page only",
    due: [...rows(1, PAGE, `${A}/dead`, "a"), ...rows(1, 1, `${B}/ok`, "b", PAGE)],
    inflight: fly(1, A, 2),
    limits: { concurrency: 8, perTarget: 2 },
    memory: (m) => m.deepScanAt.set(1, T0 - DEEP_SCAN_MS + 1),
    want: [],
    reads: { 1: 1 },
  },
  {
    name: "…and once DEEP_SCAN_MS has passed, the next page again",
    due: [...rows(1, PAGE, `${A}/dead`, "a"), ...rows(1, 1, `${B}/ok`, "b", PAGE)],
    inflight: fly(1, A, 2),
    limits: { concurrency: 8, perTarget: 2 },
    memory: (m) => m.deepScanAt.set(1, T0 - DEEP_SCAN_MS),
    want: [`1-b${PAGE}`],
    reads: { 1: 2 },
  },
];

describe("planClaims", () => {
  test.each(cases.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const concurrency = c.limits?.concurrency ?? 4;
    const limits: PlanLimits = { concurrency, perTarget: c.limits?.perTarget ?? Math.ceil(concurrency / 2), overflow: c.limits?.overflow ?? concurrency };
    const memory = newPlanMemory();
    c.memory?.(memory);
    const reads = new Map<number, number>();
    const merchants = [...new Set(c.due.map((r) => r.merchantId))].sort((a, b) => a - b);
    const report = { leftBehind: !c.leftBehind };
    const got = await planClaims({
      now: c.now ?? T0,
      merchants,
      turn: c.turn ?? 0,
      inflight: c.inflight ?? [],
      limits,
      memory,
      readDue: async (m, after, limit) => {
        reads.set(m, (reads.get(m) ?? 0) + 1);
        return c.due.filter((r) => r.merchantId === m && (r.nextAt > after.nextAt || (r.nextAt === after.nextAt && r.rid > after.rid))).slice(0, limit);
      },
      report,
    });
    expect(got.map((g) => g.row.id)).toEqual(c.want);
    for (const g of got) expect(g.origin).toBe(originOf(g.row.target));
    if (c.reads) expect(Object.fromEntries(reads)).toEqual(c.reads);
    if (c.leftBehind !== undefined) expect(report.leftBehind).toBe(c.leftBehind);
  });

  test("the planner reads no time of its own: the same input gives the same plan", async () => {
    const input = () => ({
      now: T0,
      merchants: [1, 2],
      turn: 0,
      inflight: fly(1, A, 1, T0 - 10),
      limits: { concurrency: 4, perTarget: 2, overflow: 4 },
      memory: newPlanMemory(),
      readDue: async (m: number) => rows(m, 3, m === 1 ? A : B),
    });
    expect((await planClaims(input())).map((g) => g.row.id)).toEqual((await planClaims(input())).map((g) => g.row.id));
  });
});

describe("a full first page with nothing startable is kept between claims", () => {
  // Merchant 1's backlog to a saturated origin A (perTarget 2 in flight), as under create load
  // with a dead endpoint: every commit kicks a claim.
  const due = [...rows(1, PAGE + 8, `${A}/cb`)];
  const plan = async (memory: PlanMemory, now: number, reads: number[], inflight = fly(1, A, 2)) =>
    (await planClaims({
      now,
      merchants: [1],
      turn: 0,
      inflight,
      limits: { concurrency: 4, perTarget: 2, overflow: 4 },
      memory,
      readDue: async (m, after, limit) => {
        reads.push(after.rid);
        return due.filter((r) => r.merchantId === m && (r.nextAt > after.nextAt || (r.nextAt === after.nextAt && r.rid > after.rid))).slice(0, limit);
      },
    })).map((g) => g.row.id);

  test("the next claims within DEEP_SCAN_MS read nothing; after it, the page is read again", async () => {
    const memory = newPlanMemory();
    memory.deepScanAt.set(1, T0); // no deep scan in these claims
    const reads: number[] = [];
    expect(await plan(memory, T0, reads)).toEqual([]);
    expect(reads).toHaveLength(1);
    expect(await plan(memory, T0 + 1, reads)).toEqual([]);
    expect(await plan(memory, T0 + DEEP_SCAN_MS - 1, reads)).toEqual([]);
    expect(reads).toHaveLength(1);
    memory.deepScanAt.set(1, T0 + DEEP_SCAN_MS);
    expect(await plan(memory, T0 + DEEP_SCAN_MS, reads)).toEqual([]);
    expect(reads).toHaveLength(2);
  });

  test("a free slot starts the kept page's first row; the page is kept without it, and the next claim starts from the rest", async () => {
    const memory = newPlanMemory();
    memory.deepScanAt.set(1, T0);
    const reads: number[] = [];
    expect(await plan(memory, T0, reads)).toEqual([]);
    expect(await plan(memory, T0 + 1, reads, fly(1, A, 1))).toEqual(["1-r0"]);
    expect(memory.firstPage.get(1)!.rows.map((r) => r.id)).toEqual(due.slice(1, PAGE).map((r) => r.id));
    // 1-r0 came back as a retry (due later): both slots free, the next two rows, still no read.
    expect(await plan(memory, T0 + 2, reads, [])).toEqual(["1-r1", "1-r2"]);
    expect(reads).toHaveLength(1);
  });

  test("a kept page with fewer than KEEP_MIN rows left is dropped: the next claim reads a whole page", async () => {
    const memory = newPlanMemory();
    const reads: number[] = [];
    const claim = async (now: number, perTarget: number, inflight: PlanInFlight[] = []) =>
      (await planClaims({
        now, merchants: [1], turn: 0, inflight, limits: { concurrency: perTarget, perTarget, overflow: 0 }, memory,
        readDue: async (m, after, limit) => (reads.push(after.rid), due.filter((r) => r.rid > after.rid).slice(0, limit)),
      })).map((g) => g.row.id);
    expect(await claim(T0, PAGE - KEEP_MIN)).toHaveLength(PAGE - KEEP_MIN);
    expect(memory.firstPage.get(1)!.rows).toHaveLength(KEEP_MIN);
    expect(await claim(T0 + 1, 1)).toEqual([`1-r${PAGE - KEEP_MIN}`]);
    expect(memory.firstPage.has(1)).toBe(false);
    expect(reads).toEqual([0]);
    await claim(T0 + 2, 1);
    expect(reads).toEqual([0, 0]);
  });

  test("past a kept page, the next page starts after the read page's last row, also when that row has started", async () => {
    const memory = newPlanMemory();
    // The page's last row goes to origin B and starts at once; A's rows wait behind its saturation.
    const mixed = [...rows(1, PAGE - 1, `${A}/cb`), ...rows(1, 1, `${B}/cb`, "b", PAGE - 1), ...rows(1, 8, `${A}/cb`, "r", PAGE)];
    const reads: number[] = [];
    const claim = async (now: number) =>
      (await planClaims({
        now, merchants: [1], turn: 0, inflight: fly(1, A, 2), limits: { concurrency: 4, perTarget: 2, overflow: 4 }, memory,
        readDue: async (m, after, limit) => (reads.push(after.rid), mixed.filter((r) => r.rid > after.rid).slice(0, limit)),
      })).map((g) => g.row.id);
    memory.deepScanAt.set(1, T0);
    expect(await claim(T0)).toEqual([`1-b${PAGE - 1}`]);
    expect(memory.firstPage.get(1)!.rows).toHaveLength(PAGE - 1);
    expect(await claim(T0 + DEEP_SCAN_MS - 1 - 0)).toEqual([]);
    expect(reads).toEqual([0]);
    memory.deepScanAt.set(1, T0 - DEEP_SCAN_MS);
    await claim(T0 + 1);
    expect(reads).toEqual([0, 10_000 + PAGE - 1]);
  });

  test("forgetFirstPage (a delivery of the merchant ended) makes the next claim read", async () => {
    const memory = newPlanMemory();
    memory.deepScanAt.set(1, T0);
    const reads: number[] = [];
    await plan(memory, T0, reads);
    forgetFirstPage(memory, 1);
    await plan(memory, T0 + 1, reads);
    expect(reads).toHaveLength(2);
  });

  test("a page that is not full is never kept (a new row would join it)", async () => {
    const memory = newPlanMemory();
    await planClaims({
      now: T0, merchants: [2], turn: 0, inflight: fly(2, B, 2), limits: { concurrency: 4, perTarget: 2, overflow: 4 }, memory,
      readDue: async () => rows(2, 3, `${B}/cb`),
    });
    expect(memory.firstPage.has(2)).toBe(false);
  });
});

describe("originOf", () => {
  test.each([
    ["https://a.example/cb?x=1", "https://a.example"],
    ["http://127.0.0.1:8080/path", "http://127.0.0.1:8080"],
    [null, ""],
    ["not a url", "not a url"],
  ] as const)("%s → %s", (url, origin) => {
    expect(originOf(url)).toBe(origin);
  });
});

describe("noteOutcome", () => {
  test("failures in a row make an origin failing; a success ends it; failingKeys lists only the failing", () => {
    expect(FAILING_SLOTS).toBe(2); // the table's failing rows are written for two probes
    const m = newPlanMemory();
    for (let i = 0; i < FAILING_AFTER; i++) noteOutcome(m, 7, A, false, 10, T0);
    noteOutcome(m, 7, B, false, 10, T0);
    expect(failingKeys(m)).toEqual([`7 ${A}`]);
    noteOutcome(m, 7, A, true, 10, T0 + 1);
    expect(failingKeys(m)).toEqual([]);
  });

  test("a fast success marks the origin healthy until now + HEALTHY_FOR_MS; a failure clears it", () => {
    const m = newPlanMemory();
    noteOutcome(m, 7, A, true, SLOW_MS - 1, T0);
    expect(m.healthyUntil.get(`7 ${A}`)).toBe(T0 + HEALTHY_FOR_MS);
    noteOutcome(m, 7, A, false, 10, T0 + 1);
    expect(m.healthyUntil.has(`7 ${A}`)).toBe(false);
  });
});
