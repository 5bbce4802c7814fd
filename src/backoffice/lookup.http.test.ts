// Look up a transaction (DESIGN 25) in the back office over plain HTTP, on a sandbox gateway
// whose watcher has not scanned yet: the payment to an order's address shows as unknown with
// "Import"; the import (re-authenticated) credits the order through the scan's funnel, once,
// with one audit entry; a transfer elsewhere is not a gateway address; a malformed hash says so.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { backofficeSignIn } from "../testing/backoffice-client";
import { CLI_ACTOR, listAudit } from "../audit/log";
import { createUser } from "./users";
import type { SandboxChain } from "../chains/sandbox/chain";
import { randomAddress } from "../wallet/hd";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 1 } } } });
});
afterAll(() => gw.stop());

test("an unknown payment to an order's address is shown and imported once, audited; the order is credited", async () => {
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "lookup-1", amount: "6", notifyUrl: "https://shop.example/cb" });
  const tron = gw.ctx.chains.get("TRON") as SandboxChain;
  const { txHash } = await tron.transfer({ token: "USDT", to: o.address, amount: 6_000_000n });
  const { txHash: elsewhere } = await tron.transfer({ token: "USDT", to: randomAddress("TRON"), amount: 1_000_000n });

  const { password } = await createUser({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() }, { username: "looker", role: "operator" }, CLI_ACTOR);
  const bo = await backofficeSignIn(gw.url, { username: "looker", password });
  const page = async (hash: string) => (await bo.get(`/backoffice/lookup?chain=TRON&hash=${hash}`)).text();

  const before = await page(txHash);
  expect(before).toContain('data-state="included"');
  expect(before).toContain('data-known="unknown"');
  expect(before).toContain("6 USDT");
  expect(before).toContain("Import");

  const imported = await bo.post("/backoffice/lookup/import", { chain: "TRON", hash: txHash, logIndex: "0", _reauth: password });
  expect(imported.status).toBe(303);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).not.toBe("waiting_payment");
  const after = await page(txHash);
  expect(after).toContain(`credited to ${o.orderNo}`);
  expect(after).not.toContain(">Import<");

  // Again (a double submit): nothing more recorded, one audit entry.
  expect((await bo.post("/backoffice/lookup/import", { chain: "TRON", hash: txHash, logIndex: "0", _reauth: password })).status).toBe(303);
  expect((await listAudit(gw.ctx.db, {})).entries.filter((e) => e.action === "transfer.import")).toHaveLength(1);

  // The watcher's scan finds the same transfer later: still one.
  await gw.gateway.runtime.watchers.get("TRON")!.tick();
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");

  const other = await page(elsewhere);
  expect(other).toContain("not a gateway address");
  expect(other).not.toContain(">Import<");
  expect(await page("zz")).toContain("not a transaction hash");
});
