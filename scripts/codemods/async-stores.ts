// The async storage seam (issue #37, DESIGN 22) as a codemod: store functions return
// promises, and everything that calls them awaits. Deterministic and idempotent: it reads
// the program once with the type checker, computes the set of functions that become async
// to a fixed point, then applies every edit as a text insertion. Re-run it on a tree that
// gained synchronous code and it converts only that; on a converted tree it changes nothing.
//
//   bun scripts/codemods/async-stores.ts            # rewrite src/ and scripts/
//   bun scripts/codemods/async-stores.ts --dry-run  # print the figures only
//   … --dry-run --list                               # and every call it would await
//
// What it does:
// - seeds: every function of a store module (src/app/layers.test.ts RAW_SQL_ALLOWED: db/,
//   <domain>/store.ts, backoffice/queries/, the read models; tests and the hand-written
//   transaction core aside) that takes a database handle (a parameter with `$client`, or an
//   object with a `db` that has one), the closures that take one returned by a top-level
//   statement factory that does not (treasury/store.ts `runStatements(table)`), plus the core's async functions (writeTx, savepoint,
//   rolledBack, updateById, updateByIdIf, GroupCommit.flush);
// - propagation: a call to a converted function gets `await`; its enclosing function becomes
//   async (an annotated return type `T` becomes `Promise<T>`); functions tied by a type
//   (an object's method and the interface member it implements, a callback and the
//   function-typed parameter it is passed to, a class method and its interface) convert
//   together; a generic pass-through (`timed(name, fn): T`) called with a converted callback
//   is awaited; repeated until nothing changes;
// - array callbacks: `xs.map(async …)` and map/flatMap/forEach/filter/some/every/find/
//   findIndex/reduce become `await mapSeq(xs, …)` … (src/lib/async-seq.ts: sequential, in
//   order, so writes inside a transaction keep their order);
// - tests: `expect(f).toThrow(…)` with a converted `f` becomes
//   `await expect(f()).rejects.toThrow(…)`, `expect(f).not.toThrow()` becomes `await f()`;
// - what it cannot do (a getter, constructor or property initialiser that calls a store,
//   an async callback of a generator or `sort`) is listed as "manual" and left unchanged.
import { Project, ts } from "ts-morph";
import { relative, resolve, dirname } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";

const ROOT = resolve(import.meta.dir, "../..");
const SRC = resolve(ROOT, "src");
const dryRun = process.argv.includes("--dry-run");

// The storage modules as src/app/layers.test.ts names them (RAW_SQL_ALLOWED; read from there,
// since a test file cannot be imported outside the test runner).
const layers = readFileSync(resolve(SRC, "app/layers.test.ts"), "utf8");
const READ_MODELS: string[] = JSON.parse(/READ_MODELS: readonly string\[\] = (\[[^\]]*\])/.exec(layers)![1]!);
const storeFile = /STORE_FILE = \/(.+)\/;/.exec(layers);
const STORE_FILE = storeFile ? new RegExp(storeFile[1]!) : /(^|\/)store\.ts$/;
const RAW_SQL_ALLOWED = (rel: string) =>
  /^db\//.test(rel) || STORE_FILE.test(rel) || /^backoffice\/queries\//.test(rel) || READ_MODELS.includes(rel) || /\.test\.tsx?$/.test(rel) || /^testing\//.test(rel);

/** Hand-written transaction core: never edited here; its async functions seed the conversion. */
const FROZEN = new Set(["db/client.ts", "db/group-commit.ts", "db/after-commit.ts", "db/write-lock.ts", "db/write-lock.test.ts", "lib/async-seq.ts", "db/schema.ts",
  // The PostgreSQL side is written async by hand; the seam's helpers (pgOf, pgState, the
  // handle proxy) are synchronous by design, so they are neither seeds nor edited.
  "db/engine.ts", "db/tx-pg.ts", "db/client-pg.ts", "db/schema-pg.ts"]);
/** A store's PostgreSQL side (`<name>.pg.ts`): async by hand, never a seed, never edited. */
const isPgSide = (rel: string) => /\.pg\.ts$/.test(rel);
const CORE_ASYNC: Record<string, string[]> = {
  "db/client.ts": ["writeTx", "savepoint", "rolledBack", "updateById", "updateByIdIf"],
  "db/group-commit.ts": ["flush"],
};
const SEQ: Record<string, string> = {
  map: "mapSeq", flatMap: "flatMapSeq", forEach: "forEachSeq", filter: "filterSeq", some: "someSeq",
  every: "everySeq", find: "findSeq", findIndex: "findIndexSeq", reduce: "reduceSeq",
};

