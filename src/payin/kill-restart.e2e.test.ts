// A gateway killed with SIGKILL under write load restarts at once, again and again, and every
// create it answered is still there (issue 37 "Start-up waits": the first opener after a kill
// recovers the WAL under a lock, and another connection may be doing the same).
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { runCli, startGatewayProcess, tempSetups, type GatewayProcess } from "../testing/process";
import { StablegateClient } from "../sdk/client";

const setup = tempSetups();

const RESTARTS = 20;
const WRITERS = 4;

test(`a gateway killed with SIGKILL under write load restarts at once, ${RESTARTS} times in a row, losing no answered create`, async () => {
  const s = await setup(`[log]\nlevel = "warn"`);
  const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "shop", "--json", "--config", s.configPath], s.env).stdout);
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  const answered: string[] = [];
  let seq = 0;
  let stop = false;
  // Writers: creates back to back; refused connections while the gateway is down are expected,
  // and retried every 50 ms (not 5: four writers spinning on refused connections through each start).
  const writer = async () => {
    while (!stop) {
      const n = ++seq;
      const no = `K-${n}`;
      try {
        await client.request("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: no, amount: `1.${String(n).padStart(5, "0")}`, notifyUrl: "https://shop.example/cb" } });
        answered.push(no);
      } catch {
        await Bun.sleep(50);
      }
    }
  };
  // A reader in this process opening the file while the gateway dies and starts (as an operator's
  // sqlite3 or a CLI command would): it may be the one recovering the WAL when the gateway opens it.
  const reader = async () => {
    while (!stop) {
      try {
        // Read-write, as sqlite3 opens it: the first opener after the kill recovers the WAL, and
        // the last one to close checkpoints it, each under a lock the gateway may meet.
        const db = new Database(s.dbPath);
        db.run("PRAGMA busy_timeout = 5000");
        db.query("SELECT count(*) FROM payin_orders").get();
        db.close();
      } catch {}
      // Every 50 ms, still several opens in each start's window: an open reads the schema (about
      // 2 CPU-ms), and every 10 ms it was most of the file's CPU under load.
      await Bun.sleep(50);
    }
  };
  let gw: GatewayProcess = await startGatewayProcess(s);
  const load = [...Array.from({ length: WRITERS }, writer), reader()];
  const started = Date.now();
  try {
    for (let i = 0; i < RESTARTS; i++) {
      const before = answered.length;
      const waitUntil = Date.now() + 20_000;
      while (answered.length < before + 5) {
        if (Date.now() > waitUntil) throw new Error(`no creates answered after restart ${i}`);
        await Bun.sleep(10);
      }
      await gw.kill("SIGKILL");
      gw = await startGatewayProcess(s, { timeoutMs: 20_000 });
    }
  } finally {
    stop = true;
    await Promise.all(load);
    await gw.kill("SIGTERM");
  }
  console.log(`${RESTARTS} kill -9 restarts under load: ${Date.now() - started} ms, ${answered.length} creates answered`);
  const db = new Database(s.dbPath, { readonly: true });
  const stored = new Set(db.query<{ n: string }, []>("SELECT merchant_order_no AS n FROM payin_orders").all().map((r) => r.n));
  db.close();
  expect(answered.filter((n) => !stored.has(n))).toEqual([]);
}, 240_000);
