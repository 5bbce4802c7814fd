// Shards for `make test` (scripts/test.sh), balanced by the per-file wall times recorded in
// scripts/test-times.json (docs/testing.md "Shards"), the PostgreSQL pass included (docs/testing.md
// "Both engines": each file of scripts/pg-suites.txt runs a second time with SG_TEST_DB=pg).
//   bun scripts/test-shards.ts plan K [pure]  K lines, each the files of one shard (./path, space separated;
//                                            `pg:./path` a file of the PostgreSQL pass);
//                                            `pure`: only the pure files on SQLite (make test-fast)
//   bun scripts/test-shards.ts parts K [pure] what scripts/run-shards.sh runs: a head per slot, then a queue
//                                            (`parts` below), one part a line: "<slot> <engine> <seconds> ./path ..."
//   bun scripts/test-shards.ts refresh       rewrites scripts/test-times.json from test-output/*.times
// A .times file is what test.sh writes beside each shard's log: "<epoch seconds> <file>" when bun
// starts a file, and "<epoch seconds> END" when the process ends; a file's time is the gap to the
// next line. Files without a recorded time weigh the median of their kind (pure, e2e, browser).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const TIMES = join(ROOT, "scripts/test-times.json");
const PG_SUITES = join(ROOT, "scripts/pg-suites.txt");
/** A file's PostgreSQL run: its key in the plan and in test-times.json, apart from its SQLite run. */
export const PG = "pg:";
/** A PostgreSQL run without a recorded time weighs its SQLite run's time times this (measured: docs/testing.md "Both engines"). */
export const PG_WEIGHT = 2;
const OUTPUT = join(ROOT, "test-output");

type Kind = "pure" | "e2e" | "browser";
export const kindOf = (f: string): Kind => (/\.browser\.test\.tsx?$/.test(f) ? "browser" : /\.e2e\.test\.tsx?$/.test(f) ? "e2e" : "pure");
/** Weights when no file of a kind has a recorded time. */
const FALLBACK: Record<Kind, number> = { pure: 1, e2e: 15, browser: 20 };

/** Every test file bun would run, as repo-relative paths, sorted. */
export function testFiles(root = ROOT): string[] {
  const out: string[] = [];
  for (const dir of ["src", "scripts"]) {
    if (!existsSync(join(root, dir))) continue;
    for (const f of new Bun.Glob("**/*.test.{ts,tsx}").scanSync({ cwd: join(root, dir) })) {
      if (!f.includes("node_modules/")) out.push(`${dir}/${f}`);
    }
  }
  return out.sort();
}

/**
 * The PostgreSQL pass: the files listed in scripts/pg-suites.txt (one path a line, `#` comments),
 * as `pg:` keys. A listed path that is no test file fails the plan (a typo would drop a suite).
 */
export function pgSuites(text: string, files: string[]): string[] {
  const known = new Set(files);
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const f = raw.replace(/#.*/, "").trim().replace(/^\.\//, "");
    if (!f) continue;
    if (!known.has(f)) throw new Error(`scripts/pg-suites.txt: ${f} is not a test file`);
    if (!out.includes(PG + f)) out.push(PG + f);
  }
  return out;
}

function readPgSuites(files: string[]): string[] {
  return existsSync(PG_SUITES) ? pgSuites(readFileSync(PG_SUITES, "utf8"), files) : [];
}

function readTimes(): Record<string, number> {
  return existsSync(TIMES) ? (JSON.parse(readFileSync(TIMES, "utf8")) as Record<string, number>) : {};
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : undefined;
};

/**
 * Each file's weight: its recorded seconds, else the median of its kind's recorded files. A `pg:`
 * entry without a time of its own weighs its SQLite run's time (else that median) times PG_WEIGHT.
 */
export function weights(files: string[], times: Record<string, number>): Map<string, number> {
  const byKind: Record<Kind, number[]> = { pure: [], e2e: [], browser: [] };
  for (const [f, s] of Object.entries(times)) if (!f.startsWith(PG)) byKind[kindOf(f)].push(s);
  const fallback = (f: string) => times[f] ?? median(byKind[kindOf(f)]) ?? FALLBACK[kindOf(f)];
  return new Map(files.map((f) => [f, times[f] ?? (f.startsWith(PG) ? fallback(f.slice(PG.length)) * PG_WEIGHT : fallback(f))]));
}

