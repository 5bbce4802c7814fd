// A 40-row batch payout, confirmed in the back office of a gateway child
// process that is killed (SIGKILL) in the middle of creating the batch's
// orders. After a restart every row ends exactly once on chain: 40 orders,
// 40 transfers, one per order. (The runner takes the rows one by one, each in a
// transaction of its own with no chunking: 40 rows prove what 200 did, at a fifth of the cost.)
import { afterAll, expect, test } from "bun:test";
import { randomAddress } from "../wallet/hd";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn } from "../testing/backoffice-client";
import { crashGateway, disposeCrashGateways, minedTransfers, rowsOf, SANDBOX_TRON_ONLY } from "../testing/crash";
import { payoutBatchRows, payoutOrders } from "../db/schema";
import { exitsWithin } from "../testing/wait";

type Obj = Record<string, any>;
const ROWS = 40;
const CRASH_AT = ROWS / 2;
afterAll(disposeCrashGateways);

test(`SIGKILL in the middle of a ${ROWS}-row batch: after a restart every row is paid exactly once`, async () => {
  const c = await crashGateway({ toml: SANDBOX_TRON_ONLY, merchantName: "batch-crash" });
  const { s, client } = c;
  const user = await c.cli("user", "create", "--username", "payer", "--role", "merchant", "--merchant", c.merchantUid, "--json");
  expect(user.code).toBe(0);
  const who = JSON.parse(user.stdout) as { username: string; password: string };
  const sb = sandboxClient(s.url);

  // The crash comes right after row CRASH_AT's order is committed, before it is sent.
  let g = await c.start(`batch:row-${CRASH_AT}`);
  const src = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "treasury" } });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: src.address, amount: "1000" });
  await sb.mine("TRON", 2);

  const csv =
    "chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\n" +
    Array.from({ length: ROWS }, (_, i) => `TRON,USDT,${randomAddress("TRON")},${(1 + i / 100).toFixed(2)},CR-${i + 1}`).join("\n") +
    "\n";
  const bo = await backofficeSignIn(s.url, who);
  const up = await bo.post("/backoffice/batches", { file: new Blob([csv], { type: "text/csv" }) });
  expect(up.status).toBe(303);
  const batchUrl = up.headers.get("location")!;
  const preview = await (await bo.get(batchUrl)).text();
  expect(preview).toContain(`data-testid="valid-count">${ROWS}<`);
  const confirmed = await bo.post(batchUrl + "/confirm", { _reauth: who.password });
  expect(confirmed.status).toBe(303);

  // The batch job picks it up within a second and dies at row CRASH_AT (a generous deadline: shared cores under load).
  expect(await exitsWithin(g.proc, 60_000)).toBe(true);
  expect(g.proc.signalCode).toBe("SIGKILL");
  expect(await rowsOf(c, payoutOrders)).toHaveLength(CRASH_AT);

  g = await c.start();
  let done = 0;
  for (let i = 0; i < 400 && done < ROWS; i++) {
    await sb.mine("TRON", 1);
    await Bun.sleep(50);
    done = (await rowsOf(c, payoutOrders, { status: "confirmed" })).length;
  }
  expect(done).toBe(ROWS);
  const page = await (await bo.get(batchUrl)).text();
  expect(page).toContain(`Finished: ${ROWS} confirmed, 0 failed`);
  expect(await g.kill("SIGTERM")).toBe(0);

  // Exactly once on chain: one transfer per order, each order's own transaction, no other transfer from the source.
  const sent = await minedTransfers(c, { fromAddress: src.address });
  const orders = await rowsOf(c, payoutOrders);
  expect(sent).toHaveLength(ROWS);
  expect(orders).toHaveLength(ROWS);
  expect(new Set<string | null>(sent.map((t) => t.txHash))).toEqual(new Set(orders.map((o) => o.txHash)));
  expect(new Set(orders.map((o) => o.merchantOrderNo)).size).toBe(ROWS);
  const rows = await rowsOf(c, payoutBatchRows);
  expect(rows).toHaveLength(ROWS);
  expect(rows.every((r) => r.state === "created")).toBe(true);
}, 120_000);
