// One-time form tokens (issue 36) over plain HTTP: every back-office form carries `_once`, its
// action's idempotency key. The order page's Refund form posted twice 150 ms apart, or twice at
// once, makes one refund and both answers are the first one's; a form rendered again makes a new
// refund; another user, a malformed or day-old token run nothing. Another kind of form (a new
// back-office user) is once too, and so is the payer's refund page. A POST without a token (a
// scripted client) runs as before.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn, hiddenFieldsOf, type BackofficeClient } from "../testing/backoffice-client";
import { randomAddress } from "../wallet/hd";
import { refunds } from "../db/schema";
import { addUser } from "../testing/backoffice-browser";
import { listUsers } from "./store";
import { newOnceToken, ONCE_TTL_MS } from "../once/once";

type Obj = Record<string, any>;
let gw: TestGateway;
let op: { bo: BackofficeClient; password: string };
let op2: { bo: BackofficeClient; password: string };

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  const sign = async (u: { username: string; password: string }) => ({ bo: await backofficeSignIn(gw.url, u), password: u.password });
  op = await sign(await addUser(gw, "once-op", "operator"));
  op2 = await sign(await addUser(gw, "once-op2", "operator"));
});
afterAll(() => gw.stop());

let n = 0;
/** A completed TRON order of 10 USDT. */
async function paidOrder(): Promise<Obj> {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `once-${++n}`, amount: "10", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "10" });
  await sb.mine("TRON", 3);
  const done = await gw.client.getPayinOrder(o.orderNo);
  expect(done.status).toBe("completed");
  return done;
}
const refundRows = (orderNo: string) => gw.ctx.db.select().from(refunds).where(eq(refunds.orderNo, orderNo)).all();

/** The order page's Refund form as rendered, filled: its hidden fields, the amount, the address, the password. */
async function refundForm(who: { bo: BackofficeClient; password: string }, orderNo: string, fields: Record<string, string>): Promise<Record<string, string>> {
  const html = await (await who.bo.get(`/backoffice/orders/${orderNo}`)).text();
  const hidden = hiddenFieldsOf(html, `/backoffice/orders/${orderNo}/refund`);
  expect(hidden._once).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
  return { ...hidden, mode: "address", ...fields, _reauth: who.password };
}
const answer = async (r: Response) => ({ status: r.status, location: r.headers.get("location"), body: await r.text() });

