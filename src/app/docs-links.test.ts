// What the README and docs/ point a reader to exists in the repository, and
// the shipped merchant API spec is the product's own, word for word.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const pages = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

test("every relative Markdown link in README.md and docs/*.md names a file that exists", () => {
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), "utf8");
    for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue; // http:, mailto:
      if (!existsSync(resolve(ROOT, dirname(page), target))) broken.push(`${page} -> ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

const shared = join(ROOT, "..", "shared", "spec", "merchant-api.md");
test.skipIf(!existsSync(shared))("docs/merchant-api.md is the product's merchant API spec verbatim", () => {
  expect(readFileSync(join(ROOT, "docs/merchant-api.md"), "utf8")).toBe(readFileSync(shared, "utf8"));
});

/** Source paths docs/architecture.md names in backticks (`payin/service.ts`, `src/chains/`, globs), and the files of its folder trees. */
function architecturePaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([\w./*-]+\/[\w./*-]*|[\w-]+\.(?:ts|tsx|sql|md))`/g)) {
    const p = m[1]!;
    if (/^[\w-]+\.(?:ts|tsx)$/.test(p)) continue; // a bare file name is named with its folder elsewhere in the sentence
    if (/^\/|^https?:|\/openapi\/|^\.\.?\//.test(p)) continue; // URL paths, not files
    out.add(p);
  }
  // Fenced trees: a first line naming a folder ("src/chains/"), entries indented two spaces per level.
  for (const block of text.matchAll(/```\n([\s\S]*?)```/g)) {
    const lines = block[1]!.split("\n").filter((l) => l.trim());
    if (!lines[0] || !/^src\/[\w/-]+\/$/.test(lines[0].trim())) continue;
    const stack: string[] = [lines[0].trim()];
    for (const l of lines.slice(1)) {
      const m = /^( +)([\w.-]+\/?)(?:\/[\w.-]+)?\s/.exec(l + " ");
      if (!m) continue;
      const depth = m[1]!.length / 2;
      const name = /^( +)([\w./-]+)/.exec(l)![2]!;
      // Entries only (a file name or a folder), not the wrapped lines of a description.
      if (!Number.isInteger(depth) || depth < 1 || depth > stack.length || !/\.\w+$|\/$/.test(name)) continue;
      stack.length = depth;
      const path = stack.join("") + name;
      out.add(path);
      if (name.endsWith("/")) stack.push(name);
    }
  }
  return [...out];
}

function pathExists(p: string): boolean {
  const candidates = p.startsWith("src/") ? [p] : [`src/${p}`, p];
  return candidates.some((c) => (c.includes("*") ? [...new Bun.Glob(c).scanSync({ cwd: ROOT, onlyFiles: false })].length > 0 : existsSync(join(ROOT, c))));
}

test("every source path docs/architecture.md names exists", () => {
  const paths = architecturePaths(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));
  expect(paths.length).toBeGreaterThan(50);
  expect(paths.filter((p) => !p.includes("<") && !pathExists(p))).toEqual([]);
});

test("the architecture path check bites: a missing file is reported, an existing one is not", () => {
  const sample = "The route `payin/routes.ts` calls `payin/service.ts`; `payout/gas-topup.ts` waits.\n```\nsrc/chains/\n  registry.ts   the list\n  nowhere.ts    gone\n  common/\n    failover.ts the loop\n```\n";
  const named = architecturePaths(sample);
  expect(named.sort()).toEqual(["payin/routes.ts", "payin/service.ts", "payout/gas-topup.ts", "src/chains/common/", "src/chains/common/failover.ts", "src/chains/nowhere.ts", "src/chains/registry.ts"].sort());
  expect(named.filter((p) => !pathExists(p)).sort()).toEqual(["payin/routes.ts", "payout/gas-topup.ts", "src/chains/nowhere.ts"]);
});

// docs/chains.md is the shared contract's (../shared/docs/), not this repository's: a comment
// citing it says where it lives, so no reader looks for it under docs/.
test("comments that cite docs/chains.md say it lives in the shared contract (../shared/docs/)", () => {
  const bad: string[] = [];
  for (const f of new Bun.Glob("src/**/*.{ts,tsx}").scanSync({ cwd: ROOT })) {
    // src/sdk/dist is build output, rebuilt by src/sdk/package.e2e.test.ts while other shards run.
    if (f.startsWith("src/sdk/dist/")) continue;
    readFileSync(join(ROOT, f), "utf8").split("\n").forEach((l, i) => {
      if (l.includes("docs/chains.md") && !l.includes("../shared/docs/") && !f.endsWith("docs-links.test.ts")) bad.push(`${f}:${i + 1}`);
    });
  }
  expect(bad).toEqual([]);
});
