// The Exceptions page's unrecorded outgoing transfers (restore reconcile, DESIGN 16) over plain
// HTTP: a payout from a held source stays submitted with the hold as its lastError; the page
// lists the source; "Acknowledge" needs re-authentication, writes an audit entry under the
// user's name, and the held payout then goes out.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn } from "../testing/backoffice-client";
import { randomAddress } from "../wallet/hd";
import { CLI_ACTOR, listAudit } from "../audit/log";
import { createUser } from "./users";
import { payoutOrders, reconcileAddresses, reconcileChains, unrecordedOutgoing } from "../db/schema";
import { insertRows, tableRow, tableRows } from "../testing/engine-rows";
import { testSql } from "../testing/engine-rows";
import { sql } from "drizzle-orm";

type Obj = Record<string, any>;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
});
afterAll(() => gw.stop());

test("a held source is listed; Acknowledge needs re-authentication, is audited, and releases its payout", async () => {
  const m = await gw.newMerchant("held");
  const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "held" } });
  await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "100" });
  await sandboxClient(gw.url).mine("TRON", 2);

  // As a restore leaves it: TRON in reconcile, and this source found to have sent something unrecorded.
  const db = gw.ctx.db;
  const now = Date.now();
  await insertRows(db, reconcileChains, [{ chain: "TRON", sinceBlock: 1, gapFrom: 0, gapTo: 0, generation: "g1", startedAt: now }]);
  await insertRows(db, reconcileAddresses, [{ chain: "TRON", address: b.address, generation: "g1", state: "held", checkedAt: now }]);
  const to = randomAddress("TRON");
  await insertRows(db, unrecordedOutgoing, [{ chain: "TRON", address: b.address, txHash: "ab".repeat(32), blockNumber: 3, toAddress: to, asset: "USDT", amount: "20000000", generation: "g1", foundAt: now }]);

  const po = await m.client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: "HELD-1", notifyUrl: "https://shop.example/po" },
  });
  const row = async () => (await tableRow(db, payoutOrders, { orderNo: po.orderNo }))!;
  expect(await row()).toMatchObject({ status: "submitted", txHash: null });
  expect((await row()).lastError).toStartWith(`held after restore: 1 unrecorded outgoing transfer from ${b.address} on TRON`);
  await gw.gateway.runtime.payouts.tick("TRON");
  expect(await row()).toMatchObject({ status: "submitted", txHash: null });

  const username = "ack-operator";
  const { password } = await createUser({ db, cipher: gw.ctx.cipher, now: () => Date.now() }, { username, role: "operator" }, CLI_ACTOR);
  const bo = await backofficeSignIn(gw.url, { username, password });
  const page = await (await bo.get("/backoffice/exceptions")).text();
  expect(page).toContain("Unrecorded outgoing transfers");
  expect(page).toContain(`aria-label="Acknowledge transfers from ${b.address}"`);
  expect(page).toContain("ab".repeat(32));

  // Signed in long ago: the acknowledgement asks for the password again.
  await testSql(db, sql`UPDATE backoffice_sessions SET reauth_at = 0`);
  const wrong = await bo.post("/backoffice/exceptions/unrecorded/ack", { chain: "TRON", address: b.address, _reauth: "not-the-password" });
  expect(await wrong.text()).toContain("That was not right");
  expect((await row()).lastError).toStartWith("held after restore");

  const ok = await bo.post("/backoffice/exceptions/unrecorded/ack", { chain: "TRON", address: b.address, _reauth: password });
  expect(ok.status).toBe(303);
  expect(ok.headers.get("location")).toBe("/backoffice/exceptions?done=acknowledged");
  expect((await tableRows(db, unrecordedOutgoing)).map((r) => ({ by: r.acknowledgedBy }))).toEqual([{ by: username }]);
  const audit = (await listAudit(db, { action: "restore.ack" })).entries[0];
  expect(audit).toMatchObject({ actor: username, target: `address:TRON:${b.address}` });
  expect((await row()).lastError).toBeNull();

  await gw.gateway.runtime.payouts.tick("TRON");
  expect((await row()).status).toBe("broadcasted");
  expect(await (await bo.get("/backoffice/exceptions")).text()).not.toContain("Unrecorded outgoing transfers");
});
