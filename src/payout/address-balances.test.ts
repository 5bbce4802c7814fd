// address_balances and sandbox_balances (migration 0150, issue 23): sums kept by
// triggers, exact beyond 64 bits, equal to the entries they sum; the migration
// backfills a database that already has a ledger; reconcile walks them in slices
// that give the event loop back.
import { describe, expect, test } from "bun:test";
import { openDb, type Db } from "../db/client";
import { migrate } from "../db/migrate";
import { migrations } from "../../migrations/index";
import { ledgerBalance, ledgerSum, RECONCILE_SLICE, reconcileChain } from "./balances";
import { fromHiLo } from "../db/balance-sum";
import { TestClock } from "../lib/clock";
import { createLogger } from "../lib/logger";
import type { ChainAdapter } from "../chains/types";

function addAddress(db: Db, id: string, index: number, chain = "TRON") {
  db.$client.run("INSERT OR IGNORE INTO merchants (id, uid, name, created_at, updated_at) VALUES (1, 'M1', 'shop', 0, 0)");
  db.$client.run("INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, created_at) VALUES (?, 1, ?, 'shared', ?, ?, 0)", [id, chain, index, `addr-${id}`]);
}

let ref = 0;
function entry(db: Db, addressId: string, amount: string, token = "USDT", chain = "TRON") {
  db.$client.run("INSERT INTO ledger_entries (address_id, chain, token, kind, amount, ref_type, ref_id, created_at) VALUES (?, ?, ?, 'adjustment', ?, 'test', ?, 1)", [
    addressId, chain, token, amount, String(++ref),
  ]);
}

// Amounts around the 10^12 split, negative ones, and 18-decimal sums far beyond 64 bits.
const AMOUNTS = [
  "0", "1", "999999999999", "1000000000000", "1000000000001", "-1", "-999999999999", "-1000000000000", "-1000000000001",
  "123456789012345678901234567890", "-23456789012345678901234567890", "500000000000000000000", "-499999999999999999999", "7",
];

describe("address balances", () => {
  test("the trigger keeps each (address, token) equal to the exact sum of its entries, whatever the signs and sizes", async () => {
    const db = openDb(":memory:");
    await migrate(db);
    addAddress(db, "A", 1);
    addAddress(db, "B", 2);
    let a = 0n;
    let b = 0n;
    for (const [i, x] of AMOUNTS.entries()) {
      entry(db, "A", x);
      a += BigInt(x);
      expect(await ledgerBalance(db, "A", "USDT")).toBe(a);
      const y = AMOUNTS[(i * 5 + 3) % AMOUNTS.length]!;
      entry(db, "B", y, "USDC");
      b += BigInt(y);
    }
    expect(await ledgerBalance(db, "B", "USDC")).toBe(b);
    expect(await ledgerSum(db, "A", "USDT")).toBe(a);
    expect(await ledgerBalance(db, "B", "USDT")).toBe(0n);
    const row = db.$client.query<{ lo: number; entries: number; merchant_id: number }, []>("SELECT lo, entries, merchant_id FROM address_balances WHERE address_id = 'A'").get()!;
    expect(row.lo).toBeGreaterThanOrEqual(0);
    expect(row.lo).toBeLessThan(1e12);
    expect(row.entries).toBe(AMOUNTS.length);
    expect(row.merchant_id).toBe(1);
  });

  test("the migration backfills a database that already has a ledger", async () => {
    const db = openDb(":memory:");
    await migrate(db, migrations.slice(0, 1)); // the shipped baseline only
    addAddress(db, "A", 1);
    addAddress(db, "B", 2, "BSC");
    let a = 0n;
    for (const x of AMOUNTS) {
      entry(db, "A", x);
      a += BigInt(x);
    }
    entry(db, "B", "1000000000000000000", "USDC", "BSC");
    await migrate(db);
    expect(await ledgerBalance(db, "A", "USDT")).toBe(a);
    expect(await ledgerBalance(db, "B", "USDC")).toBe(10n ** 18n);
    const rows = db.$client.query<{ address_id: string; chain: string; entries: number }, []>("SELECT address_id, chain, entries FROM address_balances ORDER BY address_id").all();
    expect(rows).toEqual([
      { address_id: "A", chain: "TRON", entries: AMOUNTS.length },
      { address_id: "B", chain: "BSC", entries: 1 },
    ]);
    // and the trigger carries on from the backfilled sum
    entry(db, "A", "-5");
    expect(await ledgerBalance(db, "A", "USDT")).toBe(a - 5n);
  });

  test("sandbox balances follow transfers as they are mined, moved by a reorg and cut", async () => {
    const db = openDb(":memory:");
    await migrate(db);
    const c = db.$client;
    const bal = (address: string) => {
      const q = c.query<{ hi: bigint; lo: bigint }, [string]>("SELECT hi, lo FROM sandbox_balances WHERE chain = 'BSC' AND address = ? AND token = 'USDT'");
      q.safeIntegers(true);
      const r = q.get(address);
      return r ? fromHiLo(r.hi, r.lo) : 0n;
    };
    const big = "2000000000000000000000";
    c.run("INSERT INTO sandbox_transfers (chain, token, tx_hash, block_number, from_address, to_address, amount, created_at) VALUES ('BSC', 'USDT', 't1', NULL, 'payer', 'shop', ?, 0)", [big]);
    expect(bal("shop")).toBe(0n); // not mined yet
    c.run("UPDATE sandbox_transfers SET block_number = 5 WHERE tx_hash = 't1'");
    expect(bal("shop")).toBe(2000n * 10n ** 18n);
    expect(bal("payer")).toBe(-2000n * 10n ** 18n);
    c.run("INSERT INTO sandbox_transfers (chain, token, tx_hash, block_number, from_address, to_address, amount, created_at) VALUES ('BSC', 'USDT', 't2', 6, 'shop', 'out', '1', 0)");
    expect(bal("shop")).toBe(2000n * 10n ** 18n - 1n);
    c.run("UPDATE sandbox_transfers SET block_number = 7 WHERE tx_hash = 't2'"); // re-mined in another block: no change
    expect(bal("shop")).toBe(2000n * 10n ** 18n - 1n);
    c.run("DELETE FROM sandbox_transfers WHERE block_number > 5"); // reorg cut
    expect(bal("shop")).toBe(2000n * 10n ** 18n);
    expect(bal("out")).toBe(0n);
  });
});

describe("reconcile", () => {
  test("walks every balance row in slices and gives the event loop a turn between slices", async () => {
    const db = openDb(":memory:");
    await migrate(db);
    const n = RECONCILE_SLICE * 2 + 7;
    for (let i = 0; i < n; i++) {
      addAddress(db, `A${String(i).padStart(4, "0")}`, i);
      entry(db, `A${String(i).padStart(4, "0")}`, String(1000 + i));
    }
    // A chain that answers without I/O (like the sandbox): only explicit yields let others run.
    const read: string[] = [];
    const adapter = {
      chain: "TRON",
      tokenBalance: async (address: string) => {
        read.push(address);
        return address === "addr-A0003" ? 1n : 1000n + BigInt(Number(address.slice(6)));
      },
    } as unknown as ChainAdapter;
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    const out = await reconcileChain({ db, clock: new TestClock(1_000), logger: createLogger({ level: "error" }) }, adapter);
    spinning = false;
    expect(read.length).toBe(n);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(out.map((d) => d.address)).toEqual(["addr-A0003"]);
    expect(db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM balance_checks").get()!.n).toBe(n);
  });
});
