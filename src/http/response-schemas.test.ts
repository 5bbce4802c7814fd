// Every answer of the merchant API and every callback body, rendered by the real views through a
// running gateway, is valid against the schema OpenAPI publishes for it (enums and formats
// included) and carries no field that schema lacks. The views are typed by the same schemas
// (Static<…>), so a drift fails typecheck; this catches what types cannot see (spreads, nulls
// at runtime, enum values).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { callbacks } from "../db/schema";
import { tableRows } from "../testing/engine-rows";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { buildOpenApiDoc } from "./openapi-doc";
import { MERCHANT_ROUTES } from "./merchant-api";
import { chooseNetwork } from "../payin/invoice-network";

type Json = Record<string, unknown>;

/** The published schema with every object closed: a field the view writes and the schema lacks fails. */
function closed(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(closed);
  if (!s || typeof s !== "object") return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as Json).map(([p, x]) => [p, closed(x)])) : closed(v);
  if (out.type === "object" && out.properties && !("additionalProperties" in out)) out.additionalProperties = false;
  return out;
}

const doc = buildOpenApiDoc("http://127.0.0.1");
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const schemas = doc.components.schemas as Record<string, unknown>;
const validators = new Map(Object.entries(schemas).map(([name, s]) => [name, ajv.compile(closed(s) as Json)]));

