// docs/architecture.md is the newcomer's map: short enough to read in ten minutes, and its rank
// table is RANKS (src/app/layers.test.ts) as scripts/gen-architecture-ranks.ts writes it.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ARCHITECTURE, BEGIN, END, LAYERS_TEST, parseRanks, rankTable, withRankTable, writtenRankTable } from "../../scripts/gen-architecture-ranks";

const doc = readFileSync(ARCHITECTURE, "utf8");

test("the map's rank table is the one RANKS generates (run `bun scripts/gen-architecture-ranks.ts` after changing RANKS)", () => {
  expect(writtenRankTable(doc)).toBe(rankTable(parseRanks(readFileSync(LAYERS_TEST, "utf8"))));
});

test("the check bites: a table edited by hand, or a rank added to RANKS, differs", () => {
  const source = readFileSync(LAYERS_TEST, "utf8");
  const edited = withRankTable(doc, rankTable(parseRanks(source)).replace("`db/`", "`db/`, `cache/`"));
  expect(writtenRankTable(edited)).not.toBe(rankTable(parseRanks(source)));
  const moreRanks = source.replace("  app: 11,", "  app: 11, plugins: 11,");
  expect(rankTable(parseRanks(moreRanks))).toContain("| 11 | `app/`, `plugins/` |");
  expect(() => withRankTable("# no markers\n", "x")).toThrow();
  expect(withRankTable(`a\n${BEGIN}\nold\n${END}\nb`, "new")).toBe(`a\n${BEGIN}\nnew\n${END}\nb`);
});

test("the map stays a map: under 1,500 words", () => {
  const words = doc.split(/\s+/).filter(Boolean).length;
  expect(words).toBeLessThan(1500);
});
