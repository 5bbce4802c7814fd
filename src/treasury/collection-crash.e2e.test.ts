// A collection confirmed in the back office of a gateway child process that is
// killed (SIGKILL) between legs; after a restart every leg is sent exactly once.
import { afterAll, expect, test } from "bun:test";
import { randomAddress } from "../wallet/hd";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn } from "../testing/backoffice-client";
import { crashGateway, disposeCrashGateways, minedTransfers, rowsOf, SANDBOX_TRON_ONLY } from "../testing/crash";
import { payoutOrders } from "../db/schema";
import { exitsWithin } from "../testing/wait";

type Obj = Record<string, any>;
const LEGS = 6;
afterAll(disposeCrashGateways);

test("SIGKILL between collection legs: after a restart every leg is sent exactly once", async () => {
  const c = await crashGateway({ toml: SANDBOX_TRON_ONLY, merchantName: "sweep" });
  const { s, client } = c;
  const who = JSON.parse((await c.cli("user", "create", "--username", "sweeper", "--role", "merchant", "--merchant", c.merchantUid, "--json")).stdout);
  const sb = sandboxClient(s.url);

  let g = await c.start("collection:leg-3");
  const sources: string[] = [];
  for (let i = 0; i < LEGS; i++) {
    const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `u${i}` } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: String(10 + i) });
    sources.push(b.address);
  }
  await sb.mine("TRON", 2);

  const cold = randomAddress("TRON");
  const bo = await backofficeSignIn(s.url, who);
  expect((await bo.post("/backoffice/collection/settings", { pair: "TRON:USDT", destination: cold, minimum: "5", schedule: "", _reauth: who.password })).status).toBe(303);
  const preview = await bo.post("/backoffice/collection/preview", { pair: "TRON:USDT" });
  expect(preview.status).toBe(303);
  const runUrl = preview.headers.get("location")!;
  expect(await (await bo.get(runUrl)).text()).toContain(`data-testid="leg-count">${LEGS}<`);
  expect((await bo.post(`${runUrl}/confirm`, { _reauth: who.password })).status).toBe(303);

  expect(await exitsWithin(g.proc, 20_000)).toBe(true);
  expect(g.proc.signalCode).toBe("SIGKILL");
  expect(await rowsOf(c, payoutOrders)).toHaveLength(3);

  g = await c.start();
  let done = 0;
  for (let i = 0; i < 200 && done < LEGS; i++) {
    await sb.mine("TRON", 1);
    await Bun.sleep(50);
    done = (await rowsOf(c, payoutOrders, { status: "confirmed" })).length;
  }
  expect(done).toBe(LEGS);
  expect(await (await bo.get(runUrl)).text()).toContain(`Finished: ${LEGS} confirmed, 0 failed, 0 refused.`);
  expect(await g.kill("SIGTERM")).toBe(0);

  const sent = await minedTransfers(c, { toAddress: cold });
  expect(sent.map((t) => t.fromAddress).sort()).toEqual([...sources].sort());
  expect(sent.reduce((t, x) => t + BigInt(x.amount), 0n)).toBe(BigInt(sources.reduce((t, _a, i) => t + (10 + i), 0)) * 1_000_000n);
}, 120_000);
