// Writes the rank table of docs/architecture.md from RANKS in src/app/layers.test.ts (the one
// source of the layering rules), between the markers below, so the map cannot drift from the
// rules the test enforces. src/app/architecture-doc.test.ts fails when the doc's table differs.
//   bun scripts/gen-architecture-ranks.ts
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const LAYERS_TEST = join(ROOT, "src/app/layers.test.ts");
export const ARCHITECTURE = join(ROOT, "docs/architecture.md");
export const BEGIN = "<!-- ranks: generated from RANKS in src/app/layers.test.ts by scripts/gen-architecture-ranks.ts; do not edit by hand -->";
export const END = "<!-- /ranks -->";

export interface Rank {
  rank: number;
  units: string[];
  /** What the comment above the rank's line says it holds. */
  what: string;
}

/** The RANKS literal's entries in order, with the comment that introduces each rank ("// 4: the chain layer …"). */
export function parseRanks(source: string): Rank[] {
  const start = source.indexOf("export const RANKS");
  if (start < 0) throw new Error("no RANKS in the layers test");
  const body = source.slice(source.indexOf("{", start) + 1, source.indexOf("\n};", start));
  const ranks = new Map<number, Rank>();
  let comment: string[] = [];
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("//")) {
      comment.push(line.replace(/^\/\/\s?/, ""));
      continue;
    }
    for (const m of line.matchAll(/(?:"([^"]+)"|([\w-]+))\s*:\s*(\d+)/g)) {
      const unit = m[1] ?? m[2]!;
      const rank = Number(m[3]);
      const r = ranks.get(rank) ?? { rank, units: [], what: "" };
      if (!r.what && comment.length) r.what = comment.join(" ").replace(/^\d+:\s*/, "");
      r.units.push(unit);
      ranks.set(rank, r);
    }
    if (line) comment = [];
  }
  return [...ranks.values()].sort((a, b) => a.rank - b.rank);
}

const unitName = (u: string) => (u.endsWith(".ts") ? `\`${u}\`` : `\`${u}/\``);

/** The Markdown table of the ranks. */
export function rankTable(ranks: Rank[]): string {
  const rows = ranks.map((r) => `| ${r.rank} | ${r.units.map(unitName).join(", ")} | ${r.what.replace(/\|/g, "\\|")} |`);
  return ["| Rank | Folders | What they hold |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The doc with its marked table replaced by `table`. */
export function withRankTable(doc: string, table: string): string {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} markers`);
  return doc.slice(0, a + BEGIN.length) + "\n" + table + "\n" + doc.slice(b);
}

/** The table between the markers, as written. */
export function writtenRankTable(doc: string): string {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error("no rank table markers");
  return doc.slice(a + BEGIN.length, b).trim();
}

if (import.meta.main) {
  const table = rankTable(parseRanks(readFileSync(LAYERS_TEST, "utf8")));
  const doc = readFileSync(ARCHITECTURE, "utf8");
  const next = withRankTable(doc, table);
  if (next !== doc) writeFileSync(ARCHITECTURE, next);
  console.log(next === doc ? "docs/architecture.md: rank table already current" : "docs/architecture.md: rank table written");
}
