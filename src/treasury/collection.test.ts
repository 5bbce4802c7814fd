// Collection rules on the sandbox: settings validation, the preview's legs, and
// the unattended schedule (injected clock: no waiting).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { TestClock } from "../lib/clock";
import { randomAddress } from "../wallet/hd";
import { refusalOf } from "../testing/refusal";
import { getRun, listRuns, previewCollection, runCollections, runLegs, runProgress, setCollectionSetting } from "./collection";

type Obj = Record<string, any>;
const USER = { actor: "demo", role: "merchant" };
const clock = new TestClock(Date.parse("2026-11-21T00:00:00.000Z"));
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

async function funded(m: Awaited<ReturnType<TestGateway["newMerchant"]>>, amounts: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const [i, amount] of amounts.entries()) {
    const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `k${i}` } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount });
    out.push(b.address);
  }
  await sb.mine("TRON", 2);
  return out;
}

describe("settings", () => {
  // Each refusal is a CollectionError by code and parameters (the collection page words it in its
  // language); its English is the log's as before.
  test.each([
    ["bad destination", { destination: "nope" }, "collection.destination_invalid", { chain: "TRON" }, /destination: not a valid TRON address/],
    ["zero minimum", { minimum: "0" }, "collection.minimum_invalid", {}, /minimum/],
    ["too many decimals", { minimum: "1.1234567" }, "collection.minimum_invalid", {}, /minimum/],
    ["bad cron", { schedule: "every day" }, "collection.schedule_invalid", {}, /schedule: not a valid cron pattern \(.+\)/],
    ["a chain not enabled", { chainCode: "TON" }, "collection.chain_unavailable", { chain: "TON", token: "USDT" }, /TON USDT/],
    ["an unknown token", { tokenSymbol: "DAI" }, "collection.token_unsupported", { chain: "TRON", token: "DAI" }, /TRON DAI: Token not supported/],
    ["a token the chain does not have", { tokenSymbol: "USDC" }, "collection.token_not_on_chain", { chain: "TRON", token: "USDC" }, /TRON USDC: Chain and token do not match/],
  ])("%s is refused", async (_n, patch, code, params, msg) => {
    const m = await gw.newMerchant("s");
    const set = async () => await setCollectionSetting(gw.ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: randomAddress("TRON"), minimum: "5", ...patch }, USER);
    expect(await refusalOf(set)).toMatchObject({ kind: "CollectionError", code, params });
    await expect(set()).rejects.toThrow(msg);
  });
  test("the merchant's own address is not a destination; an unknown merchant, a preview without a destination, an unknown run are refused by code", async () => {
    const m = await gw.newMerchant("own");
    const [a] = await funded(m, ["1"]);
    const set = (merchantId: number, destination: string) => async () => await setCollectionSetting(gw.ctx, merchantId, { chainCode: "TRON", tokenSymbol: "USDT", destination, minimum: "5" }, USER);
    const cases: Array<[() => Promise<unknown>, string, Record<string, unknown>]> = [
      [set(m.id, a!), "collection.destination_own", {}],
      [set(m.id + 1000, randomAddress("TRON")), "merchant.id_unknown", { merchantId: m.id + 1000 }],
      [async () => await previewCollection(gw.ctx, m.id, "TRON", "USDT", USER), "collection.no_destination", { chain: "TRON", token: "USDT" }],
      [async () => getRun(gw.ctx.db, m.id, "no-such-run"), "collection.run_unknown", { id: "no-such-run" }],
    ];
    for (const [call, code, params] of cases) expect(await refusalOf(call)).toMatchObject({ kind: "CollectionError", code, params });
  });
});

test("the preview takes every address at or above the minimum, whole available balance", async () => {
  const m = await gw.newMerchant("prev");
  const [a, b, c] = await funded(m, ["5", "4.999999", "12.5"]);
  await setCollectionSetting(gw.ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: randomAddress("TRON"), minimum: "5" }, USER);
  const r = await previewCollection(gw.ctx, m.id, "TRON", "USDT", USER);
  expect((await runLegs(gw.ctx.db, r.id)).map((l) => [l.leg.fromAddress, l.leg.amount])).toEqual([
    [a, "5000000"],
    [c, "12500000"],
  ]);
  expect(r).toMatchObject({ legCount: 2, total: "17500000", status: "preview" });
  expect(b).toBeString();
  // Nothing moves before confirmation.
  expect((gw.ctx.db.$client.query("SELECT count(*) AS n FROM payout_orders WHERE merchant_id = ?").get(m.id) as { n: number }).n).toBe(0);
});

