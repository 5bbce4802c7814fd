// Crash safety: the gateway runs as a child process that kills itself
// (SIGKILL) at one point of a payout's life, is restarted without the fault,
// and the sandbox chain must carry exactly one transfer for the order.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { randomAddress } from "../wallet/hd";
import { StablegateClient } from "../sdk/client";
import { sandboxClient } from "../testing/sandbox";
import { runCli, startGatewayProcess, tempSetup, type GatewayProcess, type TempSetup } from "../testing/process";

type Obj = Record<string, any>;
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

async function exitedWithin(g: GatewayProcess, ms: number): Promise<boolean> {
  return Promise.race([g.proc.exited.then(() => true), Bun.sleep(ms).then(() => false)]);
}

const LEFT: Record<string, { status: string; signed: boolean; sent: number }> = {
  "payout:before-sign": { status: "submitted", signed: false, sent: 0 },
  "payout:after-sign-commit": { status: "submitted", signed: true, sent: 0 },
  "payout:after-broadcast": { status: "submitted", signed: true, sent: 1 },
  "payout:after-confirm-seen": { status: "broadcasted", signed: true, sent: 1 },
};

function peek(s: TempSetup, from: string) {
  const db = new Database(s.dbPath, { readonly: true });
  try {
    const o = db.query("SELECT status, signed_tx AS signedTx FROM payout_orders").get() as { status: string; signedTx: string | null };
    const sent = (db.query("SELECT count(*) AS n FROM sandbox_transfers WHERE from_address = ? AND block_number IS NOT NULL").get(from) as { n: number }).n;
    return { status: o.status, signed: o.signedTx !== null, sent };
  } finally {
    db.close();
  }
}

describe("a payout survives a crash at every step and is sent exactly once", () => {
  test.each(["payout:before-sign", "payout:after-sign-commit", "payout:after-broadcast", "payout:after-confirm-seen"])("killed at %s", async (point) => {
    const s = await tempSetup(TOML);
    cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));
    const made = runCli(["merchant", "create", "--name", "crash", "--json", "--config", s.configPath], s.env);
    expect(made.code).toBe(0);
    const { merchantUid, apiKey } = JSON.parse(made.stdout) as { merchantUid: string; apiKey: string };
    const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
    const sb = sandboxClient(s.url);

    let g = await start(s, point);
    const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "treasury" } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "50" });
    await sb.mine("TRON", 1);
    const body = { chainCode: "TRON", tokenSymbol: "USDT", fromAddress: b.address, toAddress: randomAddress("TRON"), amount: "20", merchantOrderNo: "CRASH-1", notifyUrl: "https://shop.example/po" };

    const first = await client.request<Obj>("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e);
    if (point === "payout:after-confirm-seen") {
      expect(first).toMatchObject({ status: "broadcasted" });
      await sb.mine("TRON", 1).catch(() => {});
    } else {
      expect(first).toBeInstanceOf(Error);
    }
    expect(await exitedWithin(g, 10_000)).toBe(true);
    expect(g.proc.signalCode).toBe("SIGKILL");
    // What the crash left behind: the signed transaction is committed before anything reaches the chain.
    const left = peek(s, b.address);
    expect(left).toEqual(LEFT[point]);

    g = await start(s);
    // The merchant retries the create it never got an answer to: the same order comes back.
    let o = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
    for (let i = 0; i < 200 && o.status !== "confirmed" && o.status !== "failed"; i++) {
      if (o.status === "broadcasted") await sb.mine("TRON", 1);
      else await Bun.sleep(50);
      o = await client.request<Obj>("GET", `/openapi/payout/orders/${o.orderNo}`);
    }
    expect(o).toMatchObject({ status: "confirmed", merchantOrderNo: "CRASH-1", fromAddress: b.address });
    expect(await g.kill("SIGTERM")).toBe(0);

    const db = new Database(s.dbPath, { readonly: true });
    try {
      const sent = db.query("SELECT tx_hash AS txHash, amount FROM sandbox_transfers WHERE from_address = ? AND block_number IS NOT NULL").all(b.address);
      expect(sent).toEqual([{ txHash: o.txHash, amount: "20000000" }]);
      const orders = db.query("SELECT count(*) AS n FROM payout_orders").get() as { n: number };
      expect(orders.n).toBe(1);
    } finally {
      db.close();
    }
  });
});
