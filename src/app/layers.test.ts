// Layering rules, read from the import statements themselves:
// - every folder in src/ has a rank (RANKS below); a file imports (at run time or for types) only
//   from its own folder or from a folder of lower rank, so no folder-level cycle can form;
// - no runtime import cycle between files (type-only imports aside): modules load in one order;
// - only the HTTP layer (src/http/), the back office and the composition root (src/app/) import src/http/;
// - nothing outside src/chains/ branches on a chain code: it asks the chain's module;
// - services declare the narrow dependencies they use: src/app/ (the composition root, app/context.ts)
//   is imported only by the entry points (main.ts, the CLI, test harnesses) and tests.
// Each rule is a function over sources ({ rel, text }), run on the real tree and, in "the rules
// bite", on synthetic sources that break it.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative, resolve } from "node:path";
import * as ts from "typescript";
import { chainModules } from "../chains/registry";
import { parseRanks } from "../../scripts/gen-architecture-ranks";

const SRC = resolve(import.meta.dir, "..");

/**
 * The rank of every folder in src/ (and of the files directly in it). A file may import only
 * from its own folder or a folder of LOWER rank; folders of equal rank do not import each
 * other. A new folder gets a rank here before its first import is allowed.
 */
export const RANKS: Readonly<Record<string, number>> = {
  // 0: leaves: no imports of other src/ folders. The SDK is a separate package.
  types: 0, vendor: 0, sdk: 0, "errors.ts": 0, "version.ts": 0,
  // 1: the library: clock, money, logging (its validation throws the error catalog's errors);
  // the locales and the coded texts' words in each (i18n/: both presentation layers read them).
  lib: 1, i18n: 1,
  // 2: storage: the schema, migrations, transactions.
  db: 2,
  // 3: the audit log and the cipher: below every domain that records or encrypts; the cluster roles
  // (leader election, epoch fence, leases, notifications: DESIGN 22), below every job they gate.
  audit: 3, secrets: 3, cluster: 3,
  // 4: the chain layer (imports only db/ and lib/) and merchants; neither imports the other;
  // one-time form tokens (db/ and the cipher), under both presentation layers.
  chains: 4, merchants: 4, once: 4,
  // 5: what reads the chain modules or merchants: config sections, HD wallet, API-key auth; the job loop.
  config: 5, wallet: 5, auth: 5, jobs: 5,
  // 6: rates, order rules, the callback outbox, the watcher, restore.
  rates: 6, orders: 6, callbacks: 6, watcher: 6, restore: 6,
  // 7: invoices, payouts, backups.
  invoices: 7, payout: 7, backup: 7,
  // 8: pay-ins (follow invoices), treasury (batches of payouts), operations (readiness, alerts).
  payin: 8, treasury: 8, ops: 8,
  // 9: presentation: the merchant API, the hosted checkout, the shop-plugin protocols (epusdt, EPay).
  http: 9, checkout: 9, compat: 9,
  // 10: the back office (the other presentation layer; its pages sit on http/app.ts).
  backoffice: 10,
  // 11: the composition root.
  app: 11,
  // 12: entry points and test harnesses.
  cli: 12, testing: 12,
  // 13: the process's entry point.
  "main.ts": 13,
};

/** The domain folders (everything ranked below the presentation layers). */
const DOMAIN = Object.keys(RANKS).filter((k) => !k.endsWith(".ts") && RANKS[k]! < RANKS.http!);

export interface Source {
  /** Path relative to src/, posix separators. */
  rel: string;
  text: string;
}

export interface ImportEdge {
  from: string;
  /** The resolved target, relative to src/ (a file when one of the sources matches, else the bare path). */
  to: string;
  /** `import type` / `export type`, or every named specifier marked `type`: erased at run time. */
  typeOnly: boolean;
}

const isTest = (rel: string) => /\.test\.tsx?$/.test(rel);

/** The top folder under src/ a path belongs to (the file name for files directly in src/). */
export function unitOf(rel: string): string {
  return rel.split("/")[0]!;
}

function typeOnlyClause(head: string | undefined, clause: string): boolean {
  if (head) return true;
  const m = /^\s*\{([^}]*)\}\s*$/.exec(clause);
  if (!m) return false;
  const names = m[1]!.split(",").map((s) => s.trim()).filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith("type "));
}