const project = new Project({ tsConfigFilePath: resolve(ROOT, "tsconfig.json"), skipAddingFilesFromTsConfig: false });
const program = project.getProgram().compilerObject;
const checker = program.getTypeChecker();

const relOf = (f: ts.SourceFile) => relative(SRC, f.fileName).split("\\").join("/");
const inScope = (f: ts.SourceFile) => !f.isDeclarationFile && !f.fileName.includes("/node_modules/") && (f.fileName.startsWith(SRC + "/") || f.fileName.startsWith(resolve(ROOT, "scripts") + "/"));
const editable = (f: ts.SourceFile) => inScope(f) && !FROZEN.has(relOf(f)) && !isPgSide(relOf(f)) && !f.fileName.includes("/scripts/codemods/") && !f.fileName.includes("/src/sdk/");
const isTest = (rel: string) => /\.test\.tsx?$/.test(rel);
const isStoreModule = (f: ts.SourceFile) => {
  const rel = relOf(f);
  return f.fileName.startsWith(SRC + "/") && RAW_SQL_ALLOWED(rel) && !isTest(rel) && !rel.startsWith("testing/") && !FROZEN.has(rel) && !isPgSide(rel);
};

const files = program.getSourceFiles().filter(inScope);

type Fn = ts.SignatureDeclaration;
const isFnLike = (n: ts.Node): n is Fn =>
  ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) ||
  ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n) || ts.isConstructorDeclaration(n) ||
  ts.isMethodSignature(n) || ts.isFunctionTypeNode(n) || ts.isCallSignatureDeclaration(n) || ts.isPropertySignature(n);
const isImpl = (n: ts.Node) => ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n);

function isPromiseType(t: ts.Type): boolean {
  if (t.isUnion()) return t.types.some(isPromiseType);
  const s = t.getSymbol() ?? t.aliasSymbol;
  return !!s && (s.getName() === "Promise" || s.getName() === "PromiseLike");
}
function returnsPromise(n: Fn): boolean {
  if (ts.isPropertySignature(n)) return true; // not a signature itself (handled through its type)
  if (n.type) {
    // `unknown` is not a promise: a helper that takes `() => unknown` and calls it in a
    // try/catch (a test's error-code probe) must await it once it turns async.
    const t = checker.getTypeFromTypeNode(n.type);
    // (`Promise<unknown> | unknown` is `unknown` to the checker: the text says it takes a promise.)
    return isPromiseType(t) || (t.flags & ts.TypeFlags.Any) !== 0 || /\bPromise(Like)?</.test(n.type.getText());
  }
  if (ts.canHaveModifiers(n) && ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) return true;
  const sig = checker.getSignatureFromDeclaration(n);
  return !!sig && isPromiseType(checker.getReturnTypeOfSignature(sig));
}
/** The return type is a bare type parameter (a generic pass-through: `run<T>(fn: () => T): T`). */
function returnsTypeParam(n: Fn): boolean {
  return !!n.type && n.type.kind !== ts.SyntaxKind.ThisType && (checker.getTypeFromTypeNode(n.type).flags & ts.TypeFlags.TypeParameter) !== 0;
}

function hasDbHandle(t: ts.Type, depth = 0): boolean {
  if (t.isUnion()) return t.types.some((u) => hasDbHandle(u, depth));
  if (t.getProperty("$client")) return true;
  if (depth > 0) return false;
  const db = t.getProperty("db") ?? t.getProperty("tx");
  return !!db && hasDbHandle(checker.getTypeOfSymbol(db), depth + 1);
}
function takesDb(n: Fn): boolean {
  return n.parameters.some((p) => hasDbHandle(checker.getTypeAtLocation(p)));
}

const sigDecl = (t: ts.Type | undefined): Fn | undefined => {
  if (!t) return undefined;
  const sigs = t.getNonNullableType().getCallSignatures();
  const d = sigs.length === 1 ? sigs[0]!.getDeclaration() : undefined;
  return d && isFnLike(d) ? (d as Fn) : undefined;
};
const fileOk = (n: ts.Node) => editable(n.getSourceFile()) && !(isFnLike(n) && !ts.isPropertySignature(n) && !isImpl(n) && returnsTypeParam(n as Fn));

/**
 * What a store function seeds: itself, unless it builds rather than runs. A factory that
 * returns an object of closures (prepared statements bound to a connection) stays
 * synchronous and its closures convert; one that returns a query builder or a
 * statement (run by its caller, in the same store) stays as it is.
 */