describe("the order page's Refund form", () => {
  test("posted twice 150 ms apart: one refund; the second POST gets the first one's answer", async () => {
    const o = await paidOrder();
    const form = await refundForm(op, o.orderNo, { amount: "1.5", toAddress: randomAddress("TRON") });
    const first = op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, form);
    await Bun.sleep(150);
    const second = await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, form);
    const both = [await first, second];
    // One of them ran the action (the first to reach the server), the other got its answer.
    expect(both.map((r) => r.headers.get("x-once") ?? "ran").sort()).toEqual(["ran", "replay"]);
    const [a, b] = await Promise.all(both.map(answer));
    expect(a).toMatchObject({ status: 303, location: `/backoffice/orders/${o.orderNo}?done=refunded` });
    expect(b).toEqual(a!);
    const rows = refundRows(o.orderNo);
    expect(rows.map((r) => r.amount)).toEqual(["1500000"]);
    expect(rows[0]!.refundNo).toBe(`bo-${form._once!.replace(".", "-")}`);
  });

  test("posted twice at once: one refund, the same answer twice", async () => {
    const o = await paidOrder();
    const form = await refundForm(op, o.orderNo, { amount: "2", toAddress: randomAddress("TRON") });
    const both = await Promise.all([0, 1].map(() => op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, form)));
    expect(both.map((r) => r.status)).toEqual([303, 303]);
    expect(both.filter((r) => r.headers.get("x-once") === "replay").length).toBe(1);
    expect(refundRows(o.orderNo).length).toBe(1);
  });

  test("a refusal is kept too (the same error again), and the form rendered again is a new action: a second refund", async () => {
    const o = await paidOrder();
    const tooMuch = await refundForm(op, o.orderNo, { amount: "11", toAddress: randomAddress("TRON") });
    const [r1, r2] = [await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, tooMuch), await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, tooMuch)];
    const b1 = await r1.text();
    expect(b1).toContain("That is more than can be refunded");
    expect(r2.headers.get("x-once")).toBe("replay");
    expect(await r2.text()).toBe(b1);
    expect(refundRows(o.orderNo).length).toBe(0);
    for (const amount of ["1", "1"]) {
      const form = await refundForm(op, o.orderNo, { amount, toAddress: randomAddress("TRON") });
      expect((await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, form)).status).toBe(303);
    }
    expect(refundRows(o.orderNo).length).toBe(2);
  });

  test("another user's token, a malformed one and a day-old one run nothing, with the reason", async () => {
    const o = await paidOrder();
    const form = await refundForm(op, o.orderNo, { amount: "1", toAddress: randomAddress("TRON") });
    expect((await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, form)).status).toBe(303);
    const theirs = await op2.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { ...form, _csrf: op2.bo.csrf, _reauth: op2.password });
    expect(theirs.status).toBe(409);
    expect(await theirs.text()).toContain("belongs to another page or another user");
    const bad = await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { ...form, _once: "not-a-token" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("This form is damaged");
    const old = await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { ...form, _once: newOnceToken(gw.ctx.clock.now() - ONCE_TTL_MS - 60_000) });
    expect(old.status).toBe(400);
    expect(await old.text()).toContain("more than a day old");
    expect(refundRows(o.orderNo).length).toBe(1);
  });
});

test("another form that changes who can act (a new back-office user) is once too: one user, the same page twice", async () => {
  const html = await (await op.bo.get("/backoffice/users")).text();
  const form = { ...hiddenFieldsOf(html, "/backoffice/users"), username: "once-new-user", role: "operator", _reauth: op.password };
  const both = await Promise.all([0, 1].map(() => op.bo.post("/backoffice/users", form)));
  const bodies = await Promise.all(both.map((r) => r.text()));
  expect(both.map((r) => r.status)).toEqual([both[0]!.status, both[0]!.status]);
  expect(both[0]!.status).toBeLessThan(400);
  expect(bodies[1]).toBe(bodies[0]!);
  expect((await listUsers(gw.ctx.db)).filter((u) => u.username === "once-new-user").length).toBe(1);
});

test("the payer's refund page: the address form sent twice at once gives the address once; both see the same answer", async () => {
  const o = await paidOrder();
  const html = await (await op.bo.get(`/backoffice/orders/${o.orderNo}`)).text();
  const form = { ...hiddenFieldsOf(html, `/backoffice/orders/${o.orderNo}/refund`), mode: "link", amount: "3", _reauth: op.password };
  expect((await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, form)).status).toBe(303);
  const [rf] = refundRows(o.orderNo);
  const url = rf!.refundUrl!;
  const page = await (await fetch(url)).text();
  const once = /name="_once" value="([^"]+)"/.exec(page)?.[1];
  expect(once).toBeDefined();
  const to = randomAddress("TRON");
  const post = () => fetch(url, { method: "POST", redirect: "manual", body: new URLSearchParams({ _once: once!, address: to, repeat: to }) });
  const both = await Promise.all([post(), post()]);
  expect(both.map((r) => r.status)).toEqual([303, 303]);
  expect(both.map((r) => r.headers.get("x-once")).sort()).toEqual(["replay", null].sort());
  const after = refundRows(o.orderNo);
  expect(after.map((r) => r.toAddress)).toEqual([to]);
  expect(after[0]!.status).not.toBe("awaiting_address");
  expect(after[0]!.payoutOrderId).not.toBeNull();
});