/** Relative imports of each source (static imports, re-exports, dynamic imports and require), resolved against the sources. */
export function importEdges(sources: Source[]): ImportEdge[] {
  const known = new Set(sources.map((s) => s.rel));
  const resolveTo = (from: string, spec: string) => {
    const base = posix.normalize(posix.join(posix.dirname(from), spec));
    for (const cand of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) if (known.has(cand)) return cand;
    return base;
  };
  const out: ImportEdge[] = [];
  for (const { rel, text } of sources) {
    const add = (spec: string, typeOnly: boolean) => out.push({ from: rel, to: resolveTo(rel, spec), typeOnly });
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b(\s+type\b)?([^;'"]*?)from\s*["'](\.[^"']*)["']/g)) add(m[3]!, typeOnlyClause(m[1], m[2]!));
    for (const m of text.matchAll(/(?:^|\n)\s*import\s*["'](\.[^"']*)["']/g)) add(m[1]!, false);
    for (const m of text.matchAll(/import\(\s*["'](\.[^"']*)["']\s*\)/g)) add(m[1]!, false);
    // Lazily loaded modules (a chain's rpc adapter, src/chains/*/index.ts) are edges too.
    for (const m of text.matchAll(/\brequire\(\s*["'](\.[^"']*)["']\s*\)/g)) add(m[1]!, false);
  }
  return out;
}

/** Folders (and root files) with no rank: a new folder must be placed in RANKS first. */
export function unranked(sources: Source[], ranks = RANKS): string[] {
  const units = new Set(sources.filter((s) => !isTest(s.rel)).map((s) => unitOf(s.rel)));
  return [...units]
    .filter((u) => !(u in ranks))
    .sort()
    .map((u) => `src/${u}${u.includes(".") ? "" : "/"} has no rank: add it to RANKS in src/app/layers.test.ts (a folder imports only folders of lower rank)`);
}

/** Imports that go up or sideways in the rank table (tests aside: they may assemble anything). */
export function rankViolations(sources: Source[], ranks = RANKS): string[] {
  return importEdges(sources)
    .filter((e) => !isTest(e.from) && !e.to.startsWith("..") && unitOf(e.from) !== unitOf(e.to))
    .filter((e) => {
      const a = ranks[unitOf(e.from)];
      const b = ranks[unitOf(e.to)];
      return a !== undefined && b !== undefined && b >= a;
    })
    .map((e) => `${e.from} -> ${e.to}${e.typeOnly ? " (type)" : ""}: ${unitOf(e.from)} (rank ${ranks[unitOf(e.from)]}) may import only lower ranks, ${unitOf(e.to)} is ${ranks[unitOf(e.to)]}`);
}

/** Strongly connected components with more than one node (Tarjan). */
function cycles(nodes: Iterable<string>, next: (n: string) => Iterable<string>): string[][] {
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
    for (const w of next(v)) {
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
  for (const v of nodes) if (!index.has(v)) visit(v);
  return sccs;
}

/** Runtime import cycles between files (type-only imports are erased, so they make none), with the edges inside each. */
export function runtimeCycles(sources: Source[]): string[] {
  const graph = new Map<string, Set<string>>(sources.map((s) => [s.rel, new Set()]));
  const runtime = importEdges(sources).filter((e) => !e.typeOnly && graph.has(e.to));
  for (const e of runtime) graph.get(e.from)!.add(e.to);
  return cycles(graph.keys(), (n) => graph.get(n)!).map((c) => {
    const inside = runtime.filter((e) => c.includes(e.from) && c.includes(e.to));
    return `${c.join(" <-> ")}:\n  ` + inside.map((e) => `${e.from} -> ${e.to}`).join("\n  ");
  });
}

/** Folder-level cycles among `folders` (tests are leaves: a test may assemble several modules). */
export function folderCycles(sources: Source[], folders: string[]): string[] {
  const graph = new Map<string, Set<string>>(folders.map((d) => [d, new Set()]));
  const code = importEdges(sources).filter((e) => !isTest(e.from));
  for (const e of code) {
    const a = unitOf(e.from);
    const b = unitOf(e.to);
    if (a !== b && graph.has(a) && graph.has(b)) graph.get(a)!.add(b);
  }
  // Print the edges inside each cycle so a failure says what to cut.
  return cycles(graph.keys(), (n) => graph.get(n)!).map((c) => {
    const inside = code.filter((e) => c.includes(unitOf(e.from)) && c.includes(unitOf(e.to)) && unitOf(e.from) !== unitOf(e.to));
    return `${c.join(",")}:\n  ` + inside.map((e) => `${e.from} -> ${e.to}`).join("\n  ");
  });
}

/**
 * Where chain codes may be spelled out: the chain layer, tests and test fixtures, the config
 * schema (DESIGN 3 names the chains.<CODE> sections), and the SDK (a separate package that may
 * not import server code).
 */
const CHAIN_LITERALS_ALLOWED = (rel: string) => /^(chains|testing|sdk)\//.test(rel) || isTest(rel) || rel === "config/schema.ts";
/** The product's chains, from the registry (the one list), plus every code a module could plausibly take. */
const CODE = `(?:${chainModules().map((m) => m.code).join("|")})`;
const QUOTED = `["'\`]${CODE}["'\`]`;
/** What branching on a chain looks like in code. */
export const CHAIN_LITERAL_RULES: [string, RegExp][] = [
  ["compares with a chain code", new RegExp(`[!=]==?\\s*${QUOTED}|${QUOTED}\\s*[!=]==?`)],
  ["case on a chain code", new RegExp(`\\bcase\\s+${QUOTED}`)],
  ["map keyed by chain code", new RegExp(`[{,]\\s*["']?${CODE}["']?\\s*:\\s*[^\\s/]`)],
  ["list of chain codes", new RegExp(`${QUOTED}\\s*,\\s*${QUOTED}`)],
  // new Map([["BSC", 1n]]), ["SOL"].includes(c), x["TRON"]: a tuple, list or index led by a chain code.
  ["list, tuple or index led by a chain code", new RegExp(`\\[\\s*${QUOTED}\\s*[,\\]]`)],
  ["membership test on a chain code", new RegExp(`\\.(?:includes|has|indexOf)\\(\\s*${QUOTED}\\s*\\)`)],
];

/** A file's lines with comments blanked (they may name chains), line numbers kept. */
function codeLines(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ""))
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1")
    .split("\n");
}

export function chainLiterals(sources: Source[]): string[] {
  const offenders: string[] = [];
  for (const { rel, text } of sources) {
    if (CHAIN_LITERALS_ALLOWED(rel)) continue;
    codeLines(text).forEach((line, i) => {
      for (const [what, re] of CHAIN_LITERAL_RULES) if (re.test(line)) offenders.push(`${rel}:${i + 1} ${what}: ${line.trim().slice(0, 120)}`);
    });
  }
  return offenders;
}

/** Chain-layer files (tests aside) that read the payout table themselves instead of through the PayoutStore port. */
export function payoutTableReaders(sources: Source[]): string[] {
  return sources
    .filter((s) => s.rel.startsWith("chains/") && !isTest(s.rel))
    .filter((s) => /import\s*\{[^}]*\bpayoutOrders\b[^}]*\}\s*from\s*["'][./]*db\/schema["']/.test(s.text) || /\bpayout_orders\b/.test(codeLines(s.text).join("\n")))
    .map((s) => s.rel);
}

/**
 * Where SQL may live (one data-access style, docs/architecture.md "Data access"): the storage layer,
 * a domain's storage module (`<domain>/store.ts`, or `<domain>/<what-it-holds>-store.ts` when a
 * domain has several, as `payin/orders-store.ts`; also a chain module's `chains/<chain>/store.ts`),
 * and the read models the data access section names (query modules of their own). A service, job,
 * page or command builds no statement and imports no table at run time: it calls a store.
 */
/** A storage module by its name: `store.ts`, or `<what-it-holds>-store.ts` (lower-case words joined by hyphens); its PostgreSQL side `….pg.ts` beside it. */
export const STORE_FILE = /(^|\/)([a-z]+-)*store(\.pg)?\.ts$/;
export const READ_MODELS: readonly string[] = ["orders/id-at.ts", "payin/wallet-stats.ts", "invoices/list.ts"];
export const RAW_SQL_ALLOWED = (rel: string) =>
  /^db\//.test(rel) || STORE_FILE.test(rel) || /^backoffice\/queries\//.test(rel) || READ_MODELS.includes(rel) || isTest(rel) || /^testing\//.test(rel);

/** What data access outside a store looks like: a raw statement, raw SQL run through drizzle, a table imported at run time. */
const RAW_CLIENT = /\$client\s*\.\s*(?:prepare|query|run|exec)\b/g;
const RAW_ALIAS = /=\s*[\w.]*\.\$client\s*;/g;
const RAW_DRIZZLE = /\.\s*(?:run|all|get|values)\s*\(\s*sql\s*`/g;
const TABLE_IMPORT = /(?:^|\n)\s*import\b(\s+type\b)?([^;'"]*?)from\s*["'][./]*db\/schema["']/g;

/** Files outside the storage modules that build a statement or import a table to query. */
export function rawStatements(sources: Source[]): string[] {
  const out: string[] = [];
  for (const { rel, text } of sources) {
    if (RAW_SQL_ALLOWED(rel)) continue;
    const code = codeLines(text).join("\n");
    const lineOf = (i: number) => code.slice(0, i).split("\n").length;
    for (const m of code.matchAll(RAW_CLIENT)) out.push(`${rel}:${lineOf(m.index!)} builds a raw statement: move it into the domain's store.ts`);
    for (const m of code.matchAll(RAW_ALIAS)) out.push(`${rel}:${lineOf(m.index!)} takes the raw connection: move its statements into the domain's store.ts`);
    for (const m of code.matchAll(RAW_DRIZZLE)) out.push(`${rel}:${lineOf(m.index!)} runs raw SQL: move it into the domain's store.ts`);
    for (const m of code.matchAll(TABLE_IMPORT)) {
      if (typeOnlyClause(m[1], m[2]!)) continue;
      out.push(`${rel}:${lineOf(m.index! + m[0].search(/import/))} imports a table to query it: call the domain's store.ts`);
    }
  }
  return out;
}

/**
 * The async storage seam (DESIGN 22): every exported function of a storage module that takes a
 * database handle, and every member of an exported object that does (a port's implementation,
 * `payout/store.ts` `payoutStore`), returns a promise (async, or annotated Promise<…>), so nothing above the
 * stores depends on a synchronous engine. Not stores in this sense: the transaction machinery
 * itself (db/client.ts, db/group-commit.ts: handles, statements, hooks), a factory that binds
 * statements to a connection and returns async closures (each closure is checked instead), and
 * a query builder another store composes and runs (BUILDERS).
 */
export const STORE_EXEMPT_FILES = ["db/client.ts", "db/group-commit.ts", "db/after-commit.ts", "db/write-lock.ts", "db/engine.ts", "db/tx-pg.ts"];
export const BUILDERS = ["backoffice/queries/lists.ts:depositRows", "payout/balances-store.ts:fundedAddressesQuery"];
const HANDLE_TYPE = /\b(Db|Tx|DbOrTx)\b/;
export function syncStoreFunctions(sources: Source[]): string[] {
  const out: string[] = [];
  const isAsync = (fn: ts.SignatureDeclaration) =>
    !!(ts.canHaveModifiers(fn) && ts.getModifiers(fn)?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) || (!!fn.type && /^Promise</.test(fn.type.getText()));
  const isFn = (e: ts.Node | undefined): e is ts.ArrowFunction | ts.FunctionExpression => !!e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
  const strip = (e: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) ? strip(e.expression) : e);
  for (const { rel, text } of sources) {
    if (!RAW_SQL_ALLOWED(rel) || isTest(rel) || rel.startsWith("testing/") || STORE_EXEMPT_FILES.includes(rel) || !/\.tsx?$/.test(rel)) continue;
    const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true);
    const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
    for (const st of sf.statements) {
      if (!(ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))) continue;
      const fns: Array<[string, ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression]> = [];
      if (ts.isFunctionDeclaration(st) && st.name && st.body) fns.push([st.name.text, st]);
      if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (isFn(d.initializer)) fns.push([d.name.getText(), d.initializer]);
      // An exported object of store functions (`export const payoutStore: PayoutStore = { finished: (db, ids) => … }`):
      // each member whose first parameter is a handle (typed Db/Tx/DbOrTx, or untyped and named db/tx: its type comes from the interface).
      if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations) {
          const o = d.initializer && strip(d.initializer);
          if (!o || !ts.isObjectLiteralExpression(o)) continue;
          for (const p of o.properties) {
            const m = ts.isPropertyAssignment(p) && isFn(p.initializer) ? p.initializer : ts.isMethodDeclaration(p) ? p : undefined;
            const first = m?.parameters[0];
            if (!m || !first || !(first.type ? HANDLE_TYPE.test(first.type.getText()) : /^(db|tx)$/.test(first.name.getText())) || isAsync(m)) continue;
            out.push(`${rel}:${line(m)} ${d.name.getText()}.${p.name!.getText()} takes a database handle and does not return a promise: make it async (stores return promises)`);
          }
        }
      for (const [name, fn] of fns) {
        if (!fn.parameters.some((p) => p.type && HANDLE_TYPE.test(p.type.getText())) || isAsync(fn) || BUILDERS.includes(`${rel}:${name}`)) continue;
        // A factory: what it returns (an object of closures, or a closure) is what must be async.
        const returned: ts.Expression[] = [];
        if (fn.body && !ts.isBlock(fn.body)) returned.push(fn.body);
        else if (fn.body) fn.body.forEachChild(function walk(n): void {
          if (ts.isReturnStatement(n) && n.expression) returned.push(n.expression);
          if (!isFn(n) && !ts.isFunctionDeclaration(n)) n.forEachChild(walk);
        });
        const inner = returned.map(strip).flatMap((e): ts.SignatureDeclaration[] =>
          ts.isObjectLiteralExpression(e) ? e.properties.flatMap((p): ts.SignatureDeclaration[] => (ts.isPropertyAssignment(p) && isFn(p.initializer) ? [p.initializer] : ts.isMethodDeclaration(p) ? [p] : [])) : isFn(e) ? [e] : [],
        );
        if (inner.length && inner.length >= returned.length) {
          for (const c of inner) if (!isAsync(c)) out.push(`${rel}:${line(c)} ${name} returns a synchronous closure: make it async (stores return promises)`);
        } else out.push(`${rel}:${line(fn)} ${name} takes a database handle and does not return a promise: make it async (stores return promises)`);
      }
    }
  }
  return out;
}

