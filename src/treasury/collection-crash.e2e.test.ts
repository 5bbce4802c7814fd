// A collection confirmed in the back office of a gateway child process that is
// killed (SIGKILL) between legs; after a restart every leg is sent exactly once.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { randomAddress } from "../wallet/hd";
import { StablegateClient } from "../sdk/client";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn } from "../testing/backoffice-client";
import { runCli, startGatewayProcess, tempSetup, type GatewayProcess, type TempSetup } from "../testing/process";

type Obj = Record<string, any>;
const LEGS = 6;
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

test("SIGKILL between collection legs: after a restart every leg is sent exactly once", async () => {
  const s = await tempSetup(TOML);
  cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));
  const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "sweep", "--json", "--config", s.configPath], s.env).stdout);
  const who = JSON.parse(runCli(["user", "create", "--username", "sweeper", "--role", "merchant", "--merchant", merchantUid, "--json", "--config", s.configPath], s.env).stdout);
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  const sb = sandboxClient(s.url);

  let g = await start(s, "collection:leg-3");
  const sources: string[] = [];
  for (let i = 0; i < LEGS; i++) {
    const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `u${i}` } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: String(10 + i) });
    sources.push(b.address);
  }
  await sb.mine("TRON", 2);

  const cold = randomAddress("TRON");
  const bo = await backofficeSignIn(s.url, who);
  expect((await bo.post("/backoffice/collection/settings", { pair: "TRON:USDT", destination: cold, minimum: "5", schedule: "" })).status).toBe(303);
  const preview = await bo.post("/backoffice/collection/preview", { pair: "TRON:USDT" });
  expect(preview.status).toBe(303);
  const runUrl = preview.headers.get("location")!;
  expect(await (await bo.get(runUrl)).text()).toContain(`data-testid="leg-count">${LEGS}<`);
  expect((await bo.post(`${runUrl}/confirm`, { _reauth: who.password })).status).toBe(303);

  expect(await Promise.race([g.proc.exited.then(() => true), Bun.sleep(20_000).then(() => false)])).toBe(true);
  expect(g.proc.signalCode).toBe("SIGKILL");
  expect(query<{ n: number }>(s, "SELECT count(*) AS n FROM payout_orders")[0]!.n).toBe(3);

  g = await start(s);
  let done = 0;
  for (let i = 0; i < 200 && done < LEGS; i++) {
    await sb.mine("TRON", 1);
    await Bun.sleep(50);
    done = query<{ n: number }>(s, "SELECT count(*) AS n FROM payout_orders WHERE status = 'confirmed'")[0]!.n;
  }
  expect(done).toBe(LEGS);
  expect(await (await bo.get(runUrl)).text()).toContain(`Finished: ${LEGS} confirmed, 0 failed, 0 refused.`);
  expect(await g.kill("SIGTERM")).toBe(0);

  const sent = query<{ from: string; amount: string }>(s, "SELECT from_address AS \"from\", amount FROM sandbox_transfers WHERE to_address = ? AND block_number IS NOT NULL ORDER BY id", cold);
  expect(sent.map((t) => t.from).sort()).toEqual([...sources].sort());
  expect(sent.reduce((t, x) => t + BigInt(x.amount), 0n)).toBe(BigInt(sources.reduce((t, _a, i) => t + (10 + i), 0)) * 1_000_000n);
}, 120_000);
