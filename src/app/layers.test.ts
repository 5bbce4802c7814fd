// Layering rules, read from the import statements themselves:
// - only the HTTP layer (src/http/) and the composition root (src/app/) import src/http/;
// - the domain folders form no import cycle at folder level;
// - nothing outside src/chains/ branches on a chain code: it asks the chain's module;
// - services declare the narrow dependencies they use: src/app/ (the composition root, app/context.ts)
//   is imported only by the entry points (main.ts, the CLI, test harnesses) and tests.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { CHAIN_CODES } from "../chains/types";

const SRC = resolve(import.meta.dir, "..");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|tsx)$/.test(name)) out.push(p);
  }
  return out;
}

/** Relative import specifiers of a file (static imports, re-exports, dynamic imports and require). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*["'](\.[^"']*)["']/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*["'](\.[^"']*)["']/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/import\(\s*["'](\.[^"']*)["']\s*\)/g)) specs.push(m[1]!);
  // Lazily loaded modules (a chain's rpc adapter, src/chains/*/index.ts) are edges too.
  for (const m of text.matchAll(/\brequire\(\s*["'](\.[^"']*)["']\s*\)/g)) specs.push(m[1]!);
  return specs;
}

/** The top folder under src/ a path belongs to ("" for files directly in src/). */
function folderOf(absPath: string): string {
  const rel = relative(SRC, absPath);
  const parts = rel.split("/");
  return parts.length > 1 ? parts[0]! : "";
}

const files = sourceFiles(SRC);
const edges = files.flatMap((f) => importsOf(f).map((spec) => ({ from: f, to: resolve(dirname(f), spec) })));

/**
 * Folders that may import src/http/: the HTTP layer itself, the composition root, and the back
 * office, which is the other presentation layer (its lazily loaded pages sit on http/app.ts's base app).
 */
const HTTP_USERS = new Set(["http", "app", "backoffice"]);

/**
 * The domain folders: the layers below HTTP. A folder-level cycle among them
 * means two concepts cannot be understood (or tested) apart.
 */
const DOMAIN = ["compat", "invoices", "rates", "payin", "payout", "callbacks", "restore", "merchants", "watcher", "audit", "treasury", "orders", "checkout", "auth", "jobs", "sandbox", "ops", "wallet", "chains", "db", "lib", "config", "secrets"];

/**
 * Where chain codes may be spelled out: the chain layer, tests and test fixtures, the config
 * schema (DESIGN 3 names the chains.<CODE> sections), and the SDK (a separate package that may
 * not import server code).
 */
const CHAIN_LITERALS_ALLOWED = (rel: string) => /^(chains|testing|sdk)\//.test(rel) || /\.test\.tsx?$/.test(rel) || rel === "config/schema.ts";
const CODE = `(?:${CHAIN_CODES.join("|")})`;
const QUOTED = `["'\`]${CODE}["'\`]`;
/** What branching on a chain looks like in code. */
const CHAIN_LITERAL_RULES: [string, RegExp][] = [
  ["compares with a chain code", new RegExp(`[!=]==?\\s*${QUOTED}|${QUOTED}\\s*[!=]==?`)],
  ["case on a chain code", new RegExp(`\\bcase\\s+${QUOTED}`)],
  ["map keyed by chain code", new RegExp(`[{,]\\s*["']?${CODE}["']?\\s*:\\s*[^\\s/]`)],
  ["list of chain codes", new RegExp(`${QUOTED}\\s*,\\s*${QUOTED}`)],
];

/** A file's lines with comments blanked (they may name chains), line numbers kept. */
function codeLines(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ""))
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1")
    .split("\n");
}

