// Restore reconcile on anvil: a source's nonces past the highest the database stored are
// unrecorded transfers; a token transfer since the backup's cursor names its nonce, a native
// transfer (no token log) is reported by its nonce alone; a transaction the database knows is not.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { openDb } from "../../db/client";
import { migrate } from "../../db/migrate";
import { toBaseUnits } from "../../lib/money";
import { silentLogger } from "../../lib/logger";
import { systemClock } from "../../lib/clock";
import { startBscFixture, someAddresses, type BscFixture } from "../../testing/bsc-fixture";
import type { BscAdapter } from "../bsc/adapter";
import { evmUnrecordedOutgoing } from "./reconcile";
import { payoutStore } from "../../payout/store";

const SEED = mnemonicToSeedSync("legal winner thank year wave sausage worth useful legal winner thank yellow");
let fx: BscFixture;
let adapter: BscAdapter;
beforeAll(async () => {
  fx = await startBscFixture();
  adapter = fx.adapter({ confirmations: 1 });
  await adapter.start();
});
afterAll(() => fx?.stop());

async function landed(hash: string) {
  for (let i = 0; i < 250 && (await adapter.txState({ txHash: hash, raw: "", meta: {} })).state !== "included"; i++) await Bun.sleep(20);
}

test("nonces past the stored ones are reported, with the token transfer that used one", async () => {
  const db = openDb(":memory:");
  await migrate(db);
  const ctx = { db, clock: systemClock, logger: silentLogger, seed: SEED };
  const src = adapter.deriveKey(SEED, 7);
  await fx.node.mint("USDT", src.address, toBaseUnits("100", 18));
  await fx.node.setBalance(src.address, 10n ** 17n);
  const since = (await adapter.head()).latest;
  const q = { address: src.address, since, known: async () => false, payouts: payoutStore, addressesAfter: async () => [] };
  expect(await evmUnrecordedOutgoing(ctx, adapter, q)).toEqual([]);

  const [to, other] = someAddresses(2, "reconcile");
  const token = await adapter.signTransfer({ token: "USDT", from: src.address, to: to!, amount: toBaseUnits("20", 18), privateKey: src.privateKey });
  expect(await adapter.broadcast(token)).toEqual({ ok: true });
  await landed(token.txHash);
  const native = await adapter.signNativeTransfer({ from: src.address, to: other!, amount: 10n ** 15n, privateKey: src.privateKey });
  expect(await adapter.broadcast(native)).toEqual({ ok: true });
  await landed(native.txHash);

  const found = await evmUnrecordedOutgoing(ctx, adapter, q);
  expect(found).toHaveLength(2);
  expect(found[0]).toMatchObject({ txHash: token.txHash, nonce: 0, to, asset: "USDT", amount: toBaseUnits("20", 18) });
  expect(found[1]).toEqual({ txHash: null, nonce: 1 });
  // Known to the database by hash: its nonce is still past the stored ones (nothing stored), but it is not named.
  const known = await evmUnrecordedOutgoing(ctx, adapter, { ...q, known: async (h: string) => h === token.txHash });
  expect(known).toEqual([{ txHash: null, nonce: 0 }, { txHash: null, nonce: 1 }]);
});
