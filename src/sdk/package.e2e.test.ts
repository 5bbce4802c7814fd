// The SDK as a merchant gets it: built by scripts/build-sdk.sh (`make sdk`),
// packed, installed offline by npm into a fresh Node 20 project (the guide's
// docs/examples/typescript), compiled with NodeNext and run under Node and
// Bun, and added to a Bun project with `bun add`, against a live sandbox
// gateway: pay-in, verified callbacks, payout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  // The examples' invoices offer Plasma USDT (DESIGN 23), a network off by default.
  gw = await startTestGateway({ jobs: true, config: { chains: { PLASMA: { enabled: true } } } });
});
afterAll(async () => {
  await gw?.stop();
  rmSync(work, { recursive: true, force: true });
});

test("make sdk output: ESM and CommonJS bundles + declarations, package.json exports both, nothing of the server inside", () => {
  run(["./scripts/build-sdk.sh"], ROOT, { BUN: process.execPath });
  const dist = join(ROOT, "src/sdk/dist");
  const decls = ["callback.d.ts", "client.d.ts", "index.d.ts", "signing.d.ts", "types.d.ts"];
  expect(readdirSync(dist).sort()).toEqual([...decls, "cjs", "index.js"].sort());
  expect(readdirSync(join(dist, "cjs")).sort()).toEqual([...decls, "index.js", "package.json"].sort());
  expect(JSON.parse(readFileSync(join(dist, "cjs/package.json"), "utf8"))).toEqual({ type: "commonjs" });
  const pkg = JSON.parse(readFileSync(join(ROOT, "src/sdk/package.json"), "utf8"));
  expect(pkg.name).toBe("@stablegate/sdk");
  expect(pkg.private).toBeUndefined();
  expect(pkg.exports["."]).toEqual({
    import: { types: "./dist/index.d.ts", default: "./dist/index.js" },
    require: { types: "./dist/cjs/index.d.ts", default: "./dist/cjs/index.js" },
  });
  expect(pkg.dependencies).toBeUndefined();
  const js = readFileSync(join(dist, "index.js"), "utf8");
  const imports = [...js.matchAll(/^import\s.*?from\s+"([^"]+)"/gm)].map((m) => m[1]);
  expect(imports.every((s) => s!.startsWith("node:"))).toBe(true);
  const cjs = readFileSync(join(dist, "cjs/index.js"), "utf8");
  const requires = [...cjs.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
  expect(requires.every((s) => s!.startsWith("node:"))).toBe(true);
  for (const bundle of [js, cjs]) {
    expect(bundle).not.toContain("drizzle");
    expect(bundle).not.toContain("elysia");
  }
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
    expect(out).toMatch(/invoice IV\d+: 19\.90 USD, open at http:\/\/127\.0\.0\.1:\d+\/invoice\//);
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

test("a CommonJS project (npm init -y) requires the SDK, and its TypeScript compiles to require() under NodeNext", async () => {
  const packed = run(["npm", "pack", "--silent", "--pack-destination", work], join(ROOT, "src/sdk")).trim().split("\n").pop()!;
  const shop = join(work, "cjs-shop");
  mkdirSync(shop);
  run(["npm", "init", "-y"], shop);
  expect(JSON.parse(readFileSync(join(shop, "package.json"), "utf8")).type ?? "commonjs").toBe("commonjs");
  run(["npm", "install", "--offline", "--no-audit", "--no-fund", join(work, packed)], shop);
  // A signed request the gateway verifies (an unknown order is 40108 only after the signature passed).
  writeFileSync(
    join(shop, "check.ts"),
    [
      'import { ApiError, StablegateClient, signCallback, verifyCallback } from "@stablegate/sdk";',
      "const client = new StablegateClient({ baseUrl: process.env.STABLEGATE_URL!, merchantUid: process.env.STABLEGATE_MERCHANT_UID!, apiKey: process.env.STABLEGATE_API_KEY! });",
      "client.getPayinOrder(\"PI0\").catch((e: unknown) => {",
      "  if (!(e instanceof ApiError)) throw e;",
      '  const body = Buffer.from("{}");',
      '  const headers = { "x-callback-timestamp": "1700000000000", "x-callback-nonce": "n1", "x-callback-signature": signCallback("k", "1700000000000", "n1", body) };',
      "  console.log(`${e.code} ${verifyCallback(body, headers, \"k\")}`);",
      "});",
      "",
    ].join("\n"),
  );
  writeFileSync(join(shop, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: ["node"], strict: true }, files: ["check.ts"] }));
  run(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", ".", "--typeRoots", join(ROOT, "node_modules/@types")], shop);
  expect(readFileSync(join(shop, "check.js"), "utf8")).toContain('require("@stablegate/sdk")');
  const env = { ...process.env, STABLEGATE_URL: gw.url, STABLEGATE_MERCHANT_UID: gw.merchant.uid, STABLEGATE_API_KEY: gw.merchant.apiKey };
  // Spawned, not spawnSync: the gateway answering it runs in this process.
  for (const cmd of [["node", "check.js"], ["node", "-e", 'require("./check.js")']]) {
    const proc = Bun.spawn(cmd, { cwd: shop, env, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(out.trim()).toBe("40108 true");
  }
}, 120_000);
