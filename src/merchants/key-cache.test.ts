// The key cache never keeps a row read before a change once the cache was cleared for that
// change (review R10): each lookup's read is made slow (a PostgreSQL round trip) and the change
// commits while it is on the wire; a second lookup sees the new version and clears; the slow
// one then finishes; every later answer must show the change.
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { openTestDb, type TestDb } from "../testing/engines";
import { currentKey } from "./store";
import { Cipher } from "../secrets/cipher";
import { createMerchant, rotateKey, setMerchantStatus } from "./service";
import { KeyCache } from "./key-cache";

type Lookups = Record<"keyByHash" | "merchantById" | "currentKeyId", (...a: unknown[]) => Promise<unknown>>;

// Each case on a database of its own, on the engine of the test process (SG_TEST_DB).
const opened: TestDb[] = [];
afterAll(async () => {
  for (const t of opened) await t.close();
});

async function setup() {
  const t = await openTestDb();
  opened.push(t);
  const db = t.db;
  const cipher = new Cipher(randomBytes(32));
  const deps = { db, cipher, now: () => Date.now() };
  const { merchant, apiKey } = await createMerchant(deps, { name: "shop" });
  const cache = new KeyCache(db, cipher);
  return { deps, merchant, apiKey, cache };
}

/** The cache's `read` answers with the row it read, 30 ms later (while `slow` is set). */
function slowRead(cache: KeyCache, read: keyof Lookups): { fast(): void } {
  const lk = (cache as unknown as { lookups: Lookups }).lookups;
  const f = lk[read];
  let slow = true;
  lk[read] = async (...a: unknown[]) => {
    const r = await f(...a);
    if (slow) await Bun.sleep(30);
    return r;
  };
  return { fast: () => (slow = false) };
}

type S = Awaited<ReturnType<typeof setup>>;
const cases: { name: string; slow: keyof Lookups; change(s: S): Promise<unknown>; ask(s: S): Promise<unknown>; after: (s: S) => unknown }[] = [
  {
    name: "a disabled merchant's key (lookup, merchant row read before the disable)",
    slow: "merchantById",
    change: (s) => setMerchantStatus(s.deps, s.merchant.uid, "disabled"),
    ask: async (s) => (await s.cache.lookup(s.apiKey))?.merchant.status,
    after: () => "disabled",
  },
  {
    name: "a key rotated with no grace (lookup, key row read before the rotation)",
    slow: "keyByHash",
    change: (s) => rotateKey(s.deps, s.merchant.uid, 0),
    ask: async (s) => (await s.cache.lookup(s.apiKey))?.key.validUntil !== null,
    after: () => true,
  },
  {
    name: "a merchant row (merchant())",
    slow: "merchantById",
    change: (s) => setMerchantStatus(s.deps, s.merchant.uid, "disabled"),
    ask: async (s) => (await s.cache.merchant(s.merchant.id))?.status,
    after: () => "disabled",
  },
  {
    name: "the current key id (currentKeyId())",
    slow: "currentKeyId",
    change: (s) => rotateKey(s.deps, s.merchant.uid, 60_000),
    ask: (s) => s.cache.currentKeyId(s.merchant.id),
    after: async (s) => (await currentKey(s.deps.db, s.merchant.id))!.id,
  },
];

for (const c of cases) {
  test(`R10: a row read before a change is not cached after the clear: ${c.name}`, async () => {
    const s = await setup();
    const wire = slowRead(s.cache, c.slow);
    const first = c.ask(s); // reads the row, then waits on the wire
    await Bun.sleep(5);
    await c.change(s); // commits, bumps the auth version
    wire.fast();
    const want = await c.after(s);
    expect(await c.ask(s)).toEqual(want); // sees the new version, clears, reads again
    await first; // the pre-change answer (uncached)
    await Bun.sleep(5); // past RECHECK_MS: a hit would be served from the maps
    expect(await c.ask(s)).toEqual(want);
    expect(await c.ask(s)).toEqual(want);
  });
}