/**
 * Longest-processing-time-first into k shards: browser files first, each to the shard with the
 * least browser time (so no shard runs two Chromiums' worth while another runs none), then the
 * rest, heaviest first, each to the least loaded shard. Within a shard the files go heaviest
 * first, with its browser files together at the i/k point of shard i's time (staggered), so the
 * shards do not all drive a Chromium at once.
 */
export function plan(files: string[], w: Map<string, number>, k: number): string[][] {
  const shards = Array.from({ length: k }, () => ({ files: [] as string[], total: 0, browser: 0 }));
  const byWeight = (a: string, b: string) => w.get(b)! - w.get(a)! || a.localeCompare(b);
  const place = (f: string, key: (s: (typeof shards)[number]) => number) => {
    const s = shards.reduce((best, s) => (key(s) < key(best) || (key(s) === key(best) && s.total < best.total) ? s : best));
    s.files.push(f);
    s.total += w.get(f)!;
    if (kindOf(f) === "browser") s.browser += w.get(f)!;
  };
  for (const f of files.filter((f) => kindOf(f) === "browser").sort(byWeight)) place(f, (s) => s.browser);
  for (const f of files.filter((f) => kindOf(f) !== "browser").sort(byWeight)) place(f, (s) => s.total);
  return shards.map((s, i) => staggered(s.files, w, i / k));
}

/** `files` heaviest first, the browser ones moved together to where `at` (0..1) of the time has run. */
function staggered(files: string[], w: Map<string, number>, at: number): string[] {
  const byWeight = (a: string, b: string) => w.get(b)! - w.get(a)! || a.localeCompare(b);
  const browser = files.filter((f) => kindOf(f) === "browser").sort(byWeight);
  const rest = files.filter((f) => kindOf(f) !== "browser").sort(byWeight);
  const total = files.reduce((t, f) => t + w.get(f)!, 0);
  let ran = 0;
  let cut = 0;
  while (cut < rest.length && ran + w.get(rest[cut]!)! <= at * total) ran += w.get(rest[cut++]!)!;
  return [...rest.slice(0, cut), ...browser, ...rest.slice(cut)];
}

/** One `bun test` process of the run: its engine and files; `slot` 1..K for a slot's head, 0 for the queue. */
export interface Part {
  slot: number;
  engine: "sqlite" | "pg";
  files: string[];
  seconds: number;
}

/** The share of the run's time left out of the heads, for the queue (scripts/run-shards.sh). */
export const QUEUE_SHARE = 0.3;
/** A queued part's target seconds: small enough that the last ones even out the slots' ends. */
export const QUEUE_PART_SECONDS = 40;

/**
 * The run's parts for K slots (docs/testing.md "Shards"): a head per slot, planned by `plan` over
 * the SQLite files but for the lightest non-browser ones, then a queue that any slot takes from
 * when its head (or queued part) ends, heaviest first: the PostgreSQL files and those light SQLite
 * files, in parts of about QUEUE_PART_SECONDS of one engine each, about QUEUE_SHARE of the total.
 * A slot that load slows down takes less of the queue, so the slots end close together whatever
 * the recorded times got wrong. Browser files stay in the heads (one Chromium per process).
 */
export function parts(files: string[], w: Map<string, number>, k: number): Part[] {
  const total = files.reduce((t, f) => t + w.get(f)!, 0);
  const pg = files.filter((f) => f.startsWith(PG));
  const sqlite = files.filter((f) => !f.startsWith(PG));
  // The lightest SQLite files go to the queue until it holds QUEUE_SHARE of the time (with the pg files).
  let queued = pg.reduce((t, f) => t + w.get(f)!, 0);
  const light = new Set<string>();
  for (const f of sqlite.filter((f) => kindOf(f) !== "browser").sort((a, b) => w.get(a)! - w.get(b)! || a.localeCompare(b))) {
    if (queued + w.get(f)! > QUEUE_SHARE * total) break;
    light.add(f);
    queued += w.get(f)!;
  }
  const seconds = (fs: string[]) => Math.round(fs.reduce((t, f) => t + w.get(f)!, 0) * 10) / 10;
  const heads = plan(sqlite.filter((f) => !light.has(f)), w, k).map((fs, i): Part => ({ slot: i + 1, engine: "sqlite", files: fs, seconds: seconds(fs) }));
  const queue = [...chunks([...light], w, "sqlite"), ...chunks(pg, w, "pg")].sort((a, b) => b.seconds - a.seconds);
  return [...heads.filter((p) => p.files.length), ...queue];
}

