// A PostgreSQL gateway's start (app/server.ts startGateway; issue 38), as a follower of a fresh
// database whose leader is another gateway (here an elector that runs no work):
// - the watchers' cursors are set when a gateway starts, on PostgreSQL too (before, only the
//   leader's work set them: a follower's /sandbox tick then set the cursor at the new head, past the
//   transfer's block). A follower's /sandbox request no longer scans at all (DESIGN 22: the watchers
//   run on the leader; app/server.ts afterChainChange waits for the leader's cursor);
// - the callback wake-up relay follows this gateway's own worker: no NOTIFY while it has room,
//   one once it is stopped (callbacks/cluster-wake.ts; delivery by another gateway on that
//   NOTIFY: src/callbacks/gateways.e2e.test.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { LeaderElector } from "../cluster/leader";
import { chainCursor } from "../watcher/store";

let pgdb: TestDatabase;
let leader: LeaderElector;
let gw: TestGateway;

beforeAll(async () => {
  pgdb = await createTestDatabase();
  leader = new LeaderElector({ url: pgdb.url, takeoverAfterMs: 60_000, owner: "another-gateway" });
  await leader.start();
  gw = await startTestGateway({ engine: "pg", config: { database: { url: pgdb.url } } });
});
afterAll(async () => {
  await gw.stop();
  await leader.stop();
  await pgdb.drop();
});

test("a follower sets the watchers' cursors at its start (before any leader ran); its /sandbox transfer leaves the scan to the leader", async () => {
  expect(leader.isLeader()).toBe(true);
  expect(gw.gateway.runtime.cluster.isLeader()).toBe(false);
  const cursor = await chainCursor(gw.ctx.db, "TRON");
  expect(cursor).toBeDefined();
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "first-1", amount: "5.5", notifyUrl: "http://127.0.0.1:9/cb" });
  // The leader here is an elector that runs no work: the follower waits for its watcher (at most
  // 5 s), then answers; it neither scans (two gateways recording one transfer raced on its row)
  // nor moves the cursor. A working leader's watcher, started at that cursor, sees the transfer.
  const t0 = performance.now();
  await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "5.5" });
  expect(performance.now() - t0).toBeLessThan(15_000);
  expect(await chainCursor(gw.ctx.db, "TRON")).toEqual(cursor);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("waiting_payment");
}, 30_000);

test("the callback wake-up for the other gateways is sent only when this gateway's worker cannot take the callback", async () => {
  const { runtime } = gw.gateway;
  const relay = runtime.clusterParts!.callbackWake;
  const create = (merchantOrderNo: string) =>
    gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount: "1.5", notifyUrl: "http://127.0.0.1:9/cb" });
  const before = relay.sent;
  await create("wake-1");
  expect(runtime.callbackWorker?.hasRoom).toBe(true);
  expect(relay.sent).toBe(before);
  await runtime.callbackWorker!.stop();
  await create("wake-2");
  expect(relay.sent).toBe(before + 1);
});
