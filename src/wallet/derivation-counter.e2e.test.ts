// Derivation indexes come from a counter row per chain (issue 37), never max(index)+1: processes
// deriving addresses at once never take one index twice, and a restore's floor still holds.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT, tempSetups } from "../testing/process";
import { loadConfig } from "../config/load";
import { openStore } from "../app/context";
import { createMerchant } from "../merchants/service";
import { openDb, writeTx } from "../db/client";
import { migrate } from "../db/migrate";
import { migrations } from "../../migrations/index";
import { peekDerivationIndex, setDerivationFloor, takeDerivationIndex } from "./store";

const setup = tempSetups();

const PROCESSES = 3;
const EACH = 40;

test(`${PROCESSES} processes deriving ${EACH} addresses each on one chain never take one index twice`, async () => {
  const s = await setup();
  const { db, cipher } = await openStore(loadConfig(s.configPath), s.env);
  const { merchant } = await createMerchant({ db, cipher, now: () => Date.now() }, { name: "shop" });
  const children = Array.from({ length: PROCESSES }, () =>
    Bun.spawn([BUN, join(ROOT, "src/testing/derive-addresses.ts"), s.dbPath, String(merchant.id), String(EACH)], { cwd: ROOT, env: s.env, stdout: "pipe", stderr: "pipe" }),
  );
  const results = await Promise.all(children.map(async (c) => ({ code: await c.exited, out: await new Response(c.stdout).text(), err: await new Response(c.stderr).text() })));
  for (const r of results) expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
  const taken = results.flatMap((r) => JSON.parse(r.out) as number[]).sort((a, b) => a - b);
  // Every index once, none skipped: 1..120 (0 is the gas wallet).
  expect(taken).toEqual(Array.from({ length: PROCESSES * EACH }, (_, i) => i + 1));
  const rows = db.$client.query<{ n: number; d: number }, []>("SELECT count(*) AS n, count(DISTINCT address) AS d FROM addresses WHERE chain = 'TRON' AND kind = 'shared'").get()!;
  expect(rows).toEqual({ n: PROCESSES * EACH, d: PROCESSES * EACH });
  expect(await peekDerivationIndex(db, "TRON")).toBe(PROCESSES * EACH + 1);

  // A restore's floor: the next index is at or above it, then counts on from there.
  await writeTx(db, async (tx) => await setDerivationFloor(tx, "TRON", 500, Date.now()));
  expect(await peekDerivationIndex(db, "TRON")).toBe(500);
  expect(await writeTx(db, async (tx) => [await takeDerivationIndex(tx, "TRON", 1), await takeDerivationIndex(tx, "TRON", 2)])).toEqual([500, 501]);
  // A chain with no address yet starts at 1 (index 0 is its gas wallet).
  expect(await writeTx(db, async (tx) => await takeDerivationIndex(tx, "BSC", 1))).toBe(1);
  db.$client.close();
}, 120_000);

test("the migration seeds each chain's counter past its highest stored index", async () => {
  const db = openDb(":memory:");
  const before = migrations.filter((m) => m.name < "0311_derivation_counters");
  await migrate(db, before);
  const add = db.$client.prepare("INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, created_at) VALUES (?, NULL, ?, 'shared', ?, ?, 1)");
  for (const [chain, i] of [["TRON", 0], ["TRON", 7], ["TRON", 3], ["SOL", 12]] as const) add.run(`AD-${chain}-${i}`, chain, i, `${chain}-${i}`);
  await migrate(db);
  expect(db.$client.query("SELECT chain, next_index AS n FROM derivation_counters ORDER BY chain").all()).toEqual([
    { chain: "SOL", n: 13 },
    { chain: "TRON", n: 8 },
  ]);
  expect(await writeTx(db, async (tx) => await takeDerivationIndex(tx, "TRON", 1))).toBe(8);
  db.$client.close();
});
