// Restarting the server (even SIGKILL) in the middle of a payment loses nothing.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli, startGatewayProcess, tempSetup } from "../testing/process";
import { sandboxClient } from "../testing/sandbox";
import { StablegateClient } from "../sdk/client";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("a payment seen before a kill -9 completes after the restart; one sent while down is found", async () => {
  const s = await tempSetup(`[chains.TRON]\nblock_time = "0s"\nconfirmations = 4`);
  dirs.push(s.dir);
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
  const { openDb } = await import("../db/client");
  const { SandboxChain } = await import("../chains/sandbox/chain");
  const db = openDb(s.dbPath);
  const chain = new SandboxChain({ chain: "TRON", db, tokens: [{ chain: "TRON", symbol: "USDT", contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6 }], confirmations: 4, now: Date.now });
  await chain.transfer({ token: "USDT", to: b.address, amount: 20_000_000n });
  await chain.mine(5);
  db.$client.close();

  gw = await startGatewayProcess(s);
  try {
    for (let i = 0; i < 40; i++) {
      const [qa, qb] = await Promise.all([a, b].map((o) => client.request<Record<string, string>>("GET", `/openapi/payin/orders/${o.orderNo}`)));
      if (qa.status === "completed" && qb.status === "completed") break;
      await Bun.sleep(100);
    }
    expect((await client.request<Record<string, string>>("GET", `/openapi/payin/orders/${a.orderNo}`)).status).toBe("completed");
    expect((await client.request<Record<string, string>>("GET", `/openapi/payin/orders/${b.orderNo}`)).status).toBe("completed");
    const check = openDb(s.dbPath);
    const n = check.$client.query("SELECT count(*) AS n FROM transfers").get() as { n: number };
    check.$client.close();
    expect(n.n).toBe(2);
  } finally {
    await gw.kill("SIGTERM");
  }
});
