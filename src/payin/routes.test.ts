// The pay-in routes against the spec's letter, through a real gateway.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { ApiError, StablegateClient } from "../sdk/client";

describe("orders of a chain the operator has since disabled", () => {
  const dir = mkdtempSync(join(tmpdir(), "stablegate-disabled-chain-"));
  const env = { STABLEGATE_MASTER_KEY: "test-master-key-disabled-chain" };
  const config = (tronEnabled: boolean) => ({ database: { path: join(dir, "gw.db") }, chains: { TRON: { enabled: tronEnabled } } });
  let gw: TestGateway | undefined;
  afterAll(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("stay readable: the query answers the order (with its payment URI), not a 500", async () => {
    gw = await startTestGateway({ jobs: false, env, config: config(true) });
    const created = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "before-disable", amount: "3", notifyUrl: "https://shop.example/cb" });
    const { uid, apiKey } = gw.merchant;
    await gw.stop();

    gw = await startTestGateway({ jobs: false, env, config: config(false) });
    const client = new StablegateClient({ baseUrl: gw.url, merchantUid: uid, apiKey });
    const got = await client.getPayinOrder(created.orderNo).catch((e: ApiError) => e);
    expect(got).not.toBeInstanceOf(ApiError);
    expect(got).toMatchObject({ orderNo: created.orderNo, status: "waiting_payment", amount: "3.000000", paymentUri: created.paymentUri, cashierUrl: expect.stringContaining("/checkout/") });
  });
});