describe("layers", () => {
  test("no domain file imports src/http/ (only src/http/, src/app/ and the back office do)", () => {
    const offenders = edges
      .filter((e) => !HTTP_USERS.has(folderOf(e.from)) && folderOf(e.to) === "http")
      .map((e) => `${relative(SRC, e.from)} -> ${relative(SRC, e.to)}`);
    expect(offenders).toEqual([]);
  });

  test("the watcher knows transfers, not pay-ins: nothing in src/watcher/ (tests aside) imports src/payin/", () => {
    const offenders = edges
      .filter((e) => folderOf(e.from) === "watcher" && !/\.test\.tsx?$/.test(e.from) && folderOf(e.to) === "payin")
      .map((e) => `${relative(SRC, e.from)} -> ${relative(SRC, e.to)}`);
    expect(offenders).toEqual([]);
  });

  test("only the entry points (src/main.ts, src/cli/, src/testing/; tests aside) import src/app/: services take narrow deps, not the app context", () => {
    const offenders = edges
      .filter((e) => !["app", "cli", "testing"].includes(folderOf(e.from)) && relative(SRC, e.from) !== "main.ts" && !/\.test\.tsx?$/.test(e.from) && folderOf(e.to) === "app")
      .map((e) => `${relative(SRC, e.from)} -> ${relative(SRC, e.to)}`);
    expect(offenders).toEqual([]);
  });

  test("no folder-level import cycles among the domain folders", () => {
    const graph = new Map<string, Set<string>>(DOMAIN.map((d) => [d, new Set()]));
    // Tests are leaves: a test may assemble several modules without making their folders depend on each other.
    const code = edges.filter((e) => !/\.test\.tsx?$/.test(e.from));
    for (const e of code) {
      const a = folderOf(e.from);
      const b = folderOf(e.to);
      if (a !== b && graph.has(a) && graph.has(b)) graph.get(a)!.add(b);
    }
    // Strongly connected components (Tarjan): each with more than one folder is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const sccs: string[][] = [];
    let i = 0;
    const visit = (v: string) => {
      index.set(v, i);
      low.set(v, i++);
      stack.push(v);
      on.add(v);
      for (const w of graph.get(v)!) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const c: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          on.delete(w);
          c.push(w);
        } while (w !== v);
        if (c.length > 1) sccs.push(c.sort());
      }
    };
    for (const v of graph.keys()) if (!index.has(v)) visit(v);
    // Print the edges inside each cycle so a failure says what to cut.
    const detail = sccs.map((c) => {
      const inside = code.filter((e) => c.includes(folderOf(e.from)) && c.includes(folderOf(e.to)) && folderOf(e.from) !== folderOf(e.to));
      return `${c.join(",")}:\n  ` + inside.map((e) => `${relative(SRC, e.from)} -> ${relative(SRC, e.to)}`).join("\n  ");
    });
    expect(detail).toEqual([]);
  });

  test("nothing outside src/chains/ branches on a chain code: no comparison, case, keyed map or list of chain codes", () => {
    const offenders: string[] = [];
    for (const f of files) {
      const rel = relative(SRC, f);
      if (CHAIN_LITERALS_ALLOWED(rel)) continue;
      codeLines(readFileSync(f, "utf8")).forEach((line, i) => {
        for (const [what, re] of CHAIN_LITERAL_RULES) if (re.test(line)) offenders.push(`${rel}:${i + 1} ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  test("the chain-literal rules catch what they are meant to catch (so the test above cannot pass by matching nothing)", () => {
    const hit = (l: string) => CHAIN_LITERAL_RULES.some(([, re]) => re.test(l));
    const bad = [`if (chain === "BSC") x();`, `case 'TRON':`, `const N = { TRON: "TRX", BSC: "BNB" };`, `["TRON", "BSC", "SOL"]`, `"SOL" !== c`];
    const good = [`if (chain === other) x();`, `const s = "TRON (TRC20)";`, `chainModule(c).native.symbol`, `// e.g. chain === "BSC"`];
    expect(bad.filter((l) => !hit(l))).toEqual([]);
    expect(good.filter((l) => codeLines(l).some(hit))).toEqual([]);
  });
});

// tsconfig's jsxImportSource is read from the working directory's project only: a gateway started
// from elsewhere (`bun /opt/stablegate/src/main.ts`) rendered pages with React's runtime and
// answered 500. The pragma travels with the file.
test("every .tsx file names its JSX runtime itself", () => {
  const missing = files.filter((f) => f.endsWith(".tsx") && !readFileSync(f, "utf8").startsWith("/** @jsxImportSource @kitajs/html */"));
  expect(missing.map((f) => relative(SRC, f))).toEqual([]);
});
