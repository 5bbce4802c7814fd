// Test files are named by what they cost (docs/testing.md "Fast tests"): `.test.ts` is pure,
// `.e2e.test.ts` starts a gateway or CLI process or a chain node, `.browser.test.ts` a browser.
// `make test-fast` runs every `.test.ts` minus the other two kinds, so a pure-named file that
// starts one of those would make it slow: this test keeps the names honest.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "./process";

/** The helpers of src/testing that start a process, a chain node or a browser, by module. */
const PROCESS_STARTERS: Readonly<Record<string, readonly string[]>> = {
  "src/testing/process": ["startGatewayProcess", "runCli", "runCliAsync"],
  "src/testing/anvil": ["startAnvil", "shareAnvil"],
  "src/testing/tron-node": ["startTronNode"],
  "src/testing/solana-rpc": ["startSolanaRpc"],
  "src/testing/ton-node": ["TonNode"],
  "src/testing/bsc-fixture": ["startBscFixture"],
  "src/testing/tron-fixture": ["startTronFixture"],
  "src/testing/sol-fixture": ["startSolFixture"],
  "src/testing/chain-fixture": ["startBscChain", "startEvmChain", "startTronChain", "startSolChain", "startTonChain", "chainFixtures"],
  "src/testing/crash": ["crashGateway"],
  "src/testing/php-shop": ["startPhpShop"],
  "src/testing/browser": ["launchBrowser"],
};

/** Value imports (not `import type`) of a file: module path as written -> the names it takes. */
function valueImports(source: string): { from: string; names: string[] }[] {
  const out: { from: string; names: string[] }[] = [];
  for (const m of source.matchAll(/^import\s+(?!type\s)([\s\S]*?)\s+from\s+["']([^"']+)["']/gm)) {
    const clause = m[1]!;
    const braces = clause.match(/\{([\s\S]*)\}/)?.[1] ?? "";
    const names = braces
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s && !s.startsWith("type "))
      .map((s) => s.split(/\s+as\s+/)[0]!.trim());
    out.push({ from: m[2]!, names });
  }
  return out;
}

/** The process-starting helpers a file imports, and a spawn of the gateway itself (src/main.ts). */
function processStarters(file: string, source: string): string[] {
  const found: string[] = [];
  for (const { from, names } of valueImports(source)) {
    if (!from.startsWith(".")) continue;
    const mod = relative(ROOT, resolve(dirname(file), from)).replace(/\.tsx?$/, "");
    for (const n of names) if (PROCESS_STARTERS[mod]?.includes(n)) found.push(n);
  }
  if (/Bun\.spawn(Sync)?\(\s*\[[^\]]*main\.ts/.test(source)) found.push("Bun.spawn of src/main.ts");
  return found;
}

function pureNamedTestFiles(): string[] {
  const files: string[] = [];
  for (const dir of ["src", "scripts"]) {
    for (const f of new Bun.Glob("**/*.test.{ts,tsx}").scanSync({ cwd: join(ROOT, dir) })) {
      if (f.includes("node_modules/") || /\.(e2e|browser)\.test\.tsx?$/.test(f)) continue;
      files.push(join(ROOT, dir, f));
    }
  }
  return files.sort();
}

test("the process-starting helpers are recognised: named imports, renamed ones, type-only imports ignored, a spawn of src/main.ts", () => {
  const here = join(ROOT, "src/payin/x.test.ts");
  expect(processStarters(here, `import { eventually } from "../testing/wait";\nimport { ROOT, tempSetup } from "../testing/process";`)).toEqual([]);
  expect(processStarters(here, `import { ROOT, startGatewayProcess as start } from "../testing/process";`)).toEqual(["startGatewayProcess"]);
  expect(processStarters(here, `import {\n  startTronChain,\n  type ChainFixture,\n} from "../testing/chain-fixture";`)).toEqual(["startTronChain"]);
  expect(processStarters(here, `import type { TonNode } from "../testing/ton-node";`)).toEqual([]);
  expect(processStarters(here, `const p = Bun.spawn([process.execPath, "src/main` + `.ts", "serve"]);`)).toEqual(["Bun.spawn of src/main.ts"]);
});

test("no pure-named .test.ts file starts a gateway/CLI process, a chain node or a browser (name it .e2e.test.ts or .browser.test.ts)", () => {
  const late = pureNamedTestFiles().flatMap((f) => {
    const found = processStarters(f, readFileSync(f, "utf8"));
    return found.length ? [`${relative(ROOT, f)}: ${found.join(", ")}`] : [];
  });
  expect(late).toEqual([]);
});