/** `files` of one engine in parts of about QUEUE_PART_SECONDS (a heavier file is a part alone), by first fit, heaviest first. */
function chunks(files: string[], w: Map<string, number>, engine: Part["engine"]): Part[] {
  const out: Part[] = [];
  for (const f of [...files].sort((a, b) => w.get(b)! - w.get(a)! || a.localeCompare(b))) {
    const s = w.get(f)!;
    const fit = out.find((p) => p.seconds + s <= QUEUE_PART_SECONDS);
    if (fit) {
      fit.files.push(f);
      fit.seconds = Math.round((fit.seconds + s) * 10) / 10;
    } else out.push({ slot: 0, engine, files: [f], seconds: Math.round(s * 10) / 10 });
  }
  return out;
}

/** File -> seconds from .times files (the gap from a file's start line to the next line). */
export function durations(timesText: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const text of timesText) {
    const lines = text.split("\n").filter(Boolean).map((l) => {
      const i = l.indexOf(" ");
      return { t: Number(l.slice(0, i)), what: l.slice(i + 1) };
    });
    for (let i = 0; i + 1 < lines.length; i++) {
      const { t, what } = lines[i]!;
      if (what !== "END") out[what.replace(/^(pg:)?\.\//, "$1")] = Math.round((lines[i + 1]!.t - t) * 10) / 10;
    }
  }
  return out;
}

function refresh(): void {
  const logs = existsSync(OUTPUT) ? readdirSync(OUTPUT).filter((f) => f.endsWith(".times")) : [];
  if (!logs.length) throw new Error("no test-output/*.times: run `make test` first");
  const measured = durations(logs.map((f) => readFileSync(join(OUTPUT, f), "utf8")));
  const files = testFiles();
  const present = new Set([...files, ...readPgSuites(files)]);
  const merged: Record<string, number> = {};
  for (const [f, s] of Object.entries({ ...readTimes(), ...measured })) if (present.has(f)) merged[f] = s;
  const sorted = Object.fromEntries(Object.keys(merged).sort().map((f) => [f, merged[f]!]));
  writeFileSync(TIMES, JSON.stringify(sorted, null, 1) + "\n");
  console.log(`scripts/test-times.json: ${Object.keys(measured).length} files measured, ${Object.keys(sorted).length} kept`);
}

if (import.meta.main) {
  const [cmd, arg, only] = process.argv.slice(2);
  if (only !== undefined && only !== "pure") throw new Error(`plan takes only "pure" after K, got ${only}`);
  if (cmd === "plan") {
    const k = Number(arg);
    if (!Number.isInteger(k) || k < 1) throw new Error(`plan needs a shard count, got ${arg}`);
    const all = testFiles();
    const files = only === "pure" ? all.filter((f) => kindOf(f) === "pure") : [...all, ...readPgSuites(all)];
    const path = (f: string) => (f.startsWith(PG) ? `${PG}./${f.slice(PG.length)}` : `./${f}`);
    for (const shard of plan(files, weights(files, readTimes()), k)) console.log(shard.map(path).join(" "));
  } else if (cmd === "parts") {
    // One part a line: "<slot> <engine> <seconds> ./path ..." (slot 0: the queue, in the order to take it).
    const k = Number(arg);
    if (!Number.isInteger(k) || k < 1) throw new Error(`parts needs a slot count, got ${arg}`);
    const all = testFiles();
    const files = only === "pure" ? all.filter((f) => kindOf(f) === "pure") : [...all, ...readPgSuites(all)];
    for (const p of parts(files, weights(files, readTimes()), k)) console.log([p.slot, p.engine, p.seconds, ...p.files.map((f) => `./${f.replace(PG, "")}`)].join(" "));
  } else if (cmd === "refresh") {
    refresh();
  } else {
    console.error("usage: bun scripts/test-shards.ts plan K [pure] | parts K [pure] | refresh");
    process.exit(2);
  }
}
