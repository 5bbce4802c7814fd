// The served OpenAPI document through the ecosystem's own tools, offline:
// `redocly lint` (no errors) and openapi-typescript types that tsc checks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { ROOT } from "../testing/process";
import { ERRORS } from "../errors";

let gw: TestGateway;
let doc: any;
let dir: string;
const bin = (name: string) => join(ROOT, "node_modules/.bin", name);
const offline = { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
/** The OpenAPI chainCode enum is the registry: every product chain, enabled or not (DESIGN 17). */
const CHAINS = ["TRON", "BSC", "SOL", "ETH", "POLYGON", "ARBITRUM", "BASE", "OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA", "TON"];

function run(cmd: string[]) {
  const r = Bun.spawnSync(cmd, { cwd: dir, env: { ...process.env, ...offline }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
  doc = await (await fetch(gw.url + "/openapi.json")).json();
  dir = mkdtempSync(join(tmpdir(), "stablegate-openapi-"));
  writeFileSync(join(dir, "openapi.json"), JSON.stringify(doc));
});
afterAll(async () => {
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the served /openapi.json", () => {
  test("redocly lint: valid, no errors", () => {
    const r = run([bin("redocly"), "lint", "openapi.json", "--format", "stylish"]);
    expect(r.out).not.toMatch(/error/i);
    expect(r.code).toBe(0);
  });

  test("every error code of the catalog with its HTTP status, 10002, 10029 and 20020 included", () => {
    for (const [code, e] of Object.entries(ERRORS)) {
      expect(doc["x-error-codes"][code]).toEqual({ status: e.status, message: e.message });
      expect(doc.info.description).toContain(`| ${code} | ${e.status} | ${e.message} |`);
    }
    expect(ERRORS[10002].status).toBe(404);
    expect(ERRORS[10029].status).toBe(429);
    expect(ERRORS[20020].status).toBe(403);
    const get = doc.paths["/openapi/payin/orders/{orderNo}"].get;
    expect(get.responses["404"].content["application/json"].examples["10002"].value.code).toBe(10002);
    expect(get.responses["429"].content["application/json"].examples["10029"].value.code).toBe(10029);
    expect(get.responses["403"].content["application/json"].examples["20020"].value.code).toBe(20020);
  });

  test("enums: chainCode, tokenSymbol, pay-in and payout statuses", () => {
    const s = doc.components.schemas;
    for (const name of ["CreatePayinOrder", "PayinOrder", "CreatePayoutOrder", "PayoutOrder", "ExclusiveBinding", "PayinCallbackPayload", "PayoutCallbackPayload"]) {
      expect(s[name].properties.chainCode.enum, name).toEqual(CHAINS);
      expect(s[name].properties.tokenSymbol.enum, name).toEqual(["USDT", "USDC"]);
    }
    const payin = ["waiting_payment", "detected", "confirming", "completed", "risk_settled", "expired", "frozen_abnormal", "cancelled"];
    expect(s.PayinOrder.properties.status.enum).toEqual(payin);
    expect(s.PayinCallbackPayload.properties.status.enum).toEqual(payin);
    expect(s.ExclusiveBindingDetail.properties.recentOrders.items.properties.status.enum).toEqual(payin);
    expect(s.PayoutOrder.properties.status.enum).toEqual(["submitted", "broadcasted", "confirmed", "failed"]);
    expect(s.PayoutCallbackPayload.properties.status.enum).toEqual(["submitted", "broadcasted", "confirmed", "failed"]);
    expect(s.ExclusiveBinding.properties.status.enum).toEqual(["active", "disabled"]);
    const q = doc.paths["/openapi/payin/exclusive-bindings/{bindKey}"].get.parameters.find((p: any) => p.name === "chainCode");
    expect(q.schema.enum).toEqual(CHAINS);
  });

  test("webhooks are not signed with the API headers: security: []", () => {
    expect(doc.webhooks.payinCallback.post.security).toEqual([]);
    expect(doc.webhooks.payoutCallback.post.security).toEqual([]);
  });

  test("openapi-typescript types reject status === \"complete\" and accept the real values", () => {
    const gen = run([bin("openapi-typescript"), "openapi.json", "-o", "api.d.ts"]);
    expect(gen.code).toBe(0);
    writeFileSync(
      join(dir, "check.ts"),
      `import type { components } from "./api";
type S = components["schemas"];
declare const order: S["PayinOrder"];
declare const payout: S["PayoutOrder"];
declare const cb: S["PayinCallbackPayload"];
// @ts-expect-error "complete" is not a pay-in status
export const a = order.status === "complete";
// @ts-expect-error "complete" is not a callback status either
export const b = cb.status === "complete";
// @ts-expect-error "success" is not a payout status
export const c = payout.status === "success";
// @ts-expect-error "DOGE" is not a chainCode
export const d: S["CreatePayinOrder"]["chainCode"] = "DOGE";
export const e: S["CreatePayinOrder"]["chainCode"] = "BASE";
export const ok = order.status === "completed" && payout.status === "confirmed" && order.chainCode === "TRON";
`,
    );
    const tsc = run(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "check.ts"]);
    expect(tsc.out).toBe("");
    expect(tsc.code).toBe(0);
  });
});
