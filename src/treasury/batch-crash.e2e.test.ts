// A 200-row batch payout, confirmed in the back office of a gateway child
// process that is killed (SIGKILL) in the middle of creating the batch's
// orders. After a restart every row ends exactly once on chain: 200 orders,
// 200 transfers, one per order.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { randomAddress } from "../wallet/hd";
import { StablegateClient } from "../sdk/client";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn } from "../testing/backoffice-client";
import { runCli, startGatewayProcess, tempSetup, type GatewayProcess, type TempSetup } from "../testing/process";

type Obj = Record<string, any>;
const ROWS = 200;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const TOML = `[log]
level = "warn"
[chains.TRON]
confirmations = 2
block_time = "0s"
[chains.BSC]
enabled = false
[chains.SOL]
enabled = false
`;

async function start(s: TempSetup, crashAt?: string): Promise<GatewayProcess> {
  const g = await startGatewayProcess(s, { extraEnv: crashAt ? { STABLEGATE_CRASH_AT: crashAt } : {} });
  cleanups.push(() => (g.proc.exitCode === null && g.proc.signalCode === null ? g.kill("SIGKILL") : undefined));
  return g;
}

function query<T>(s: TempSetup, sql: string, ...args: Array<string | number>): T[] {
  const db = new Database(s.dbPath, { readonly: true });
  try {
    return db.query(sql).all(...args) as T[];
  } finally {
    db.close();
  }
}

test("SIGKILL in the middle of a 200-row batch: after a restart every row is paid exactly once", async () => {
  const s = await tempSetup(TOML);
  cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));
  const made = runCli(["merchant", "create", "--name", "batch-crash", "--json", "--config", s.configPath], s.env);
  expect(made.code).toBe(0);
  const { merchantUid, apiKey } = JSON.parse(made.stdout) as { merchantUid: string; apiKey: string };
  const user = runCli(["user", "create", "--username", "payer", "--role", "merchant", "--merchant", merchantUid, "--json", "--config", s.configPath], s.env);
  expect(user.code).toBe(0);
  const who = JSON.parse(user.stdout) as { username: string; password: string };
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  const sb = sandboxClient(s.url);

  // The crash comes right after row 100's order is committed, before it is sent.
  let g = await start(s, "batch:row-100");
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
  expect(preview).toContain('data-testid="valid-count">200<');
  const confirmed = await bo.post(batchUrl + "/confirm", { _reauth: who.password });
  expect(confirmed.status).toBe(303);

  // The batch job picks it up within a second and dies at row 100.
  const died = await Promise.race([g.proc.exited.then(() => true), Bun.sleep(20_000).then(() => false)]);
  expect(died).toBe(true);
  expect(g.proc.signalCode).toBe("SIGKILL");
  const left = query<{ n: number }>(s, "SELECT count(*) AS n FROM payout_orders")[0]!.n;
  expect(left).toBe(100);

  g = await start(s);
  let done = 0;
  for (let i = 0; i < 400 && done < ROWS; i++) {
    await sb.mine("TRON", 1);
    await Bun.sleep(50);
    done = query<{ n: number }>(s, "SELECT count(*) AS n FROM payout_orders WHERE status = 'confirmed'")[0]!.n;
  }
  expect(done).toBe(ROWS);
  const page = await (await bo.get(batchUrl)).text();
  expect(page).toContain(`Finished: ${ROWS} confirmed, 0 failed`);
  expect(await g.kill("SIGTERM")).toBe(0);

  // Exactly once on chain: one transfer per order, each order's own transaction, no other transfer from the source.
  const sent = query<{ txHash: string }>(s, "SELECT tx_hash AS txHash FROM sandbox_transfers WHERE from_address = ? AND block_number IS NOT NULL", src.address);
  const orders = query<{ txHash: string; merchantOrderNo: string }>(s, "SELECT tx_hash AS txHash, merchant_order_no AS merchantOrderNo FROM payout_orders");
  expect(sent).toHaveLength(ROWS);
  expect(orders).toHaveLength(ROWS);
  expect(new Set(sent.map((t) => t.txHash))).toEqual(new Set(orders.map((o) => o.txHash)));
  expect(new Set(orders.map((o) => o.merchantOrderNo)).size).toBe(ROWS);
  const rows = query<{ state: string; n: number }>(s, "SELECT state, count(*) AS n FROM payout_batch_rows GROUP BY state");
  expect(rows).toEqual([{ state: "created", n: ROWS }]);
}, 120_000);
