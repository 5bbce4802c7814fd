// The watcher's cursor on SQLite (issue 37, the idle background): a scan that found nothing moves it
// in memory only; it is written with the next transfer, or once CURSOR_SAVE_MS passed since the last
// write. A restart (a new watcher on the database: what a kill -9 leaves) starts from the stored
// cursor and rescans the blocks since: recording is idempotent, nothing is counted twice. A rewind
// or anyone else moving the stored cursor wins over the unsaved one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";
import { SandboxChain } from "../chains/sandbox/chain";
import { ChainWatcher, CURSOR_SAVE_MS } from "./watcher";
import { payinTransferPort } from "../payin/deposits";
import { chainCursor, saveChainCursor } from "./store";
import { tableRows } from "../testing/engine-rows";
import { callbacks, transfers } from "../db/schema";
import { writeTx } from "../db/client";
import { TEST_ENGINE } from "../testing/engines";

let gw: TestGateway;
const clock = new TestClock(Date.now());
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
});
afterAll(() => gw.stop());

const stored = async () => (await chainCursor(gw.ctx.db, "TRON"))!.blockNumber;

test.skipIf(TEST_ENGINE === "pg")("empty scans keep the cursor in memory; a transfer or CURSOR_SAVE_MS writes it; a restart rescans without counting twice", async () => {
  const chain = gw.ctx.chains.get("TRON") as SandboxChain;
  const port = payinTransferPort(gw.ctx);
  let w = new ChainWatcher(gw.ctx, chain, port);
  await w.tick();
  const h0 = await chain.height();
  await chain.mine(3);
  await w.tick(); // the first scan writes (nothing written yet by this watcher)
  expect([await w.scanned(), await stored()]).toEqual([BigInt(h0 + 3), h0 + 3]);
  await chain.mine(2);
  await w.tick();
  expect([await w.scanned(), await stored()]).toEqual([BigInt(h0 + 5), h0 + 3]);

  const o = await gw.client.request<Record<string, any>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "CUR-1", amount: "2", notifyUrl: "https://shop.example/cb" },
  });
  const { txHash, blockNumber } = await chain.transfer({ token: "USDT", to: o.address, amount: 2_000_000n });
  await w.tick(); // a transfer: recorded and the cursor written in one transaction
  expect(await stored()).toBe(blockNumber);
  await chain.mine(3);
  await w.tick();
  expect([await w.scanned(), await stored()]).toEqual([BigInt(blockNumber + 3), blockNumber]);
  expect((await gw.client.request<Record<string, any>>("GET", `/openapi/payin/orders/${o.orderNo}`)).status).toBe("completed");
  const counted = async () => ({
    transfers: (await tableRows(gw.ctx.db, transfers, { txHash })).length,
    callbacks: (await tableRows(gw.ctx.db, callbacks, { orderNo: o.orderNo })).length,
  });
  const before = await counted();
  expect(before.transfers).toBe(1);

  // A restart: a new watcher reads the stored cursor and rescans; even from below the transfer's block nothing doubles.
  await writeTx(gw.ctx.db, async (tx) => await saveChainCursor(tx, "TRON", blockNumber - 1, (await chain.blockHash(BigInt(blockNumber - 1)))!, clock.now()));
  w = new ChainWatcher(gw.ctx, chain, port);
  expect(await w.scanned()).toBe(BigInt(blockNumber - 1));
  await w.tick();
  expect(await w.scanned()).toBe(BigInt(blockNumber + 3));
  expect(await counted()).toEqual(before);

  // Time passes: the next empty scan writes the cursor.
  await chain.mine(1);
  await w.tick();
  expect(await stored()).toBe(blockNumber + 3);
  await clock.advance(CURSOR_SAVE_MS);
  await chain.mine(1);
  await w.tick();
  expect(await stored()).toBe(blockNumber + 5);

  // A rewind of the stored cursor (a restore's rescan) wins over the unsaved position.
  await chain.mine(2);
  await w.tick();
  expect(await w.scanned()).toBe(BigInt(blockNumber + 7));
  await w.rewind(BigInt(blockNumber + 4));
  expect([await w.scanned(), await stored()]).toEqual([BigInt(blockNumber + 4), blockNumber + 4]);
  await w.tick();
  expect(await w.scanned()).toBe(BigInt(blockNumber + 7));
});
