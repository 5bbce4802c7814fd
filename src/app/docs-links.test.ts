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