function seedsOf(n: Fn): ts.Node[] {
  const sig = checker.getSignatureFromDeclaration(n);
  const rt = sig && checker.getReturnTypeOfSignature(sig);
  if (rt && (rt.getProperty("toSQL") || rt.getProperty("prepare") || rt.getProperty("execute") || rt.getProperty("finalize"))) return [];
  const body = (n as ts.FunctionLikeDeclaration).body;
  const returned: ts.Expression[] = [];
  if (body && !ts.isBlock(body)) returned.push(body);
  else if (body) {
    const walk = (x: ts.Node): void => {
      if (ts.isReturnStatement(x) && x.expression) returned.push(x.expression);
      if (!isImpl(x)) ts.forEachChild(x, walk);
    };
    ts.forEachChild(body, walk);
  }
  const strip = (e: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) ? strip(e.expression) : e);
  // The dispatch line's `return pg.fn(…)` (docs/postgresql.md) is the PostgreSQL twin of what the
  // function returns: a factory's object literal stays a factory.
  const dispatch = (e: ts.Expression) => ts.isCallExpression(e) && /^pg\.\w+$/.test(e.expression.getText());
  returned.splice(0, returned.length, ...returned.filter((e) => !dispatch(strip(e))));
  const objs = returned.map(strip).filter(ts.isObjectLiteralExpression);
  const fns = returned.map(strip).filter((e) => ts.isArrowFunction(e) || ts.isFunctionExpression(e));
  if (objs.length && objs.length === returned.length) {
    const inner: ts.Node[] = [];
    for (const o of objs)
      for (const p of o.properties) {
        if (ts.isMethodDeclaration(p)) inner.push(p);
        else if (ts.isPropertyAssignment(p) && (ts.isArrowFunction(p.initializer) || ts.isFunctionExpression(p.initializer))) inner.push(p.initializer);
      }
    if (inner.length) return inner;
  }
  if (fns.length && fns.length === returned.length) return fns;
  return [n];
}

/** A function that is a member of an object literal initialising a top-level variable. */
function inTopLevelObject(n: ts.Node): boolean {
  const obj = ts.isMethodDeclaration(n) ? n.parent : ts.isPropertyAssignment(n.parent) && n.parent.initializer === n ? n.parent.parent : undefined;
  if (!obj || !ts.isObjectLiteralExpression(obj)) return false;
  let e: ts.Node = obj;
  while (ts.isParenthesizedExpression(e.parent) || ts.isAsExpression(e.parent) || ts.isSatisfiesExpression(e.parent)) e = e.parent;
  const d = e.parent;
  return ts.isVariableDeclaration(d) && d.initializer === e && ts.isSourceFile(d.parent.parent.parent);
}

