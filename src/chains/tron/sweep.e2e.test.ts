// The TRON sweep on the fake TRON node (DESIGN 25): the account's TRC20 history, each unknown
// transaction read back so it carries exactly the scan's key and block data; known ones cost
// no lookup; blocks past the scan's cursor are left to the scan; an endpoint without
// TronGrid's v1 API is an answer the sweep reports, not an endpoint fault.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { deriveTronKey } from "./address";
import { watchSetOf } from "../../testing/watch-set";
import { startTronFixture, TRX, type TronFixture } from "../../testing/tron-fixture";
import { TronRpc } from "./rpc";
import type { TronAdapter } from "./adapter";

let fx: TronFixture;
let adapter: TronAdapter;
let k = 0;
const addr = () => deriveTronKey(sha256(new TextEncoder().encode("sweep")), k++).address;
const head = () => BigInt(fx.node.chain.head.number);

beforeAll(async () => {
  fx = await startTronFixture({ solidLag: 3 });
  adapter = fx.adapter();
  await adapter.start();
});
afterAll(() => fx?.stop());

test("finds what the scan finds, with the scan's key; known transactions and later blocks cost nothing", async () => {
  const [a, other] = [addr(), addr()];
  const start = head() + 1n;
  const t1 = await fx.sendUsdt(a, 1_500_000n);
  await fx.sendUsdt(other, 7n);
  await fx.sendTrx(a, 2n * TRX);
  fx.node.mine(1);
  const t2 = await fx.sendUsdt(a, 42n);
  fx.node.mine(2);
  const upTo = head();
  const scanned = (await adapter.scan(start, upTo, watchSetOf([a]))).transfers;
  const q = { address: a, after: null, since: Date.now() - 3600_000, upTo };
  const swept = await adapter.sweep!({ ...q, known: async () => false });
  const key = (t: { txHash: string; logIndex: number; blockNumber: bigint; blockHash: string; blockTime: number; amount: bigint; from: string }) => [t.txHash, t.logIndex, t.blockNumber, t.blockHash, t.blockTime, t.amount, t.from];
  expect(swept.map(key).sort()).toEqual(scanned.map(key).sort());
  expect(swept.map((t) => t.txHash).sort()).toEqual([t1, t2].sort());

  fx.node.resetCounts();
  expect(await adapter.sweep!({ ...q, known: async (h) => h === t1 })).toMatchObject([{ txHash: t2 }]);
  expect(fx.node.totalCalls()).toBe(3); // the history page, then t2's info and block
  // A transfer past the scan's cursor is the scan's.
  expect(await adapter.sweep!({ ...q, upTo: start, known: async () => false })).toMatchObject([{ txHash: t1 }]);
});

test("an endpoint without TronGrid's v1 API answers null and stays healthy", async () => {
  const rpc = new TronRpc({ urls: [fx.node.url] });
  expect(await rpc.get("v1/not-served")).toBeNull();
  expect(rpc.healthSnapshot()[0]).toMatchObject({ failures: 0, up: true });
});
