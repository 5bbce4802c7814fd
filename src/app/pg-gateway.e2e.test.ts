// A PostgreSQL gateway's start (app/server.ts startGateway; issue 38), as a follower of a fresh
// database whose leader is another gateway (here an elector that runs no work):
// - the watchers' cursors are set when a gateway starts, on PostgreSQL too: a /sandbox transfer
//   sent to this follower right after its start is detected. Before, only the leader's work set
//   the cursors on PostgreSQL: the transfer's tick set the cursor at the new head, past the
//   transfer's block, and the payment was never seen;
// - the callback wake-up relay follows this gateway's own worker: no NOTIFY while it has room,
//   one once it is stopped (callbacks/cluster-wake.ts; delivery by another gateway on that
//   NOTIFY: src/callbacks/gateways.e2e.test.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { LeaderElector } from "../cluster/leader";

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

test("a /sandbox transfer right after a follower's first start on a fresh database is detected", async () => {
  expect(leader.isLeader()).toBe(true);
  expect(gw.gateway.runtime.cluster.isLeader()).toBe(false);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "first-1", amount: "5.5", notifyUrl: "http://127.0.0.1:9/cb" });
  await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "5.5" });
  expect((await gw.client.getPayinOrder(o.orderNo)).status).not.toBe("waiting_payment");
});

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
