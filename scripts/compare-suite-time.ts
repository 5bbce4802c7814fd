// Does a change make the same tests slower? Runs every test file whose source is identical in two
// checkouts alone in each, one right after the other (alternating which goes first), so both runs
// of a file see the same machine load, and prints the summed wall times and their ratio.
//   bun scripts/compare-suite-time.ts BEFORE_DIR AFTER_DIR [PATH_PREFIX]   (each a clone with its deps installed)
// Each tree runs its own pinned bun (.tools/) or, without one, the bun running this script.
import { existsSync } from "node:fs";
import { join } from "node:path";

const [before, after, prefix = ""] = process.argv.slice(2);
if (!before || !after) {
  console.error("usage: bun scripts/compare-suite-time.ts BEFORE_DIR AFTER_DIR [PATH_PREFIX]");
  process.exit(2);
}
const git = (dir: string, ...args: string[]) => Bun.spawnSync(["git", "-C", dir, ...args]).stdout.toString().trim();
/** Test file -> its blob id at the tree's HEAD. */
function testFiles(dir: string): Map<string, string> {
  const files = git(dir, "ls-files", "*.test.ts", "*.test.tsx").split("\n").filter(Boolean);
  const blobs = files.length ? git(dir, "rev-parse", ...files.map((f) => `HEAD:${f}`)).split("\n") : [];
  return new Map(files.map((f, i) => [f, blobs[i]!]));
}
const bunOf = (dir: string) => (existsSync(join(dir, ".tools/node_modules/.bin/bun")) ? join(dir, ".tools/node_modules/.bin/bun") : process.execPath);
function run(dir: string, file: string): { s: number; ok: boolean } {
  const t = performance.now();
  const p = Bun.spawnSync([bunOf(dir), "test", "--timeout", "60000", file], { cwd: dir, stdout: "ignore", stderr: "ignore" });
  return { s: (performance.now() - t) / 1000, ok: p.exitCode === 0 };
}

const b = testFiles(before);
const a = testFiles(after);
const same = [...b.keys()].filter((f) => f.startsWith(prefix) && a.get(f) === b.get(f)).sort();
console.log(`${same.length} test files identical in both (${b.size} before, ${a.size} after)`);
console.log("file\tbefore_s\tafter_s");
let tb = 0;
let ta = 0;
const ratios: number[] = [];
same.forEach((f, i) => {
  const first = i % 2 === 0 ? before : after;
  const r1 = run(first, f);
  const r2 = run(first === before ? after : before, f);
  const [rb, ra] = first === before ? [r1, r2] : [r2, r1];
  tb += rb.s;
  ta += ra.s;
  if (rb.s > 2) ratios.push(ra.s / rb.s);
  console.log(`${f}\t${rb.s.toFixed(2)}${rb.ok ? "" : " FAIL"}\t${ra.s.toFixed(2)}${ra.ok ? "" : " FAIL"}`);
});
ratios.sort((x, y) => x - y);
const median = ratios.length ? ratios[Math.floor(ratios.length / 2)]! : NaN;
console.log(`summed wall: before ${tb.toFixed(1)} s, after ${ta.toFixed(1)} s, ratio ${(ta / tb).toFixed(3)}; median per-file ratio over ${ratios.length} files above 2 s: ${ratios.length ? median.toFixed(3) : "n/a"}`);