/** The schema's complaints about `value` (empty when it conforms). */
function problems(schemaName: string, value: unknown): string[] {
  const v = validators.get(schemaName);
  if (!v) return [`no published schema ${schemaName}`];
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.params && "additionalProperty" in e.params ? `: ${String(e.params.additionalProperty)}` : ""}`);
}

describe("merchant API answers and callback bodies match their published schemas", () => {
  let gw: TestGateway;
  /** operationId → the answers it gave in the walk-through below. */
  const answers = new Map<string, unknown[]>();
  const keep = <T>(operationId: string, v: T): T => (answers.set(operationId, [...(answers.get(operationId) ?? []), v]), v);

  beforeAll(async () => {
    gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 3 } } } });
    const sb = sandboxClient(gw.url);
    const c = gw.client;

    // A shared-address order, paid in full and confirmed (every timestamp and the payer set).
    const order = keep("createPayinOrder", await c.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "views-1", amount: "5", notifyUrl: "https://shop.example/cb", redirectUrl: "https://shop.example/thanks" }));
    keep("getPayinOrder", await c.getPayinOrder(order.orderNo));
    const paidBy = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: order.address, amount: "5" });
    await sb.mine("TRON", 3);
    keep("getPayinOrder", await c.getPayinOrder(order.orderNo));
    // The payer's hash of it (credited), and one that paid another address.
    keep("submitPayinTxHash", await c.submitPayinTxHash(order.orderNo, paidBy.txHash));
    const elsewhere = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: randomAddress("TRON"), amount: "5" });
    keep("submitPayinTxHash", await c.submitPayinTxHash(order.orderNo, elsewhere.txHash));
    // Refunds of it: one sent at once (broadcasted, then confirmed), one waiting for the payer's address.
    keep("createRefund", await c.createRefund(order.orderNo, { refundNo: "views-r1", amount: "2", toAddress: randomAddress("TRON"), notifyUrl: "https://shop.example/rf" }));
    keep("createRefund", await c.createRefund(order.orderNo, { refundNo: "views-r2", amount: "1" }));
    keep("listRefunds", await c.listRefunds(order.orderNo));
    await sb.mine("TRON", 3);
    keep("listRefunds", await c.listRefunds(order.orderNo));

    // An exclusive wallet with a deposit: the detail has stats, recent orders and transactions.
    const binding = keep("createExclusiveBinding", await c.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "views-b", label: "shop user 7", notifyUrl: "https://shop.example/dep" }));
    keep("createExclusiveBinding", await c.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "views-bare" }));
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: binding.address, amount: "7.5" });
    await sb.mine("TRON", 3);
    keep("getExclusiveBinding", await c.getExclusiveBinding("views-b", { chainCode: "TRON", tokenSymbol: "USDT" }));
    keep("getExclusiveBinding", await c.getExclusiveBinding("views-bare", { chainCode: "TRON", tokenSymbol: "USDT", recentLimit: 1 }));

    // An invoice, its network chosen on the hosted page's service and paid: payment filled in.
    const inv = keep("createInvoice", await c.createInvoice({ merchantOrderNo: "views-inv", priceAmount: "3", priceCurrency: "USD", description: "mug", redirectUrl: "https://shop.example/thanks", notifyUrl: "https://shop.example/inv" }));
    keep("createInvoice", await c.createInvoice({ merchantOrderNo: "views-inv-bare", priceAmount: "3", priceCurrency: "USDT" }));
    keep("getInvoice", await c.getInvoice(inv.invoiceNo));
    const { order: io } = await chooseNetwork(gw.ctx, inv.invoiceUrl.split("/invoice/")[1]!, "TRON:USDT");
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: io.address, amount: "3" });
    await sb.mine("TRON", 3);
    keep("getInvoice", await c.getInvoice(inv.invoiceNo));

    // A payout whose first broadcast fails (it stays submitted), then submitted again: it goes out.
    await sb.faults("TRON", 1);
    const payout = keep("createPayoutOrder", await c.createPayoutOrder({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: randomAddress("TRON"), amount: "1", merchantOrderNo: "views-po", notifyUrl: "https://shop.example/po" }));
    keep("getPayoutOrder", await c.getPayoutOrder(payout.orderNo));
    keep("submitPayoutOrder", await c.submitPayoutOrder(payout.orderNo, { remark: "again" }));
    keep("getPayoutOrder", await c.getPayoutOrder(payout.orderNo));
  });
  afterAll(() => gw.stop());

  test("the walk-through reached the states that fill the optional and nullable fields", () => {
    const paid = answers.get("getPayinOrder")!.at(-1) as Json;
    expect([paid.status, typeof paid.txHash, typeof paid.completedAt, paid.redirectUrl]).toEqual(["completed", "string", "string", "https://shop.example/thanks"]);
    const detail = answers.get("getExclusiveBinding")![0] as { recentOrders: unknown[]; recentTransactions: unknown[] };
    expect([detail.recentOrders.length, detail.recentTransactions.length]).toEqual([1, 1]);
    expect((answers.get("submitPayoutOrder")![0] as Json).status).toBe("broadcasted");
    expect(answers.get("getInvoice")!.at(-1)).toMatchObject({ status: "paid", redirectUrl: "https://shop.example/thanks", payment: { status: "completed" } });
    expect((answers.get("listRefunds")!.at(-1) as { refunds: Json[] }).refunds.map((r) => r.status)).toEqual(["confirmed", "awaiting_address"]);
  });

  test.each(MERCHANT_ROUTES.map((r) => [r.operationId, r.result] as const))("%s answers match %s", (operationId, result) => {
    const got = answers.get(operationId) ?? [];
    expect(got.length).toBeGreaterThan(0);
    for (const a of got) expect(problems(result, a)).toEqual([]);
  });

  test.each([
    ["payin", "PayinCallbackPayload"],
    ["payout", "PayoutCallbackPayload"],
    ["invoice", "InvoiceCallbackPayload"],
    ["refund", "RefundCallbackPayload"],
  ] as const)("%s callback bodies in the outbox match %s", async (kind, schemaName) => {
    const rows = await tableRows(gw.ctx.db, callbacks, { kind });
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect({ status: r.status, problems: problems(schemaName, JSON.parse(r.payload)) }).toEqual({ status: r.status, problems: [] });
  });

  test("a field the schema lacks is refused (the check is not vacuous)", () => {
    const paid = answers.get("getPayinOrder")!.at(-1) as Json;
    expect(problems("PayinOrder", { ...paid, extra: 1 })).toEqual(["/ must NOT have additional properties: extra"]);
    expect(problems("PayinOrder", { ...paid, status: "paid" })[0]).toContain("/status must be equal to one of the allowed values");
  });
});
