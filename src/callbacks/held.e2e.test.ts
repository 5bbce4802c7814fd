// DESIGN 5: a callback with no notifyUrl and no merchant default URL is held
// (visible), survives a restart, and is delivered, signed, once
// `merchant set UID --default-notify-url` sets a URL, by the running gateway.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli, startGatewayProcess, tempSetup, type GatewayProcess } from "../testing/process";
import { StablegateClient } from "../sdk/client";
import { verifyCallback } from "../sdk/callback";
import { sandboxClient } from "../testing/sandbox";
import { startReceiver } from "../testing/receiver";

const rx = startReceiver([{ status: 200 }]);
/** Gets the callbacks of orders made only to show the worker has run (see `workerRan`). */
const witness = startReceiver([{ status: 200 }]);
const cleanup: Array<() => Promise<unknown> | void> = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

test("held without a target, kept across a restart, delivered signed after `merchant set --default-notify-url`", async () => {
  const s = await tempSetup(`[chains.TRON]\nconfirmations = 2\nblock_time = "0s"`);
  cleanup.push(() => rx.stop(), () => witness.stop(), () => rmSync(s.dir, { recursive: true, force: true }));
  const cli = (...args: string[]) => runCli([...args, "--config", s.configPath], s.env);
  const { merchantUid, apiKey } = JSON.parse(cli("merchant", "create", "--name", "no url shop", "--json").stdout);
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  const held = () => (JSON.parse(cli("callbacks", "list", "--json").stdout) as Array<Record<string, any>>).filter((c) => c.state === "held");

  /**
   * Proof that the gateway's callback worker has claimed and delivered since the held event was
   * written, instead of sleeping for a few polls: a new order's callback to another receiver arrives.
   */
  let witnessed = 0;
  const workerRan = async () => {
    await client.request("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `witness-${witnessed}`, amount: "1", notifyUrl: witness.url + "/w" } });
    await witness.waitFor((q) => q.length > witnessed, 10_000);
    witnessed++;
  };

  let gw: GatewayProcess = await startGatewayProcess(s);
  const binding = await client.request<Record<string, any>>("POST", "/openapi/payin/exclusive-bindings", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "player-1" }, // no notifyUrl, and the merchant has no default
  });
  const tx = await sandboxClient(s.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: binding.address, amount: "12" });
  await workerRan(); // the worker has run since: the held event is neither claimed nor dropped
  const before = held();
  expect(before).toHaveLength(1);
  expect(before[0]).toMatchObject({ orderStatus: "detected", attempts: 0, url: null });
  expect(cli("callbacks", "list").stdout).toMatch(/^EV\S+\s+held\s/m);
  expect(JSON.parse(cli("callbacks", "list", "--held", "--json").stdout).map((c: { eventId: string }) => c.eventId)).toEqual([before[0].eventId]);

  expect(await gw.kill("SIGTERM")).toBe(0);
  gw = await startGatewayProcess(s);
  cleanup.push(() => gw.kill("SIGTERM"));
  await workerRan();
  expect(held().map((c) => c.eventId)).toEqual([before[0].eventId]);
  expect(rx.requests).toHaveLength(0);

  const set = cli("merchant", "set", merchantUid, "--default-notify-url", rx.url + "/default");
  expect(set.code).toBe(0);
  expect(set.stdout).toContain("1 held callback(s) released");
  const [r] = await rx.waitFor((q) => q.length >= 1, 10_000);
  expect(r.path).toBe("/default");
  expect(verifyCallback(r.raw, r.headers, apiKey)).toBe(true);
  expect(JSON.parse(r.text)).toMatchObject({ eventId: before[0].eventId, status: "detected", txHash: tx.txHash, paidAmount: "12.000000", bindKey: "player-1" });
  expect(held()).toEqual([]);

  // Later events go straight to the default URL.
  await sandboxClient(s.url).mine("TRON", 2);
  const all = await rx.waitFor((q) => q.some((x) => JSON.parse(x.text).status === "completed"), 10_000);
  expect(all.every((x) => x.path === "/default" && verifyCallback(x.raw, x.headers, apiKey))).toBe(true);
});