test("[collection] keep_dust: each TRON leg leaves one base unit on the address (the payer's next transfer there is to an existing holder)", async () => {
  const m = await gw.newMerchant("dust");
  const [a, b] = await funded(m, ["5", "12.5"]);
  await setCollectionSetting(gw.ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: randomAddress("TRON"), minimum: "1" }, USER);
  const config = gw.ctx.config as { collection: { keep_dust: boolean } };
  config.collection.keep_dust = true;
  try {
    const r = await previewCollection(gw.ctx, m.id, "TRON", "USDT", USER);
    expect((await runLegs(gw.ctx.db, r.id)).map((l) => [l.leg.fromAddress, l.leg.amount])).toEqual([
      [a, "4999999"],
      [b, "12499999"],
    ]);
    expect(r.total).toBe("17499998");
  } finally {
    config.collection.keep_dust = false;
  }
});

test("a scheduled collection runs unattended when due, and a missed stretch runs once", async () => {
  const m = await gw.newMerchant("sched");
  const sources = await funded(m, ["20", "30"]);
  const cold = randomAddress("TRON");
  await setCollectionSetting(gw.ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: cold, minimum: "1", schedule: "0 * * * *", confirmedWithPassword: true }, USER);
  const runner = gw.gateway.runtime.treasury;

  clock.advance(59 * 60_000);
  await runCollections(gw.ctx, runner);
  expect(await listRuns(gw.ctx.db, m.id)).toEqual([]);

  clock.advance(2 * 60_000);
  await runCollections(gw.ctx, runner);
  const [run] = await listRuns(gw.ctx.db, m.id);
  expect(run).toMatchObject({ trigger: "schedule", createdBy: "schedule", legCount: 2, status: "done", total: "50000000" });
  await sb.mine("TRON", 3);
  expect(await runProgress(gw.ctx.db, run!.id)).toMatchObject({ confirmed: 2 });
  const tron = gw.ctx.chains.get("TRON")!;
  expect(await tron.tokenBalance(cold, "USDT")).toBe(50_000_000n);
  for (const s of sources) expect(await tron.tokenBalance(s, "USDT")).toBe(0n);

  // Down for three hours: one run when it comes back, not three.
  clock.advance(3 * 3600_000);
  await runCollections(gw.ctx, runner);
  await runCollections(gw.ctx, runner);
  expect((await listRuns(gw.ctx.db, m.id)).map((r) => [r.trigger, r.legCount])).toEqual([
    ["schedule", 0],
    ["schedule", 2],
  ]);
});

test("the schedule sends only to a destination confirmed with a password: one saved without it is never used", async () => {
  const m = await gw.newMerchant("sched-unconfirmed");
  await funded(m, ["40"]);
  const cold = randomAddress("TRON");
  const thief = randomAddress("TRON");
  const runner = gw.gateway.runtime.treasury;
  await setCollectionSetting(gw.ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: cold, minimum: "1", schedule: "* * * * *", confirmedWithPassword: true }, USER);
  // A save without the password (any path but the re-authenticated form) moves the destination...
  await setCollectionSetting(gw.ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: thief, minimum: "1", schedule: "* * * * *" }, USER);
  clock.advance(2 * 60_000);
  await runCollections(gw.ctx, runner);
  // ...and the schedule does not send there (nor anywhere) until it is confirmed.
  expect(await listRuns(gw.ctx.db, m.id)).toEqual([]);
  expect(await gw.ctx.chains.get("TRON")!.tokenBalance(thief, "USDT")).toBe(0n);
  await setCollectionSetting(gw.ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: cold, minimum: "1", schedule: "* * * * *", confirmedWithPassword: true }, USER);
  clock.advance(2 * 60_000);
  await runCollections(gw.ctx, runner);
  expect(await listRuns(gw.ctx.db, m.id)).toMatchObject([{ trigger: "schedule", destination: cold, legCount: 1 }]);
});
