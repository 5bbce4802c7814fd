// The pay-in routes against the spec's letter, through a real gateway.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { ApiError, StablegateClient } from "../sdk/client";
import { sendSigned } from "../testing/signed-request";
import { TEST_ENGINE } from "../testing/engines";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";

describe("orders of a chain the operator has since disabled", () => {
  const dir = mkdtempSync(join(tmpdir(), "stablegate-disabled-chain-"));
  const env = { STABLEGATE_MASTER_KEY: "test-master-key-disabled-chain" };
  // Both starts on one database: the SQLite file, or on PostgreSQL (SG_TEST_DB=pg) one test database.
  let pg: TestDatabase | undefined;
  const database = () => (pg ? { url: pg.url } : { path: join(dir, "gw.db") });
  const config = (tronEnabled: boolean) => ({ database: database(), chains: { TRON: { enabled: tronEnabled } } });
  let gw: TestGateway | undefined;
  afterAll(async () => {
    await gw?.stop();
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("stay readable: the query answers the order (with its payment URI), not a 500", async () => {
    if (TEST_ENGINE === "pg") pg = await createTestDatabase({ empty: true });
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

describe("query parameters the signature does not cover", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ jobs: false });
    await gw.client.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "empty-q" });
  });
  afterAll(() => gw.stop());

  // Spec 5.2: an entry with an empty value is skipped by the canonical query, so it
  // is unsigned; the server must read it as absent, not act on it.
  test("recentLimit= (empty) is absent: default 10, not 10001", async () => {
    const res = await sendSigned({
      baseUrl: gw.url,
      uid: gw.merchant.uid,
      apiKey: gw.merchant.apiKey,
      path: "/openapi/payin/exclusive-bindings/empty-q",
      query: [["chainCode", "TRON"], ["tokenSymbol", "USDT"], ["recentLimit", ""]],
    });
    expect([res.status, res.body.bindKey]).toEqual([200, "empty-q"]);
  });
});