// ---- the graph ----
const links = new Map<ts.Node, Set<ts.Node>>();
function link(a: ts.Node, b: ts.Node) {
  if (a === b) return;
  for (const [x, y] of [[a, b], [b, a]] as const) {
    let s = links.get(x);
    if (!s) links.set(x, (s = new Set()));
    s.add(y);
  }
}
const callsTo = new Map<ts.Node, ts.CallExpression[]>();
const seeds: ts.Node[] = [];
const manual: string[] = [];
const where = (n: ts.Node) => {
  const f = n.getSourceFile();
  return `${relative(ROOT, f.fileName)}:${f.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
};

function declOfCall(c: ts.CallExpression): ts.Node | undefined {
  const sig = checker.getResolvedSignature(c);
  return sig?.getDeclaration() ?? undefined;
}
function funcDeclOfRef(e: ts.Expression): ts.Node | undefined {
  return funcDeclOfSymbol(checker.getSymbolAtLocation(ts.isPropertyAccessExpression(e) ? e.name : e));
}
function funcDeclOfSymbol(s: ts.Symbol | undefined): ts.Node | undefined {
  if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
  const d = s?.valueDeclaration;
  if (!d) return undefined;
  if (ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d)) return d;
  if (ts.isPropertySignature(d) || ts.isMethodSignature(d)) return memberSig(d);
  if (ts.isParameter(d) && d.type) return sigDecl(checker.getTypeFromTypeNode(d.type));
  if (ts.isVariableDeclaration(d) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) return d.initializer;
  return undefined;
}
/** A property signature typed as a function stands for that function type. */
function memberSig(d: ts.Node): ts.Node | undefined {
  if (ts.isMethodSignature(d) || ts.isMethodDeclaration(d)) return d;
  if ((ts.isPropertySignature(d) || ts.isPropertyDeclaration(d)) && d.type) {
    let t: ts.TypeNode = d.type;
    while (ts.isParenthesizedTypeNode(t)) t = t.type;
    if (ts.isFunctionTypeNode(t)) return t;
    return sigDecl(checker.getTypeFromTypeNode(t));
  }
  if ((ts.isPropertyAssignment(d) || ts.isPropertyDeclaration(d)) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) return d.initializer;
  return undefined;
}
function contextualMember(obj: ts.ObjectLiteralExpression, name: string): ts.Node[] {
  const t = checker.getContextualType(obj);
  if (!t) return [];
  const out: ts.Node[] = [];
  for (const u of t.isUnion() ? t.types : [t]) {
    const p = u.getProperty(name);
    for (const d of p?.declarations ?? []) {
      const m = memberSig(d);
      if (m) out.push(m);
    }
  }
  return out;
}

for (const f of files) {
  const rel = relOf(f);
  const core = CORE_ASYNC[rel];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const d = declOfCall(n);
      if (d) {
        let l = callsTo.get(d);
        if (!l) callsTo.set(d, (l = []));
        l.push(n);
      }
    }
    if (core && (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name && core.includes(n.name.getText())) seeds.push(n);
    // A member of a top-level object literal (`export const payoutStore: PayoutStore = { finished: (db, ids) => … }`,
    // a port's implementation): a store function like a top-level one; its interface member converts with it.
    if (isStoreModule(f) && isImpl(n) && inTopLevelObject(n) && takesDb(n as Fn)) seeds.push(n);
    if (isStoreModule(f) && isImpl(n) && (n as Fn).parameters && takesDb(n as Fn)) {
      const p = n.parent;
      const topLevel = ts.isSourceFile(p) || (ts.isVariableDeclaration(p) && ts.isSourceFile(p.parent.parent.parent)) || ts.isClassDeclaration(p);
      if (topLevel) seeds.push(...seedsOf(n as Fn));
    }
    // A statement factory that takes no handle itself (`runStatements(table)` in treasury/store.ts)
    // but returns an object of closures that do: those closures are store functions.
    if (isStoreModule(f) && isImpl(n) && (n as Fn).parameters && !takesDb(n as Fn) && ts.isSourceFile(n.parent)) {
      const inner = seedsOf(n as Fn);
      if (!(inner.length === 1 && inner[0] === n)) seeds.push(...inner.filter((x) => isFnLike(x) && takesDb(x as Fn)));
    }
    // Ties through types.
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && !ts.isPropertyAssignment(n.parent)) {
      const d = sigDecl(checker.getContextualType(n));
      if (d && fileOk(d)) link(n, d);
    }
    if (ts.isPropertyAssignment(n) && ts.isObjectLiteralExpression(n.parent) && (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer))) {
      for (const m of contextualMember(n.parent, n.name.getText())) if (fileOk(m)) link(n.initializer, m);
    }
    if (ts.isMethodDeclaration(n) && ts.isObjectLiteralExpression(n.parent)) {
      for (const m of contextualMember(n.parent, n.name.getText())) if (fileOk(m)) link(n, m);
    }
    if (ts.isShorthandPropertyAssignment(n) || (ts.isPropertyAssignment(n) && (ts.isIdentifier(n.initializer) || ts.isPropertyAccessExpression(n.initializer)))) {
      const fd = ts.isShorthandPropertyAssignment(n) ? funcDeclOfSymbol(checker.getShorthandAssignmentValueSymbol(n)) : funcDeclOfRef(n.initializer);
      if (fd && ts.isObjectLiteralExpression(n.parent)) for (const m of contextualMember(n.parent, n.name.getText())) if (fileOk(m) && fileOk(fd)) link(fd, m);
    }
    if ((ts.isIdentifier(n) || ts.isPropertyAccessExpression(n)) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) {
      const p = n.parent;
      const asValue = (ts.isCallExpression(p) && p.arguments.includes(n as ts.Expression)) || ts.isArrayLiteralExpression(p) || (ts.isVariableDeclaration(p) && p.initializer === n && !!p.type) || ts.isReturnStatement(p);
      if (asValue) {
        const fd = funcDeclOfRef(n as ts.Expression);
        const d = fd && sigDecl(checker.getContextualType(n as ts.Expression));
        if (fd && d && fileOk(d) && fileOk(fd)) link(fd, d);
      }
    }
    // `this.read = makeReader(db)`: the field's function type and the function assigned to it.
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const a = sigDecl(checker.getTypeAtLocation(n.left));
      const b = sigDecl(checker.getTypeAtLocation(n.right));
      if (a && b && fileOk(a) && fileOk(b)) link(a, b);
    }
    if (ts.isClassDeclaration(n)) {
      for (const h of n.heritageClauses ?? []) {
        for (const tref of h.types) {
          const t = checker.getTypeAtLocation(tref);
          for (const m of n.members) {
            if (!ts.isMethodDeclaration(m) && !ts.isPropertyDeclaration(m)) continue;
            const p = t.getProperty(m.name.getText());
            for (const d of p?.declarations ?? []) {
              const ms = memberSig(d);
              const mine = memberSig(m);
              if (ms && mine && fileOk(ms) && fileOk(mine)) link(mine, ms);
            }
          }
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(f);
}

// An object literal with no contextual type (built first, typed where it is passed on): its
// function members are tied to the interface members of the same name and arity in src/.
const membersByName = new Map<string, ts.Node[]>();
for (const f of files) {
  if (!editable(f)) continue;
  const visit = (n: ts.Node): void => {
    if ((ts.isPropertySignature(n) || ts.isMethodSignature(n)) && (ts.isInterfaceDeclaration(n.parent) || ts.isTypeLiteralNode(n.parent))) {
      const m = memberSig(n);
      if (m) {
        const k = n.name.getText();
        membersByName.set(k, [...(membersByName.get(k) ?? []), m]);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(f);
}
for (const f of files) {
  if (!editable(f)) continue;
  const visit = (n: ts.Node): void => {
    if (ts.isObjectLiteralExpression(n) && !checker.getContextualType(n)) {
      for (const p of n.properties) {
        let fd: ts.Node | undefined;
        if (ts.isShorthandPropertyAssignment(p)) fd = funcDeclOfSymbol(checker.getShorthandAssignmentValueSymbol(p));
        else if (ts.isPropertyAssignment(p)) fd = ts.isArrowFunction(p.initializer) || ts.isFunctionExpression(p.initializer) ? p.initializer : funcDeclOfRef(p.initializer);
        else if (ts.isMethodDeclaration(p)) fd = p;
        if (!fd || !isFnLike(fd) || !p.name) continue;
        const arity = (fd as Fn).parameters.length;
        for (const m of membersByName.get(p.name.getText()) ?? []) if (isFnLike(m) && (m as Fn).parameters.length >= arity && fileOk(fd)) link(fd, m);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(f);
}

// ---- the fixed point ----
const converting = new Set<ts.Node>(); // nodes whose result turns into a promise now
const awaited = new Set<ts.CallExpression>();
const seqCalls = new Map<ts.CallExpression, string>();
const expectRewrites = new Set<ts.CallExpression>();
const topLevelAwaits: ts.CallExpression[] = [];
const work: ts.Node[] = [];
const coreSeeds = new Set(seeds.filter((s) => FROZEN.has(relOf(s.getSourceFile()))));

const asyncify = new Set<ts.Node>(); // implementations that get the async keyword
const visited = new Set<ts.Node>();
const hasAsync = (n: ts.Node) => !!(ts.canHaveModifiers(n) && ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword));

/**
 * Already promise-returning: an async function, or one annotated Promise<…>. (An unannotated
 * function's inferred type is not asked: the core's writeTx already returns a promise, so a
 * function that returns writeTx(…) would look converted before it is.)
 */
function alreadyAsync(n: ts.Node): boolean {
  if (isImpl(n)) {
    if (hasAsync(n)) return true;
    const t = (n as Fn).type;
    return !!t && returnsPromise(n as Fn);
  }
  return isFnLike(n) && returnsPromise(n as Fn);
}

function mark(n: ts.Node) {
  if (visited.has(n)) return;
  visited.add(n);
  if (ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n) || ts.isConstructorDeclaration(n)) {
    manual.push(`${where(n)} ${ts.SyntaxKind[n.kind]} calls a store: restructure by hand`);
    return;
  }
  if (isImpl(n) && (n as ts.FunctionLikeDeclaration).asteriskToken) {
    manual.push(`${where(n)} generator calls a store: restructure by hand`);
    return;
  }
  const core = coreSeeds.has(n);
  if (!core && !fileOk(n)) return;
  if (!core && isImpl(n) && !hasAsync(n)) {
    asyncify.add(n);
    if (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) asCallback(n);
  }
  // Its callers and the functions tied to it change only when its result turns into a promise now.
  if (!core && ts.isPropertySignature(n)) return;
  if (core || !alreadyAsync(n)) {
    converting.add(n);
    work.push(n);
  }
}

/** Whether the callee already returns a promise (on a converted tree, a promise kept unawaited is deliberate: the promise lint judges it). */
function callReturnsPromise(c: ts.CallExpression): boolean {
  const sig = checker.getResolvedSignature(c);
  const rt = sig && checker.getReturnTypeOfSignature(sig);
  return !!rt && /^Promise<.*>$/.test(checker.typeToString(rt));
}

function isHandled(c: ts.CallExpression): boolean {
  let p = c.parent;
  if (!ts.isExpressionStatement(p) && callReturnsPromise(c)) return true;
  while (ts.isParenthesizedExpression(p)) p = p.parent;
  // (`void f()` of a function that was synchronous only discarded its value: it gets awaited too.)
  if (ts.isAwaitExpression(p)) return true;
  if (ts.isPropertyAccessExpression(p) && ["then", "catch", "finally"].includes(p.name.text)) return true;
  // expect(p).rejects / .resolves: the test awaits the promise itself.
  if (ts.isCallExpression(p) && p.expression.getText() === "expect" && ts.isPropertyAccessExpression(p.parent) && ["rejects", "resolves"].includes(p.parent.name.text)) return true;
  const inPromiseAll = (x: ts.Node) => ts.isCallExpression(x) && /^Promise\.(all|allSettled|race|any)$/.test(x.expression.getText());
  if (inPromiseAll(p) || (ts.isArrayLiteralExpression(p) && inPromiseAll(p.parent))) return true;
  return false;
}

function enclosing(n: ts.Node): ts.Node | undefined {
  let p: ts.Node | undefined = n.parent;
  while (p && !ts.isSourceFile(p)) {
    if (isImpl(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p) || ts.isConstructorDeclaration(p)) return p;
    if (ts.isPropertyDeclaration(p) || ts.isClassStaticBlockDeclaration(p)) return p;
    p = p.parent;
  }
  return p; // the source file: a top-level call
}

function awaitCall(c: ts.CallExpression) {
  if (awaited.has(c) || isHandled(c)) return;
  awaited.add(c);
  const e = enclosing(c);
  if (!e) return;
  if (ts.isSourceFile(e)) topLevelAwaits.push(c);
  else if (ts.isPropertyDeclaration(e) || ts.isClassStaticBlockDeclaration(e)) manual.push(`${where(c)} a class field initialiser calls a store: restructure by hand`);
  else mark(e);
}

function asCallback(fn: ts.Node) {
  // A function passed to an array method, a generic pass-through or expect().
  const p = fn.parent;
  if (!ts.isCallExpression(p) || !p.arguments.includes(fn as ts.Expression)) return;
  const callee = p.expression;
  if (ts.isPropertyAccessExpression(callee) && SEQ[callee.name.text]) {
    const t = checker.getTypeAtLocation(callee.expression);
    if (checker.isArrayType(t) || checker.isTupleType(t) || /^(readonly )?.*\[\]$/.test(checker.typeToString(t))) {
      if (!seqCalls.has(p)) {
        seqCalls.set(p, SEQ[callee.name.text]!);
        awaitCall(p);
      }
      return;
    }
  }
  if (callee.getText() === "Array.from" && p.arguments.length === 2 && p.arguments[1] === fn) {
    if (!seqCalls.has(p)) {
      seqCalls.set(p, "mapSeq");
      awaitCall(p);
    }
    return;
  }
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === "sort") {
    manual.push(`${where(p)} sort with an async comparator: restructure by hand`);
    return;
  }
  if (ts.isIdentifier(callee) && callee.text === "expect") {
    const m = p.parent;
    if (ts.isPropertyAccessExpression(m) && (m.name.text === "toThrow" || m.name.text === "not")) {
      expectRewrites.add(p);
      const e = enclosing(p);
      if (e && !ts.isSourceFile(e)) mark(e);
    }
    return;
  }
  const d = declOfCall(p);
  if (d && isFnLike(d) && !ts.isPropertySignature(d) && returnsTypeParam(d as Fn) && !converting.has(d)) awaitCall(p);
}

for (const s of seeds) mark(s);
while (work.length) {
  const n = work.shift()!;
  for (const o of links.get(n) ?? []) mark(o);
  for (const c of callsTo.get(n) ?? []) awaitCall(c);
}
// Named functions passed by reference to array methods (xs.map(loadOne)).
for (const f of files) {
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && SEQ[n.expression.name.text]) {
      for (const a of n.arguments) {
        const fd = (ts.isIdentifier(a) || ts.isPropertyAccessExpression(a)) && funcDeclOfRef(a);
        if (fd && converting.has(fd)) manual.push(`${where(n)} ${n.expression.name.text}(${a.getText()}) passes a converted function by name: wrap it`);
      }
    }
    ts.forEachChild(n, visit);
  };
  if (editable(f)) visit(f);
}

// ---- edits ----
interface Edit { pos: number; end: number; text: string; key: number }
const edits = new Map<ts.SourceFile, Edit[]>();
const imports = new Map<ts.SourceFile, Set<string>>();
function edit(f: ts.SourceFile, pos: number, end: number, text: string, key: number) {
  let l = edits.get(f);
  if (!l) edits.set(f, (l = []));
  l.push({ pos, end, text, key });
}
const stats = { madeAsync: 0, returnTypes: 0, awaits: 0, seq: 0, expects: 0, topLevel: topLevelAwaits.length, seeds: seeds.length };

const PAREN_PARENT = (c: ts.Node) => {
  const p = c.parent;
  return (ts.isPropertyAccessExpression(p) && p.expression === c) || (ts.isElementAccessExpression(p) && p.expression === c) ||
    (ts.isCallExpression(p) && p.expression === c) || ts.isNonNullExpression(p) || ts.isTaggedTemplateExpression(p) || ts.isNewExpression(p) ||
    ts.isPostfixUnaryExpression(p) || (ts.isBinaryExpression(p) && p.left === c && p.operatorToken.kind === ts.SyntaxKind.AsteriskAsteriskToken);
};

for (const c of awaited) {
  const f = c.getSourceFile();
  if (!editable(f)) continue;
  if (process.argv.includes("--list")) console.log(`await: ${where(c)} ${c.getText().slice(0, 80)}`);
  const len = c.getEnd() - c.getStart();
  const paren = PAREN_PARENT(c);
  edit(f, c.getStart(), c.getStart(), paren ? "(await " : "await ", -len);
  if (paren) edit(f, c.getEnd(), c.getEnd(), ")", len);
  stats.awaits++;
  const seq = seqCalls.get(c);
  if (seq && c.expression.getText() === "Array.from") {
    // Array.from(xs, f) → mapSeq(Array.from(xs), f)
    edit(f, c.getStart(), c.getStart(), `${seq}(`, -len + 0.5);
    edit(f, c.arguments[0]!.getEnd(), c.arguments[1]!.getStart(), "), ", 5e9);
    let s = imports.get(f);
    if (!s) imports.set(f, (s = new Set()));
    s.add(seq);
    stats.seq++;
  } else if (seq) {
    const callee = c.expression as ts.PropertyAccessExpression;
    edit(f, c.getStart(), c.getStart(), `${seq}(`, -len + 0.5);
    // `xs.map(` → `mapSeq(xs, ` ; `xs.map()` has arguments, so a comma follows.
    const open = c.arguments.pos; // just after "("
    edit(f, callee.expression.getEnd(), open, ", ", 5e9);
    let s = imports.get(f);
    if (!s) imports.set(f, (s = new Set()));
    s.add(seq);
    stats.seq++;
  }
}

for (const n of new Set([...converting, ...asyncify])) {
  const f = n.getSourceFile();
  if (!editable(f)) continue;
  const fn = n as Fn;
  if (isImpl(n)) {
    if (asyncify.has(n)) {
      let at: number;
      if (ts.isMethodDeclaration(n)) at = n.name.getStart();
      else if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n)) at = n.getChildren().find((c) => c.kind === ts.SyntaxKind.FunctionKeyword)!.getStart();
      else at = n.getStart();
      edit(f, at, at, "async ", -1e9);
      stats.madeAsync++;
    }
  }
  const typeNode = ts.isPropertySignature(n) ? undefined : fn.type;
  // An implementation's `T` becomes `Promise<T>` (its own type parameter too); a callback type's
  // `void` becomes `Promise<unknown>` (a callback that returns something still fits).
  if (typeNode && (isImpl(n) || !returnsTypeParam(fn))) {
    const t = checker.getTypeFromTypeNode(typeNode);
    if (!isPromiseType(t) && (t.flags & ts.TypeFlags.Any) === 0) {
      if (ts.isFunctionTypeNode(n) && typeNode.kind === ts.SyntaxKind.VoidKeyword) edit(f, typeNode.getStart(), typeNode.getEnd(), "Promise<unknown>", 0);
      else {
        edit(f, typeNode.getStart(), typeNode.getStart(), "Promise<", -1e8);
        edit(f, typeNode.getEnd(), typeNode.getEnd(), ">", 1e8);
      }
      stats.returnTypes++;
    }
  }
}

// `ReturnType<typeof f>` of a converted f → `Awaited<ReturnType<typeof f>>`.
for (const f of files) {
  if (!editable(f)) continue;
  const visit = (n: ts.Node): void => {
    if (ts.isTypeReferenceNode(n) && n.typeName.getText() === "ReturnType" && n.typeArguments?.length === 1) {
      const fd = sigDecl(checker.getTypeFromTypeNode(n.typeArguments[0]!));
      const wrapped = ts.isTypeReferenceNode(n.parent) && n.parent.typeName.getText() === "Awaited";
      if (fd && converting.has(fd) && !wrapped) {
        edit(f, n.getStart(), n.getStart(), "Awaited<", -1e8);
        edit(f, n.getEnd(), n.getEnd(), ">", 1e8);
        stats.returnTypes++;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(f);
}

for (const c of expectRewrites) {
  const f = c.getSourceFile();
  const m = c.parent as ts.PropertyAccessExpression;
  const arg = c.arguments[0]!;
  if (m.name.text === "toThrow") {
    // expect(f).toThrow(x) → await expect(f()).rejects.toThrow(x)
    edit(f, c.getStart(), c.getStart(), "await ", -1e7);
    const wrap = !(ts.isIdentifier(arg) || ts.isPropertyAccessExpression(arg));
    if (wrap) edit(f, arg.getStart(), arg.getStart(), "(", -2e9);
    edit(f, arg.getEnd(), arg.getEnd(), wrap ? ")()" : "()", 1);
    edit(f, c.getEnd(), c.getEnd(), ".rejects", 2);
  } else {
    // expect(f).not.toThrow() → await f()  (as the whole statement)
    const call = m.parent.parent;
    if (ts.isPropertyAccessExpression(m.parent) && m.parent.name.text === "toThrow" && ts.isCallExpression(call) && ts.isExpressionStatement(call.parent)) {
      const wrap = !(ts.isIdentifier(arg) || ts.isPropertyAccessExpression(arg));
      edit(f, c.getStart(), arg.getStart(), wrap ? "await (" : "await ", 0);
      edit(f, arg.getEnd(), call.getEnd(), wrap ? ")()" : "()", 0);
    } else manual.push(`${where(c)} expect(…).not with a converted function`);
  }
  stats.expects++;
}

for (const [f, names] of imports) {
  const rel = relative(dirname(f.fileName), resolve(SRC, "lib/async-seq")).split("\\").join("/");
  const spec = rel.startsWith(".") ? rel : "./" + rel;
  const existing = f.statements.find((s) => ts.isImportDeclaration(s) && (s.moduleSpecifier as ts.StringLiteral).text === spec) as ts.ImportDeclaration | undefined;
  const have = new Set<string>();
  const named = existing?.importClause?.namedBindings;
  if (named && ts.isNamedImports(named)) for (const e of named.elements) have.add(e.name.text);
  const all = [...new Set([...have, ...names])].sort();
  const text = `import { ${all.join(", ")} } from "${spec}";`;
  if (existing) edit(f, existing.getStart(), existing.getEnd(), text, 0);
  else {
    const lastImport = [...f.statements].reverse().find((s) => ts.isImportDeclaration(s));
    const at = lastImport ? lastImport.getEnd() : 0;
    edit(f, at, at, lastImport ? "\n" + text : text + "\n", 1e9);
  }
}

let changedFiles = 0;
for (const [f, list] of edits) {
  // Same position: replacements and closings first (by key), then openings outer first.
  const sorted = [...list].sort((a, b) => a.pos - b.pos || a.key - b.key);
  const seen = new Set<string>();
  let out = "";
  let at = 0;
  const text = f.getFullText();
  for (const e of sorted) {
    const id = `${e.pos}:${e.end}:${e.text}:${e.key}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (e.pos < at) throw new Error(`overlapping edits in ${f.fileName} at ${e.pos}`);
    out += text.slice(at, e.pos) + e.text;
    at = e.end;
  }
  out += text.slice(at);
  if (out !== text) {
    changedFiles++;
    if (!dryRun) writeFileSync(f.fileName, out);
  }
}

console.log(JSON.stringify({ ...stats, converting: converting.size, changedFiles }, null, 1));
for (const m of [...new Set(manual)].sort()) console.log("manual: " + m);