/** Back-office page and view files (tests aside): the components there render props, the route handlers load. */
const isPageFile = (rel: string) => /^backoffice\/(pages|views)\//.test(rel) && !isTest(rel);
/** What querying looks like: a db handle, the back office's deps (which hold one), drizzle, a table of the schema. */
const DB_HANDLE = /\bBackofficeDeps\b|\bBackofficeCtx\b|\bDb\b|\.db\b|\$client\b|\bwriteTx\b|\bd\.ctx\b/;

/**
 * Pages that query inside render: in src/backoffice/pages/ and views/, an import of drizzle or of the
 * schema (queries live in backoffice/queries/ or the domain's store), or a component (a top-level
 * function or const named with a capital) that takes or touches a db handle or the BackofficeDeps.
 * The route handlers (`xxxRoutes`) and their loaders (`loadX`) call the queries and hand the
 * component plain props.
 */
export function pagesThatQuery(sources: Source[]): string[] {
  const out: string[] = [];
  for (const { rel, text } of sources.filter((s) => isPageFile(s.rel))) {
    const lines = codeLines(text);
    // A type-only import of a row type carries no query; a value import of drizzle or a table does.
    for (const m of lines.join("\n").matchAll(/(?:^|\n)\s*import\b(\s+type\b)?([^;'"]*?)from\s*["'](?:drizzle-orm[^"']*|[./]*db\/schema)["']/g)) {
      if (typeOnlyClause(m[1], m[2]!)) continue;
      const line = lines.join("\n").slice(0, m.index! + m[0].search(/import/)).split("\n").length;
      out.push(`${rel}:${line} imports drizzle or the schema: query in a loader (backoffice/queries/ or the domain's store)`);
    }
    // Top-level declarations: each runs from its first line to the next top-level declaration.
    const starts = lines.flatMap((l, i) => {
      const m = /^(?:export\s+)?(?:async\s+)?(?:function\s+|const\s+)([A-Za-z_$][\w$]*)/.exec(l);
      return m ? [{ i, name: m[1]! }] : [];
    });
    starts.forEach(({ i, name }, k) => {
      if (!/^[A-Z][a-z]/.test(name)) return;
      const end = k + 1 < starts.length ? starts[k + 1]!.i : lines.length;
      for (let j = i; j < end; j++) {
        if (DB_HANDLE.test(lines[j]!)) {
          out.push(`${rel}:${j + 1} component ${name} takes or touches a db handle: load in the route handler, pass props`);
          break;
        }
      }
    });
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== "dist" && name !== "node_modules") out.push(...sourceFiles(p));
    } else if (/\.(ts|tsx)$/.test(name)) out.push(p);
  }
  return out;
}

const sources: Source[] = sourceFiles(SRC).map((f) => ({ rel: relative(SRC, f).split("\\").join("/"), text: readFileSync(f, "utf8") }));
const edges = importEdges(sources);

describe("layers", () => {
  test("every folder in src/ has a rank", () => {
    expect(unranked(sources)).toEqual([]);
  });

  test("imports go down the rank table (a folder imports only folders of lower rank)", () => {
    expect(rankViolations(sources)).toEqual([]);
  });

  test("no runtime import cycle between files (type-only imports aside)", () => {
    expect(runtimeCycles(sources)).toEqual([]);
  });

  test("the domain list is the real folders below the presentation layers", () => {
    const folders = new Set(sources.filter((s) => s.rel.includes("/")).map((s) => unitOf(s.rel)));
    expect(DOMAIN.filter((d) => !folders.has(d))).toEqual([]);
    expect(DOMAIN).toContain("chains");
    expect(DOMAIN).not.toContain("backoffice");
  });

  test("no domain file imports src/http/ (only src/http/, src/app/ and the back office do)", () => {
    const HTTP_USERS = new Set(["http", "app", "backoffice"]);
    const offenders = edges.filter((e) => !HTTP_USERS.has(unitOf(e.from)) && unitOf(e.to) === "http").map((e) => `${e.from} -> ${e.to}`);
    expect(offenders).toEqual([]);
  });

  test("the watcher knows transfers, not pay-ins: nothing in src/watcher/ (tests aside) imports src/payin/", () => {
    const offenders = edges.filter((e) => unitOf(e.from) === "watcher" && !isTest(e.from) && unitOf(e.to) === "payin").map((e) => `${e.from} -> ${e.to}`);
    expect(offenders).toEqual([]);
  });

  test("only the entry points (src/main.ts, src/cli/, src/testing/; tests aside) import src/app/: services take narrow deps, not the app context", () => {
    const offenders = edges
      .filter((e) => !["app", "cli", "testing", "main.ts"].includes(unitOf(e.from)) && !isTest(e.from) && unitOf(e.to) === "app")
      .map((e) => `${e.from} -> ${e.to}`);
    expect(offenders).toEqual([]);
  });

  test("the chain layer reads payout orders only through the PayoutStore port (no payout_orders query, no copied payout statuses)", () => {
    expect(payoutTableReaders(sources)).toEqual([]);
  });

  test("one data-access style: statements are built and tables imported only in storage modules (db/, <domain>/store.ts, backoffice/queries/, the read models)", () => {
    expect(rawStatements(sources)).toEqual([]);
  });

  test("no sync store call: every exported function (or exported object member) of a storage module that takes a database handle returns a promise", () => {
    expect(syncStoreFunctions(sources)).toEqual([]);
  });

  test("back-office pages get props: no component in pages/ or views/ takes a db handle, no page imports drizzle or the schema", () => {
    expect(pagesThatQuery(sources)).toEqual([]);
  });

  test("no folder-level import cycles among the domain folders", () => {
    expect(folderCycles(sources, DOMAIN)).toEqual([]);
  });

  test("nothing outside src/chains/ branches on a chain code: no comparison, case, keyed map or list of chain codes", () => {
    expect(chainLiterals(sources)).toEqual([]);
  });

  test("the chain-literal rules catch what they are meant to catch (so the test above cannot pass by matching nothing)", () => {
    const hit = (l: string) => CHAIN_LITERAL_RULES.some(([, re]) => re.test(l));
    const bad = [`if (chain === "BSC") x();`, `case 'TRON':`, `const N = { TRON: "TRX", BSC: "BNB" };`, `["TRON", "BSC", "SOL"]`, `"SOL" !== c`, `new Map([["BSC", 1n]])`, `if (["SOL"].includes(c)) x();`, `chains.includes("TRON")`];
    const good = [`if (chain === other) x();`, `const s = "TRON (TRC20)";`, `chainModule(c).native.symbol`, `// e.g. chain === "BSC"`, `const m = new Map([[code, 1n]]);`];
    expect(bad.filter((l) => !hit(l))).toEqual([]);
    expect(good.filter((l) => codeLines(l).some(hit))).toEqual([]);
  });
});

// Each rule on synthetic sources that break it: the rule must report them (and pass a clean tree).
describe("the rules bite", () => {
  const clean: Source[] = [
    { rel: "chains/types.ts", text: `export type ChainCode = string;\n` },
    { rel: "chains/registry.ts", text: `import type { ChainCode } from "./types";\nexport const x = 1;\n` },
    { rel: "audit/log.ts", text: `import { db } from "../db/client";\n` },
    { rel: "db/client.ts", text: `export const db = 1;\n` },
    { rel: "backoffice/routes.tsx", text: `import { transition } from "../payin/state";\n` },
    { rel: "payin/state.ts", text: `import type { Db } from "../db/client";\nexport const transition = 1;\n` },
  ];

  test("a clean tree passes every rule", () => {
    expect(unranked(clean)).toEqual([]);
    expect(rankViolations(clean)).toEqual([]);
    expect(runtimeCycles(clean)).toEqual([]);
    expect(chainLiterals(clean)).toEqual([]);
  });

  test("rank: audit/ and merchants/ importing chains/types.ts (even for types) are refused", () => {
    const bad: Source[] = [
      ...clean,
      { rel: "audit/log.ts", text: `import type { ChainCode } from "../chains/types";\n` },
      { rel: "merchants/service.ts", text: `import { type ChainCode } from "../chains/types";\n` },
    ];
    const v = rankViolations(bad);
    expect(v.some((l) => l.startsWith("audit/log.ts -> chains/types.ts"))).toBe(true);
    expect(v.some((l) => l.startsWith("merchants/service.ts -> chains/types.ts"))).toBe(true);
    expect(v).toHaveLength(2);
  });

  test("rank: payin/state.ts importing backoffice/routes is refused, and with the way back it is a runtime cycle", () => {
    const bad: Source[] = [...clean.filter((s) => s.rel !== "payin/state.ts"), { rel: "payin/state.ts", text: `import { page } from "../backoffice/routes";\nexport const transition = 1;\n` }];
    expect(rankViolations(bad)).toEqual([expect.stringContaining("payin/state.ts -> backoffice/routes.tsx: payin (rank 8)")]);
    expect(runtimeCycles(bad)).toEqual([expect.stringContaining("backoffice/routes.tsx <-> payin/state.ts")]);
  });

  test("runtime cycle: two chain files importing each other are a cycle; with one side type-only they are not", () => {
    const loop: Source[] = [
      { rel: "chains/registry.ts", text: `import { SandboxChain } from "./sandbox/chain";\n` },
      { rel: "chains/sandbox/chain.ts", text: `import {\n  chainModule,\n} from "../registry";\n` },
    ];
    expect(runtimeCycles(loop)).toEqual([expect.stringContaining("chains/registry.ts <-> chains/sandbox/chain.ts")]);
    const typeOnly: Source[] = [loop[0]!, { rel: "chains/sandbox/chain.ts", text: `import type { Registry } from "../registry";\nimport { type X, type Y } from "../registry";\n` }];
    expect(runtimeCycles(typeOnly)).toEqual([]);
    const lazy: Source[] = [loop[0]!, { rel: "chains/sandbox/chain.ts", text: `const r = require("../registry");\n` }];
    expect(runtimeCycles(lazy)).toHaveLength(1);
  });

  test("chain literals: new Map([[\"BSC\",1n]]) and [\"SOL\"].includes(c) outside src/chains/ are refused; inside it, and in tests, they are allowed", () => {
    const text = `export const fees = new Map([["BSC", 1n]]);\nexport const isSol = (c: string) => ["SOL"].includes(c);\n`;
    const found = chainLiterals([{ rel: "payout/fees.ts", text }, { rel: "chains/fees.ts", text }, { rel: "payout/fees.test.ts", text }]);
    expect(found).toEqual([expect.stringMatching(/^payout\/fees\.ts:1 list, tuple or index led by a chain code/), expect.stringMatching(/^payout\/fees\.ts:2 list, tuple or index led by a chain code/)]);
  });

  test("payout table: a chain file querying payoutOrders or payout_orders is refused; a type import of the row and the port are not", () => {
    const found = payoutTableReaders([
      { rel: "chains/tron/payout-steps.ts", text: `import { and, eq } from "drizzle-orm";\nimport { payoutOrders } from "../../db/schema";\n` },
      { rel: "chains/evm/raw.ts", text: "db.$client.query(`SELECT * FROM payout_orders WHERE status = 'submitted'`);\n" },
      { rel: "chains/payout-steps.ts", text: `import type { payoutOrders } from "../db/schema";\n// payout_orders rows, read through the port\n` },
      { rel: "payout/store.ts", text: `import { payoutOrders } from "../db/schema";\n` },
    ]);
    expect(found).toEqual(["chains/tron/payout-steps.ts", "chains/evm/raw.ts"]);
  });

  test("raw statements: a service building $client.prepare is refused; the same in a store (store.ts or <what>-store.ts), db/ or a test is not", () => {
    const text = `const q = prepared(tx, "x", (d) => d.$client.prepare("SELECT 1"));\n// d.$client.prepare in a comment\n`;
    const found = rawStatements([
      { rel: "payin/service.ts", text },
      { rel: "payin/store.ts", text },
      { rel: "payin/orders-store.ts", text },
      { rel: "watcher/transfers-store.ts", text },
      { rel: "payin/restore.ts", text },
      { rel: "wallet/addresses.ts", text },
      { rel: "wallet/store.ts", text },
      { rel: "db/client.ts", text },
      { rel: "payin/service.test.ts", text },
      { rel: "treasury/batch.ts", text: `db.$client\n  .prepare("DELETE FROM x");\ndb.$client.prepare("SELECT 1").get();\n` },
    ]);
    expect(found).toEqual([
      expect.stringMatching(/^payin\/service\.ts:1 builds a raw statement/),
      expect.stringMatching(/^payin\/restore\.ts:1 builds a raw statement/),
      expect.stringMatching(/^wallet\/addresses\.ts:1 builds a raw statement/),
      expect.stringMatching(/^treasury\/batch\.ts:1 builds a raw statement/),
      expect.stringMatching(/^treasury\/batch\.ts:3 builds a raw statement/),
    ]);
  });

  test("one data-access style: a service importing a table, running $client.query/run/exec or db.all(sql`...`) is refused; a type import of a row, a store, a read model and a test are not", () => {
    const service = [
      `import { eq } from "drizzle-orm";`,
      `import { payoutOrders, type merchants } from "../db/schema";`,
      `import type { payinOrders } from "../db/schema";`,
      `import { type transfers } from "../db/schema";`,
      "const r = ctx.db.$client.query(`SELECT 1`).all();",
      `ctx.db.$client.run("DELETE FROM x");`,
      "const n = db.all(sql`SELECT 1`);",
      `db.$client.close();`,
      `const raw = this.ctx.db.$client;`,
    ].join("\n");
    const found = rawStatements([
      { rel: "payout/refunds.ts", text: service },
      { rel: "payout/store.ts", text: service },
      { rel: "chains/tron/store.ts", text: service },
      { rel: "orders/id-at.ts", text: service },
      { rel: "payout/refunds.test.ts", text: service },
    ]);
    expect(found).toEqual([
      expect.stringMatching(/^payout\/refunds\.ts:5 builds a raw statement/),
      expect.stringMatching(/^payout\/refunds\.ts:6 builds a raw statement/),
      expect.stringMatching(/^payout\/refunds\.ts:9 takes the raw connection/),
      expect.stringMatching(/^payout\/refunds\.ts:7 runs raw SQL/),
      expect.stringMatching(/^payout\/refunds\.ts:2 imports a table to query it/),
    ]);
  });

  test("pages get props: a component querying in render (as ExceptionsPage did) or a page importing drizzle is refused; a loader and a props-only component are not", () => {
    const page = [
      `import { eq } from "drizzle-orm";`,
      `import { payinOrders } from "../../db/schema";`,
      `import type { Db } from "../../db/client";`,
      `import type { payinOrders as RowTable } from "../../db/schema";`,
      `export function loadExceptions(d: BackofficeDeps): ExceptionsData {`,
      `  return { frozen: listPayins(d.ctx.db, {}).rows };`,
      `}`,
      `export function ExceptionsPage(p: { d: BackofficeDeps; v: Viewer }): string {`,
      `  const frozen = listPayins(p.d.ctx.db, {}).rows;`,
      `  return <Layout title="Exceptions" />;`,
      `}`,
      `function Held({ orderNo, db }: { orderNo: string; db: Db }) {`,
      `  return <span>{holdWhy(db, orderNo)}</span>;`,
      `}`,
      `const Frozen = (p: { data: ExceptionsData }) => <p>{p.data.frozen.length}</p>;`,
      `export function exceptionsRoutes(d: BackofficeDeps) {`,
      `  return new Elysia().get("/x", page(d, {}, (v) => ExceptionsPage({ v, data: loadExceptions(d) })));`,
      `}`,
    ].join("\n");
    const found = pagesThatQuery([
      { rel: "backoffice/pages/exceptions.tsx", text: page },
      { rel: "backoffice/views/held.tsx", text: `export function Held(p: { db: Db }) {\n  return <b>{p.db.select().get()}</b>;\n}\n` },
      { rel: "backoffice/pages/exceptions.test.ts", text: page },
      { rel: "backoffice/queries/deposits.ts", text: page },
    ]);
    expect(found).toEqual([
      expect.stringMatching(/^backoffice\/pages\/exceptions\.tsx:1 imports drizzle/),
      expect.stringMatching(/^backoffice\/pages\/exceptions\.tsx:2 imports drizzle or the schema/),
      expect.stringMatching(/^backoffice\/pages\/exceptions\.tsx:8 component ExceptionsPage takes or touches a db handle/),
      expect.stringMatching(/^backoffice\/pages\/exceptions\.tsx:12 component Held/),
      expect.stringMatching(/^backoffice\/views\/held\.tsx:1 component Held/),
    ]);
  });

  test("no sync store call: a synchronous store function, factory closure or exported object member is refused; async ones, builders and services are not", () => {
    const found = syncStoreFunctions([
      { rel: "payin/store.ts", text: `export function orderById(db: Db, id: number): Row | undefined {\n  return db.select().get();\n}\nexport async function ok(db: Db) {}\nexport const okToo = (tx: Tx): Promise<number> => Promise.resolve(1);\nexport function pure(row: Row) { return row.id; }\n` },
      { rel: "callbacks/store.ts", text: `export function workerStore(db: Db) {\n  return {\n    due: async () => 1,\n    claim: (id: number) => db.run(),\n  };\n}\n` },
      { rel: "payout/balances-store.ts", text: `export function fundedAddressesQuery(db: Db) {\n  return db.select();\n}\n` },
      { rel: "payin/service.ts", text: `export function credit(db: Db) {\n  return 1;\n}\n` },
      {
        rel: "payout/store.ts",
        text: `export const port: Port = {\n  unsent: (db, id) => db.select().all(),\n  ok: async (db) => 1,\n  typed(tx: Tx, n: number) { return n; },\n  pure: (row) => row.id,\n};\nconst local = { hidden: (db) => 1 };\n`,
      },
    ]);
    expect(found).toEqual([
      expect.stringMatching(/^payin\/store\.ts:1 orderById takes a database handle and does not return a promise/),
      expect.stringMatching(/^callbacks\/store\.ts:4 workerStore returns a synchronous closure/),
      expect.stringMatching(/^payout\/store\.ts:2 port\.unsent takes a database handle and does not return a promise/),
      expect.stringMatching(/^payout\/store\.ts:4 port\.typed takes a database handle/),
    ]);
  });

  test("an unknown new folder fails with a message saying to add it to the rank table", () => {
    const withNew: Source[] = [...clean, { rel: "plugins/epusdt.ts", text: `import { db } from "../db/client";\n` }, { rel: "refunds/service.ts", text: `` }];
    expect(unranked(withNew)).toEqual([
      "src/plugins/ has no rank: add it to RANKS in src/app/layers.test.ts (a folder imports only folders of lower rank)",
      "src/refunds/ has no rank: add it to RANKS in src/app/layers.test.ts (a folder imports only folders of lower rank)",
    ]);
  });

  test("folder cycle: two domain folders importing each other are reported with their edges", () => {
    const loop: Source[] = [
      { rel: "payin/a.ts", text: `import { b } from "../payout/b";\n` },
      { rel: "payout/b.ts", text: `import type { a } from "../payin/a";\n` },
    ];
    expect(folderCycles(loop, ["payin", "payout"])).toEqual(["payin,payout:\n  payin/a.ts -> payout/b.ts\n  payout/b.ts -> payin/a.ts"]);
  });
});

// docs/architecture.md's rank table is generated from RANKS (scripts/gen-architecture-ranks.ts):
// its parser must read every entry of the literal above as the test does.
test("the architecture map's generator reads RANKS entry for entry", () => {
  const parsed = parseRanks(readFileSync(join(SRC, "app/layers.test.ts"), "utf8"));
  expect(Object.fromEntries(parsed.flatMap((r) => r.units.map((u) => [u, r.rank])))).toEqual({ ...RANKS });
  expect(parsed.every((r) => r.what.length > 0)).toBe(true);
});

// tsconfig's jsxImportSource is read from the working directory's project only: a gateway started
// from elsewhere (`bun /opt/stablegate/src/main.ts`) rendered pages with React's runtime and
// answered 500. The pragma travels with the file.
test("every .tsx file names its JSX runtime itself", () => {
  const missing = sources.filter((s) => s.rel.endsWith(".tsx") && !s.text.startsWith("/** @jsxImportSource @kitajs/html */"));
  expect(missing.map((s) => s.rel)).toEqual([]);
});
