// Restarting the server (even SIGKILL) in the middle of a payment loses nothing.
import { expect, test } from "bun:test";
import { runCli, startGatewayProcess, tempSetups } from "../testing/process";
import { TEST_ENGINE } from "../testing/engines";
import { closeDb, openDb } from "../db/client";
import { openPgDb } from "../db/tx-pg";
import { tableRows } from "../testing/engine-rows";
import { transfers } from "../db/schema";
import { sandboxClient } from "../testing/sandbox";
import { StablegateClient } from "../sdk/client";

const setup = tempSetups();

test("a payment seen before a kill -9 completes after the restart; one sent while down is found", async () => {
  const s = await setup(`[chains.TRON]\nblock_time = "0s"\nconfirmations = 4`, { engine: TEST_ENGINE });
  // The gateway's database, opened from this process (SQLite's file, or a pool on PostgreSQL).
  const open = () => (s.dbUrl ? openPgDb(s.dbUrl, 2) : openDb(s.dbPath));
  const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "shop", "--json", "--config", s.configPath], s.env).stdout);
  let gw = await startGatewayProcess(s);
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  const sb = sandboxClient(s.url);
  const body = (n: string, amount: string) => ({ body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: n, amount, notifyUrl: "https://shop.example/cb" } });
  const a = await client.request<Record<string, string>>("POST", "/openapi/payin/orders", body("R-1", "10"));
  const b = await client.request<Record<string, string>>("POST", "/openapi/payin/orders", body("R-2", "20"));
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: a.address, amount: "10" });
  await sb.mine("TRON", 1);
  expect((await client.request<Record<string, string>>("GET", `/openapi/payin/orders/${a.orderNo}`)).status).toBe("confirming");
  await gw.kill("SIGKILL");

  // While the gateway is down the chain moves on: write a block straight into the sandbox chain's state.
  const { SandboxChain } = await import("../chains/sandbox/chain");
  const db = open();
  const chain = new SandboxChain({ chain: "TRON", db, tokens: [{ chain: "TRON", symbol: "USDT", contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6 }], confirmations: 4, now: Date.now });
  await chain.transfer({ token: "USDT", to: b.address, amount: 20_000_000n });
  await chain.mine(5);
  await closeDb(db);

  gw = await startGatewayProcess(s);
  try {
    for (let i = 0; i < 40; i++) {
      const [qa, qb] = await Promise.all([a, b].map((o) => client.request<Record<string, string>>("GET", `/openapi/payin/orders/${o.orderNo}`)));
      if (qa.status === "completed" && qb.status === "completed") break;
      await Bun.sleep(100);
    }
    expect((await client.request<Record<string, string>>("GET", `/openapi/payin/orders/${a.orderNo}`)).status).toBe("completed");
    expect((await client.request<Record<string, string>>("GET", `/openapi/payin/orders/${b.orderNo}`)).status).toBe("completed");
    const check = open();
    const n = (await tableRows(check, transfers)).length;
    await closeDb(check);
    expect(n).toBe(2);
  } finally {
    await gw.kill("SIGTERM");
  }
});
