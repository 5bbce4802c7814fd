// The operator CLI of DESIGN 2 against a running `serve`: each command changes
// state through the pay-in funnel (the running gateway delivers the callbacks at
// once), refuses invalid transitions with a clear message and a non-zero exit,
// and leaves an audit entry (actor `cli`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli, runCliAsync, startGatewayProcess, tempSetup, type GatewayProcess, type TempSetup } from "../testing/process";
import { StablegateClient } from "../sdk/client";
import { sandboxClient } from "../testing/sandbox";
import { startReceiver } from "../testing/receiver";
import { TEST_ENGINE } from "../testing/engines";

type Order = Record<string, any>;
const SENDER = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
let s: TempSetup;
let gw: GatewayProcess;
let client: StablegateClient;
let uid: string;
let firstKey: string;
let sb: ReturnType<typeof sandboxClient>;
const rx = startReceiver([{ status: 200 }]);

// Async: the callback receiver in this process keeps serving while a command runs (a synchronous
// spawn would block it, and the gateway would retry a callback it could not deliver).
const cli = (...args: string[]) => runCliAsync([...args, "--config", s.configPath], s.env);
const json = async (...args: string[]) => {
  const r = await cli(...args, "--json");
  if (r.code !== 0) throw new Error(`${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const audit = async (target: string) => (await json("audit", "list", "--target", target)) as Array<Record<string, any>>;

let n = 0;
const create = (amount: string) =>
  client.request<Order>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `CLI-${++n}`, amount, notifyUrl: rx.url + "/cb" } });
const get = (orderNo: string) => client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
/** [status, expectedAmount, paidAmount] of the callbacks received for the order, once `last` arrived. */
async function callbacks(orderNo: string, last: string) {
  const mine = () => rx.requests.map((r) => JSON.parse(r.text)).filter((b) => b.orderNo === orderNo);
  await rx.waitFor(() => mine().some((b) => b.status === last), 30_000);
  return mine().map((b) => [b.status, b.expectedAmount, b.paidAmount]);
}

beforeAll(async () => {
  s = await tempSetup(`[chains.TRON]\nconfirmations = 2\nblock_time = "0s"`, { engine: TEST_ENGINE });
  const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "ops shop", "--json", "--config", s.configPath], s.env).stdout);
  gw = await startGatewayProcess(s, { timeoutMs: 45_000 }); // a generous start deadline: shared cores under load
  uid = merchantUid;
  firstKey = apiKey;
  client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  sb = sandboxClient(s.url);
});
afterAll(async () => {
  await gw?.kill("SIGTERM");
  await rx.stop();
  rmSync(s.dir, { recursive: true, force: true });
  await s.drop?.();
});

describe("order freeze | release | cancel", () => {
  test("freeze, release (nothing paid: waiting again), cancel; each refused when invalid", async () => {
    const o = await create("10");
    const f = await cli("order", "freeze", o.orderNo, "--reason", "chargeback risk");
    expect(f.code).toBe(0);
    expect(f.stdout).toContain(`${o.orderNo} frozen_abnormal`);
    expect((await get(o.orderNo)).status).toBe("frozen_abnormal");

    const again = await cli("order", "freeze", o.orderNo, "--reason", "twice");
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`cannot freeze order ${o.orderNo}: it is frozen_abnormal`);
    const noReason = await cli("order", "freeze", o.orderNo);
    expect(noReason.code).not.toBe(0);
    expect(noReason.stderr).toContain("--reason");

    expect(await json("order", "release", o.orderNo)).toMatchObject({ orderNo: o.orderNo, status: "waiting_payment", paidAmount: null });
    const rel = await cli("order", "release", o.orderNo);
    expect(rel.code).not.toBe(0);
    expect(rel.stderr).toContain("not frozen_abnormal");

    expect((await cli("order", "cancel", o.orderNo)).code).toBe(0);
    const c2 = await cli("order", "cancel", o.orderNo);
    expect(c2.code).not.toBe(0);
    expect(c2.stderr).toContain(`cannot cancel order ${o.orderNo}: it is cancelled`);
    const missing = await cli("order", "cancel", "PI000");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("no pay-in order PI000");

    expect(await callbacks(o.orderNo, "cancelled")).toEqual([
      ["waiting_payment", "10.000000", null],
      ["frozen_abnormal", "10.000000", null],
      ["waiting_payment", "10.000000", null],
      ["cancelled", "10.000000", null],
    ]);
    // One entry per change that happened (refusals write nothing), newest first.
    const entries = await audit(`payin:${o.orderNo}`);
    expect(entries.map((e) => [e.action, e.before.status, e.after.status])).toEqual([
      ["payin.cancel", "waiting_payment", "cancelled"],
      ["payin.release", "frozen_abnormal", "waiting_payment"],
      ["payin.freeze", "waiting_payment", "frozen_abnormal"],
    ]);
    expect(entries.every((e) => e.actor === "cli" && e.role === "operator")).toBe(true);
    expect(entries[2].after.reason).toBe("chargeback risk");
  });

  test("a wrong amount freezes the order; release waits for finality, then gives risk_settled", async () => {
    const o = await create("20");
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "19" });
    expect(await get(o.orderNo)).toMatchObject({ status: "frozen_abnormal", paidAmount: "19.000000" });
    const early = await cli("order", "release", o.orderNo);
    expect(early.code).not.toBe(0);
    expect(early.stderr).toContain("not final");
    await sb.mine("TRON", 2);
    expect(await json("order", "release", o.orderNo)).toMatchObject({ status: "risk_settled", amount: "20.000000", paidAmount: "19.000000" });
    expect(await callbacks(o.orderNo, "risk_settled")).toEqual([
      ["waiting_payment", "20.000000", null],
      ["frozen_abnormal", "20.000000", "19.000000"],
      ["risk_settled", "20.000000", "19.000000"],
    ]);
  });

  test("the same rules as the back office (issue 36): release is refused once refunds made by API leave less than the amount; cancel then keeps the payment the order's", async () => {
    const o = await create("10");
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "12" });
    await sb.mine("TRON", 2);
    const held = await get(o.orderNo);
    expect(held).toMatchObject({ status: "frozen_abnormal", paidAmount: "12.000000" });
    await client.createRefund(o.orderNo, { refundNo: "cli-all", amount: "12", toAddress: SENDER });
    const rel = await cli("order", "release", o.orderNo);
    expect(rel.code).not.toBe(0);
    expect(rel.stderr).toContain(`cannot release order ${o.orderNo}: 12.000000 USDT was already refunded, so 0.000000 USDT is kept, less than the order amount of 10.000000 USDT: it cannot be accepted as paid.`);
    expect((await get(o.orderNo)).status).toBe("frozen_abnormal");
    expect(await json("order", "cancel", o.orderNo)).toMatchObject({ status: "cancelled" });
    // Not an unmatched deposit whose 12 could be refunded a second time.
    expect(((await json("deposit", "list", "--unmatched")) as Array<Record<string, unknown>>).some((d) => d.txHash === held.txHash)).toBe(false);
    const again = await client.createRefund(o.orderNo, { refundNo: "cli-more", amount: "0.01", toAddress: SENDER }).catch((e) => e);
    expect(again.code).toBe(55001);
  });
});

describe("deposit list --unmatched | attach", () => {
  test("an unmatched deposit is listed, attached with the rules of a match on arrival, and cannot be attached twice", async () => {
    const gone = await create("50");
    expect((await cli("order", "cancel", gone.orderNo)).code).toBe(0);
    const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: gone.address, amount: "50" });
    const listed = ((await json("deposit", "list", "--unmatched")) as Order[]).find((d) => d.txHash === tx.txHash)!;
    expect(listed).toMatchObject({ reason: "no_open_order", amount: "50.000000", merchantUid: uid, resolution: null, status: "pending" });
    expect((await cli("deposit", "list", "--unmatched")).stdout).toContain(tx.txHash);

    const o = await create("50");
    expect(o.address).toBe(gone.address);
    expect(await json("deposit", "attach", String(listed.depositId), o.orderNo)).toMatchObject({ orderNo: o.orderNo, status: "detected", paidAmount: "50.000000" });
    await sb.mine("TRON", 2);
    expect(await callbacks(o.orderNo, "completed")).toEqual([
      ["waiting_payment", "50.000000", null],
      ["detected", "50.000000", "50.000000"],
      ["completed", "50.000000", "50.000000"],
    ]);
    const twice = await cli("deposit", "attach", String(listed.depositId), o.orderNo);
    expect(twice.code).not.toBe(0);
    expect(twice.stderr).toContain("already attached");
    expect(((await json("deposit", "list", "--unmatched")) as Order[]).some((d) => d.txHash === tx.txHash)).toBe(false);
    expect(((await json("deposit", "list", "--unmatched", "--all")) as Order[]).find((d) => d.txHash === tx.txHash)).toMatchObject({ resolution: "attached", resolutionRef: o.orderNo });
    const [entry] = await audit(`deposit:${listed.depositId}`);
    expect(entry).toMatchObject({ action: "deposit.attach", actor: "cli", before: { deposit: { resolution: null } }, after: { order: { orderNo: o.orderNo, status: "detected" } } });

    const bad = await cli("deposit", "attach", "abc", o.orderNo);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("positive integer");
  });

  test("another amount attached freezes the order with paidAmount; dismiss closes a deposit with a note", async () => {
    const a = await create("30");
    const b = await create("40");
    expect(b.address).toBe(a.address);
    const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: a.address, amount: "35" });
    const d = ((await json("deposit", "list", "--unmatched")) as Order[]).find((x) => x.txHash === tx.txHash)!;
    expect(d.reason).toBe("several_candidates");
    expect(await json("deposit", "attach", String(d.depositId), a.orderNo)).toMatchObject({ status: "frozen_abnormal", paidAmount: "35.000000" });
    expect(await callbacks(a.orderNo, "frozen_abnormal")).toEqual([
      ["waiting_payment", "30.000000", null],
      ["frozen_abnormal", "30.000000", "35.000000"],
    ]);

    expect((await cli("order", "cancel", b.orderNo)).code).toBe(0); // else b, the only open order left, would take the next one
    const stray = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: a.address, amount: "0.01" });
    const sd = ((await json("deposit", "list", "--unmatched")) as Order[]).find((x) => x.txHash === stray.txHash)!;
    expect((await cli("deposit", "dismiss", String(sd.depositId))).code).not.toBe(0); // a note is required
    expect(await json("deposit", "dismiss", String(sd.depositId), "--note", "test transfer by the shop")).toMatchObject({ resolution: "dismissed", resolutionNote: "test transfer by the shop" });
    expect((await audit(`deposit:${sd.depositId}`))[0]).toMatchObject({ action: "deposit.dismiss", actor: "cli" });
  });
});

describe("denylist add | list | remove", () => {
  test("adds, lists, removes; refuses duplicates, unknown entries and bad addresses; freezes what the sender pays", async () => {
    const add = await cli("denylist", "add", "TRON", SENDER, "--reason", "reported stolen");
    expect(add.code).toBe(0);
    expect(await json("denylist", "list")).toEqual([{ chainCode: "TRON", address: SENDER, reason: "reported stolen", createdAt: expect.any(String) }]);
    const dup = await cli("denylist", "add", "TRON", SENDER, "--reason", "again");
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toContain("already on the deny list");
    const bad = await cli("denylist", "add", "TRON", "0xnot-tron", "--reason", "x");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("not a valid TRON address");
    expect((await cli("denylist", "add", "TRON", SENDER)).code).not.toBe(0); // --reason is required

    // The running gateway sees the entry at once.
    const o = await create("60");
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "60", fromAddress: SENDER });
    expect((await get(o.orderNo)).status).toBe("frozen_abnormal");

    expect((await cli("denylist", "remove", "TRON", SENDER)).code).toBe(0);
    expect(await json("denylist", "list")).toEqual([]);
    const gone = await cli("denylist", "remove", "TRON", SENDER);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain("not on the deny list");
    expect((await audit(`denylist:TRON:${SENDER}`)).map((e) => e.action)).toEqual(["denylist.remove", "denylist.add"]);
  });
});

describe("merchant set", () => {
  test("sets and clears the default notify URL and IP allowlist; refuses bad values with a clear message; audited", async () => {
    const set = await json("merchant", "set", uid, "--default-notify-url", "https://shop.example/default", "--ip-allowlist", "203.0.113.0/24,2001:db8::/32");
    expect(set).toEqual({ merchantUid: uid, defaultNotifyUrl: "https://shop.example/default", ipAllowlist: ["203.0.113.0/24", "2001:db8::/32"] });
    for (const [args, msg] of [
      // (this config allows private targets, as tests must; the SSRF refusals are in src/merchants/settings.test.ts)
      [["--default-notify-url", "ftp://shop.example/x"], "must use http or https"],
      [["--default-notify-url", "https://user:pw@shop.example/x"], "credentials"],
      [["--default-notify-url", "http://./x"], "must have a host"],
      [["--ip-allowlist", "10.0.0.0/33"], "prefix length"],
      [["--ip-allowlist", "not-an-ip"], "not an IPv4 or IPv6 address"],
      [[], "needs --default-notify-url"],
    ] as Array<[string[], string]>) {
      const r = await cli("merchant", "set", uid, ...args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(msg);
    }
    expect((await cli("merchant", "set", "M0000000", "--ip-allowlist", "")).stderr).toContain("no merchant with UID M0000000");
    expect(await json("merchant", "set", uid, "--default-notify-url", "", "--ip-allowlist", "")).toEqual({ merchantUid: uid, defaultNotifyUrl: null, ipAllowlist: [] });
    const entries = (await audit(`merchant:${uid}`)).filter((e) => e.action === "merchant.settings");
    expect(entries.map((e) => [e.action, e.actor, e.after.defaultNotifyUrl])).toEqual([
      ["merchant.settings", "cli", null],
      ["merchant.settings", "cli", "https://shop.example/default"],
    ]);
  });
});

describe("merchant set --epusdt-token | --epay-key", () => {
  test("turns on the shop-plugin endpoints of the running serve at once; keys are masked in output and audit; empty clears", async () => {
    const create = async () => {
      const p = { order_id: "cli-1", amount: "10", notify_url: "http://127.0.0.1:9/n" };
      const text = Object.entries(p).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join("&") + "cli-epusdt-token";
      const signature = new Bun.CryptoHasher("md5").update(text).digest("hex");
      const res = await fetch(`${s.url}/compat/epusdt/${uid}/api/v1/order/create-transaction`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...p, signature }) });
      return ((await res.json()) as { status_code: number }).status_code;
    };
    expect(await create()).toBe(401);
    const set = await json("merchant", "set", uid, "--epusdt-token", "cli-epusdt-token", "--epay-key", "cli-epay-key-1");
    expect(set).toEqual({ merchantUid: uid, epusdtToken: "cli-…oken", epayKey: "cli-…ey-1" });
    // Signed with the new token: past the signature (this config prices no CNY: 10006).
    expect(await create()).toBe(10006);
    const short = await cli("merchant", "set", uid, "--epusdt-token", "short");
    expect([short.code, short.stderr]).toEqual([2, expect.stringContaining("epusdt token must be 8-128 characters")]);
    expect(await json("merchant", "set", uid, "--epusdt-token", "")).toMatchObject({ epusdtToken: null, epayKey: "cli-…ey-1" });
    expect(await create()).toBe(401);
    const entries = (await audit(`merchant:${uid}`)).filter((e) => e.action === "merchant.compat_keys");
    expect(entries.map((e) => [e.actor, e.after.epusdt, e.after.epay])).toEqual([
      ["cli", null, "cli-…ey-1"],
      ["cli", "cli-…oken", "cli-…ey-1"],
    ]);
    expect(JSON.stringify(entries)).not.toContain("cli-epusdt-token");
  });
});

describe("every state-changing command is audited", () => {
  test("merchant create / disable / enable and key rotate leave entries; keys never enter the log", async () => {
    const other = await json("merchant", "create", "--name", "audited shop");
    expect((await cli("merchant", "disable", other.merchantUid)).code).toBe(0);
    expect((await cli("merchant", "enable", other.merchantUid)).code).toBe(0);
    const rotated = await json("key", "rotate", other.merchantUid);
    const entries = await audit(`merchant:${other.merchantUid}`);
    expect(entries.map((e) => e.action)).toEqual(["key.rotate", "merchant.enable", "merchant.disable", "merchant.create"]);
    expect(entries.every((e) => e.actor === "cli" && e.role === "operator")).toBe(true);
    expect(entries[2]).toMatchObject({ before: { status: "active" }, after: { status: "disabled" } });
    const all = (await cli("audit", "list", "--limit", "1000", "--json")).stdout;
    for (const key of [other.apiKey, rotated.apiKey, firstKey]) {
      expect(all).not.toContain(key);
      expect(all).not.toContain(key.slice(4, 40));
    }
    expect((await audit(`merchant:${uid}`)).at(-1)).toMatchObject({ action: "merchant.create", after: { merchantUid: uid, name: "ops shop" } });
  });
});
