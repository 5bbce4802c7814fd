// Batch payout pages over plain HTTP: confirmation needs the right password and
// the CSRF token, another merchant's batch is a 404, a bad file is refused whole.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn } from "../testing/backoffice-client";
import { randomAddress } from "../wallet/hd";
import { CLI_ACTOR, listAudit } from "../audit/log";
import { createUser } from "./users";
import { tableRow } from "../testing/engine-rows";
import { payoutBatches } from "../db/schema";

type Obj = Record<string, any>;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
});
afterAll(() => gw.stop());

let n = 0;
const user = async (merchantUid: string) => {
  const username = `h${++n}`;
  return { username, password: (await createUser({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() }, { username, role: "merchant", merchantUid }, CLI_ACTOR)).password };
};
const status = async (id: string) => (await tableRow(gw.ctx.db, payoutBatches, { id }))!.status;

test("confirm needs the password and the CSRF token; other merchants get 404; a bad file is refused whole", async () => {
  const m = await gw.newMerchant("h");
  const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "h" } });
  await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "100" });
  await sandboxClient(gw.url).mine("TRON", 2);
  const who = await user(m.uid);
  const bo = await backofficeSignIn(gw.url, who);

  const bad = await bo.post("/backoffice/batches", { file: new Blob(["chainCode,tokenSymbol,toAddress,amount\nTRON,USDT,x,1\n"]) });
  expect(bad.status).toBe(200);
  expect(await bad.text()).toContain("The file was not accepted: missing column(s): merchantOrderNo.");
  // The refusal is worded by its code in the page's language, not by its English.
  const badZh = await bo.post("/backoffice/batches", { file: new Blob(["chainCode,tokenSymbol,toAddress,amount\nTRON,USDT,x,1\n"]) }, { "accept-language": "zh-CN" });
  expect(await badZh.text()).toContain("文件未被接受：缺少列：merchantOrderNo。");

  const up = await bo.post("/backoffice/batches", { file: new Blob([`chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\nTRON,USDT,${randomAddress("TRON")},5,H-1\n`]) });
  expect(up.status).toBe(303);
  const url = up.headers.get("location")!;
  const id = url.split("/").pop()!;

  const wrong = await bo.post(`${url}/confirm`, { _reauth: "not-the-password" });
  expect(await wrong.text()).toContain("That was not right");
  expect(await status(id)).toBe("preview");

  const noCsrf = await fetch(gw.url + `${url}/confirm`, { method: "POST", body: new URLSearchParams({ _reauth: who.password }), headers: { cookie: bo.cookie }, redirect: "manual" });
  expect(noCsrf.status).toBe(403);
  expect(await noCsrf.text()).toContain("did not come from this site");
  expect(await status(id)).toBe("preview");

  // Another merchant's user: the batch, its results and its confirmation do not exist.
  const other = await gw.newMerchant("other");
  const who2 = await user(other.uid);
  const bo2 = await backofficeSignIn(gw.url, who2);
  expect((await bo2.get(url)).status).toBe(404);
  expect((await bo2.get(`${url}/results.csv`)).status).toBe(404);
  expect((await bo2.post(`${url}/confirm`, { _reauth: who2.password })).status).toBe(404);
  expect(await status(id)).toBe("preview");

  const ok = await bo.post(`${url}/confirm`, { _reauth: who.password });
  expect(ok.status).toBe(303);
  expect(await status(id)).toBe("running");

  // A preview can be discarded instead (audited); it can then no longer be confirmed.
  const up2 = await bo.post("/backoffice/batches", { file: new Blob([`chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\nTRON,USDT,${randomAddress("TRON")},5,H-2\n`]) });
  const url2 = up2.headers.get("location")!;
  expect((await bo.post(`${url2}/discard`, {})).status).toBe(303);
  const id2 = url2.split("/").pop()!;
  expect(await status(id2)).toBe("discarded");
  await bo.post(`${url2}/confirm`, { _reauth: who.password });
  expect(await status(id2)).toBe("discarded");
  expect((await listAudit(gw.ctx.db, { actor: who.username })).entries.map((e) => e.action)).toEqual(expect.arrayContaining(["batch_payout.confirm", "batch_payout.discard"]));
});
