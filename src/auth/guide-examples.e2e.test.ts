// The integration guide's PHP, Python and Go examples (docs/examples/*) run
// as a merchant would run them, against a live sandbox gateway: every signed
// request answers 2xx, and each language's own callback endpoint verifies
// the gateway's real callbacks (and refuses forged or re-serialised ones).
// A runtime that is not installed is skipped with the reason printed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { eventually, freePort } from "../testing/wait";
import { ROOT } from "../testing/process";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { signCallback } from "./signing";

interface Lang {
  name: string;
  runtime: string;
  /** Build steps (run once, in the example's folder). */
  build?: (out: string) => string[][];
  client: (out: string) => string[];
  callback: (out: string, port: number) => string[];
}

const LANGS: Lang[] = [
  { name: "python", runtime: "python3", client: () => ["python3", "client.py"], callback: (_o, port) => ["python3", "callback.py", String(port)] },
  { name: "php", runtime: "php", client: () => ["php", "client.php"], callback: (_o, port) => ["php", "-S", `127.0.0.1:${port}`, "callback.php"] },
  {
    name: "go",
    runtime: "go",
    build: (out) => [
      ["go", "build", "-o", join(out, "go-client"), "./cmd/client"],
      ["go", "build", "-o", join(out, "go-callback"), "./cmd/callback"],
    ],
    client: (out) => [join(out, "go-client")],
    callback: (out, port) => [join(out, "go-callback"), String(port)],
  },
];

