// The payout routes against the spec's letter, through a real gateway.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { ApiError, StablegateClient } from "../sdk/client";

describe("a submitted payout on a chain the operator has since disabled", () => {
  const dir = mkdtempSync(join(tmpdir(), "stablegate-payout-disabled-"));
  const env = { STABLEGATE_MASTER_KEY: "test-master-key-payout-disabled" };
  const config = (tronEnabled: boolean) => ({ database: { path: join(dir, "gw.db") }, chains: { TRON: { enabled: tronEnabled, confirmations: 3 } } });
  let gw: TestGateway | undefined;
  afterAll(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("submit answers a failure body (31001), not a 500; the order stays submitted and readable", async () => {
    gw = await startTestGateway({ jobs: false, env, config: config(true) });
    const sb = sandboxClient(gw.url);
    const b = await gw.client.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "src" });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "10" });
    await sb.mine("TRON", 3);
    await sb.faults("TRON", 1);
    const o = await gw.client.createPayoutOrder({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: randomAddress("TRON"), amount: "1", merchantOrderNo: "held", notifyUrl: "https://shop.example/po" });
    expect(o.status).toBe("submitted");
    const { uid, apiKey } = gw.merchant;
    await gw.stop();

    gw = await startTestGateway({ jobs: false, env, config: config(false) });
    const client = new StablegateClient({ baseUrl: gw.url, merchantUid: uid, apiKey });
    const e = await client.submitPayoutOrder(o.orderNo, { remark: "retry" }).catch((x: ApiError) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect([(e as ApiError).httpStatus, (e as ApiError).code]).toEqual([400, 31001]);
    expect(await client.getPayoutOrder(o.orderNo)).toMatchObject({ orderNo: o.orderNo, status: "submitted" });
  });
});
