// The gas wallet row is made on first use; concurrent first uses (gauges of one /metrics answer,
// gateways of one PostgreSQL database) make one row and all read it. Both engines (SG_TEST_DB=pg).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { writeTx } from "../db/client";
import { addresses } from "../db/schema";
import { tableRows } from "../testing/engine-rows";
import { gasWallet } from "./addresses";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

test("first uses at once: one gas wallet row, the same address for every caller", async () => {
  const tron = gw.ctx.chains.get("TRON")!;
  const made = await Promise.all(Array.from({ length: 4 }, async () => await writeTx(gw.ctx.db, async (tx) => await gasWallet(tx, tron, gw.ctx.seed, gw.ctx.clock.now()))));
  const rows = await tableRows(gw.ctx.db, addresses, { chain: "TRON", kind: "gas" });
  expect(rows).toHaveLength(1);
  expect(new Set(made.map((r) => r.id))).toEqual(new Set([rows[0]!.id]));
  expect(rows[0]).toMatchObject({ derivationIndex: 0, merchantId: null, address: made[0]!.address });
});