let gw: TestGateway;
let work: string;
beforeAll(async () => {
  // The examples' invoices offer Plasma USDT (DESIGN 23), a network off by default.
  gw = await startTestGateway({ jobs: true, config: { chains: { PLASMA: { enabled: true } } } });
  work = mkdtempSync(join(tmpdir(), "stablegate-guide-"));
});
afterAll(async () => {
  await gw?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Async on purpose: the gateway runs in this process and must keep answering. */
async function run(cmd: string[], cwd: string, env: Record<string, string>) {
  const p = Bun.spawn(cmd, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

for (const lang of LANGS) {
  const available = Bun.which(lang.runtime) !== null;
  if (!available) console.log(`skipping the ${lang.name} example: ${lang.runtime} is not installed (apt-get install ${lang.name === "go" ? "golang-go" : lang.name === "php" ? "php-cli" : "python3"})`);

  describe.skipIf(!available)(`docs/examples/${lang.name}`, () => {
    const dir = join(ROOT, "docs/examples", lang.name);
    let receiver: Subprocess | undefined;
    afterAll(() => receiver?.kill());

    test("signed requests get 2xx; the callback endpoint verifies the gateway's callbacks", async () => {
      const env = {
        STABLEGATE_URL: gw.url,
        STABLEGATE_MERCHANT_UID: gw.merchant.uid,
        STABLEGATE_API_KEY: gw.merchant.apiKey,
        CALLBACK_LOG: join(work, `${lang.name}-callbacks.log`),
        PYTHONIOENCODING: "utf-8",
        GOFLAGS: "-mod=mod",
      };
      for (const step of lang.build?.(work) ?? []) {
        const b = await run(step, dir, env);
        expect(b.err + b.out).toBe("");
        expect(b.code).toBe(0);
      }
      const port = await freePort();
      receiver = Bun.spawn(lang.callback(work, port), { cwd: dir, env: { ...process.env, ...env }, stdout: "ignore", stderr: "ignore" });
      const cbUrl = `http://127.0.0.1:${port}/stablegate/callback`;
      await eventually(async () => (await fetch(cbUrl).catch(() => null))?.status === 204, 30_000, `${lang.name} callback endpoint up`);

      // The notifyUrl carries "/" and "&": PHP's and Go's default JSON encoders would escape them.
      const notifyUrl = `${cbUrl}?source=stablegate&lang=${lang.name}`;
      const r = await run(lang.client(work), dir, { ...env, NOTIFY_URL: notifyUrl, SANDBOX_PAY: "1" });
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      const steps = Object.fromEntries(
        r.out
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { step: string; http: number; body: any })
          .map((s) => [s.step, s]),
      );
      for (const name of ["createPayinOrder", "getPayinOrder", "createExclusiveBinding", "getExclusiveBinding", "createInvoice", "getInvoice", "sandbox/transfers", "sandbox/blocks"]) {
        expect(steps[name]?.http, `${name}: ${JSON.stringify(steps[name]?.body)}`).toBeWithin(200, 300);
      }
      const order = steps.createPayinOrder!.body;
      expect(order.orderNo).toMatch(/^PI/);
      expect(steps.getPayinOrder!.body.orderNo).toBe(order.orderNo);
      expect(steps.createExclusiveBinding!.body).toMatchObject({ label: "Café ☕", notifyUrl, bindKey: expect.stringMatching(/^user\//) });
      expect(steps.getExclusiveBinding!.body.bindingId).toBe(steps.createExclusiveBinding!.body.bindingId);
      // A non-ASCII description and a list in the body: the canonical JSON each language signs.
      expect(steps.createInvoice!.body).toMatchObject({ priceAmount: "19.90", priceCurrency: "USD", description: "Tea set · 茶具", payments: ["TRON:USDT", "BSC:USDC", "PLASMA:USDT"], status: "open" });
      expect(steps.getInvoice!.body.invoiceNo).toBe(steps.createInvoice!.body.invoiceNo);
      expect(steps.expectedFailure).toMatchObject({ http: 404, body: { code: 40108, requestId: expect.stringMatching(/^req_/) } });

      // Only verified callbacks reach the log; the order's `completed` one arrives.
      const logged = () =>
        existsSync(env.CALLBACK_LOG)
          ? readFileSync(env.CALLBACK_LOG, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
          : [];
      await eventually(() => logged().some((e) => e.orderNo === order.orderNo && e.status === "completed"), 30_000, `${lang.name} verified the completed callback`);
      expect(logged().filter((e) => e.orderNo === order.orderNo).map((e) => e.status)).toContain("detected");

      // Forged and re-serialised callbacks are refused; a correctly signed one is accepted.
      const body = JSON.stringify({ orderNo: "PI-forged", status: "completed", paidAmount: "1.000000", note: "a/b&c é" });
      const ts = String(Date.now());
      const headers = (sig: string) => ({
        "content-type": "application/json",
        "x-callback-timestamp": ts,
        "x-callback-nonce": "n-guide",
        "x-callback-signature": sig,
        "x-callback-signature-algorithm": "HMAC-SHA256",
        "x-callback-signature-version": "v1",
      });
      const good = signCallback(gw.merchant.apiKey, ts, "n-guide", body);
      const post = (b: string, sig: string) => fetch(cbUrl, { method: "POST", headers: headers(sig), body: b }).then((res) => res.status);
      expect(await post(JSON.stringify(JSON.parse(body), null, 1), good)).toBe(401);
      expect(await post(body, signCallback("mch_other", ts, "n-guide", body))).toBe(401);
      expect(await post(body, good.toUpperCase())).toBe(401);
      expect(await post(body, good)).toBe(200);
      expect(logged().some((e) => e.orderNo === "PI-forged")).toBe(true);
    }, 180_000);
  });
}

describe("docs/integration.md", () => {
  const guide = readFileSync(join(ROOT, "docs/integration.md"), "utf8");

  test("every code excerpt is verbatim from the example file it names (the files are what the tests run)", () => {
    const blocks = [...guide.matchAll(/<!-- from (\S+) -->\n```\w*\n([\s\S]*?)\n```/g)];
    expect(blocks.length).toBeGreaterThanOrEqual(12);
    for (const [, file, code] of blocks) expect(readFileSync(join(ROOT, file!), "utf8"), `${file} contains the excerpt`).toContain(code!);
    for (const lang of ["typescript", "python", "php", "go"]) expect(blocks.some(([, f]) => f!.includes(`/${lang}/`)), lang).toBe(true);
  });

  test("the pitfalls section names each language's encoding trap", () => {
    const pitfalls = guide.slice(guide.indexOf("## Pitfalls"));
    expect(pitfalls).toContain("JSON_UNESCAPED_SLASHES");
    expect(pitfalls).toContain('separators=(",", ":")');
    expect(pitfalls).toContain("\\u0026");
    expect(pitfalls).toContain("SetEscapeHTML(false)");
  });

  test("every TRON address in the guide and the examples is a valid base58check address", async () => {
    const { isValidAddress } = await import("../wallet/hd");
    const files = [guide, ...["typescript/shop.ts", "python/client.py", "php/client.php", "go/cmd/client/main.go"].map((f) => readFileSync(join(ROOT, "docs/examples", f), "utf8"))];
    const found = files.flatMap((t) => [...t.matchAll(/\bT[1-9A-HJ-NP-Za-km-z]{33}\b/g)].map((m) => m[0]));
    expect(found.length).toBeGreaterThan(0);
    for (const a of found) expect(isValidAddress("TRON", a), a).toBe(true);
  });
});
