// The SDK as a merchant gets it: built by scripts/build-sdk.sh (`make sdk`),
// packed, installed offline by npm into a fresh Node 20 project (the guide's
// docs/examples/typescript), compiled with NodeNext and run under Node and
// Bun, and added to a Bun project with `bun add`, against a live sandbox
// gateway: pay-in, verified callbacks, payout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../testing/process";
import { startTestGateway, type TestGateway } from "../testing/harness";

let gw: TestGateway;
let work: string;

function run(cmd: string[], cwd: string, env: Record<string, string> = {}) {
  const r = Bun.spawnSync(cmd, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString() + r.stderr.toString();
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${r.exitCode}:\n${out}`);
  return out;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "stablegate-sdk-"));
  gw = await startTestGateway({ jobs: true });
});
afterAll(async () => {
  await gw?.stop();
  rmSync(work, { recursive: true, force: true });
});

test("make sdk output: ESM bundle + declarations, package.json exports them, nothing of the server inside", () => {
  run(["./scripts/build-sdk.sh"], ROOT, { BUN: process.execPath });
  const dist = join(ROOT, "src/sdk/dist");
  expect(readdirSync(dist).sort()).toEqual(["callback.d.ts", "client.d.ts", "index.d.ts", "index.js", "signing.d.ts", "types.d.ts"]);
  const pkg = JSON.parse(readFileSync(join(ROOT, "src/sdk/package.json"), "utf8"));
  expect(pkg.name).toBe("@stablegate/sdk");
  expect(pkg.private).toBeUndefined();
  expect(pkg.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
  expect(pkg.dependencies).toBeUndefined();
  const js = readFileSync(join(dist, "index.js"), "utf8");
  const imports = [...js.matchAll(/^import\s.*?from\s+"([^"]+)"/gm)].map((m) => m[1]);
  expect(imports.every((s) => s!.startsWith("node:"))).toBe(true);
  expect(js).not.toContain("drizzle");
  expect(js).not.toContain("elysia");
});

test("a Node 20 project installs the packed SDK offline, compiles under NodeNext and completes pay-in, callback verification and payout", async () => {
  const packed = run(["npm", "pack", "--silent", "--pack-destination", work], join(ROOT, "src/sdk")).trim().split("\n").pop()!;
  const shop = join(work, "shop");
  cpSync(join(ROOT, "docs/examples/typescript"), shop, { recursive: true, filter: (p) => !p.includes("node_modules") && !p.includes("/dist") });
  run(["npm", "install", "--offline", "--no-audit", "--no-fund", join(work, packed)], shop);
  const installed = JSON.parse(readFileSync(join(shop, "node_modules/@stablegate/sdk/package.json"), "utf8"));
  expect(installed.name).toBe("@stablegate/sdk");
  expect(readdirSync(join(shop, "node_modules/@stablegate/sdk")).sort()).toEqual(["README.md", "dist", "package.json"]);
  // The repo's TypeScript and Node types stand in for the shop's own devDependencies.
  run(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", ".", "--typeRoots", join(ROOT, "node_modules/@types")], shop);

  const env = { STABLEGATE_URL: gw.url, STABLEGATE_MERCHANT_UID: gw.merchant.uid, STABLEGATE_API_KEY: gw.merchant.apiKey };
  expect(run(["node", "--version"], shop)).toStartWith("v20");
  for (const runtime of ["node", process.execPath]) {
    const proc = Bun.spawn([runtime, "dist/shop.js"], { cwd: shop, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toMatch(/callback verified: PI\d+ completed paid 12\.500000/);
    expect(out).toMatch(/payout PO\d+: confirmed tx [0-9a-f]{64}/);
    expect(out).toMatch(/expected failure: 404 40108 Pay-in order does not exist \(requestId req_/);
    expect(out.trim().split("\n").pop()).toBe("OK");
  }

  // A Bun project: `bun add` of the same package, the TypeScript run as is.
  const bunShop = join(work, "bun-shop");
  cpSync(join(ROOT, "docs/examples/typescript"), bunShop, { recursive: true, filter: (p) => !p.includes("node_modules") && !p.includes("/dist") });
  run([process.execPath, "add", join(work, packed)], bunShop);
  const proc = Bun.spawn([process.execPath, "shop.ts"], { cwd: bunShop, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  expect(out).toMatch(/callback verified: PI\d+ completed/);
  expect(out.trim().split("\n").pop()).toBe("OK");
}, 120_000);
