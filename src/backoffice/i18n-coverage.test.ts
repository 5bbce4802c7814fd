// The back office's Chinese table against the code that reads it: every text a translated call
// names (tr, trf, trm, trc with a literal) has an entry, and every entry is still a text the code
// has (a string in a source file, a template a `${…}` text can fill, or a trc context). Read
// from the sources with the TypeScript parser, so a new page that forgets its entries, or an
// entry left behind by a rewording, fails here rather than showing English on a Chinese page.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ZH } from "./i18n";

const SRC = join(import.meta.dir, "..");
const TABLE_FILES = /^backoffice\/i18n(-zh-\w+)?\.ts$/;
const CODED_TEXT_FILES = ["errors.ts", "i18n/catalog.ts"];

/** Source files under src/, relative, without walking testing/, sdk/ (its dist/ is rebuilt by a test that may run at once) or vendor/. */
function sourceFiles(dir = ""): string[] {
  return readdirSync(join(SRC, dir), { withFileTypes: true }).flatMap((e) => {
    const f = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) return ["testing", "sdk", "vendor", "node_modules"].includes(f) ? [] : sourceFiles(f);
    // The coded texts (errors by code, delivery errors) are translated by code in src/i18n/catalog.ts
    // (src/i18n/catalog.test.ts): their English is no back-office entry's reason to live.
    return /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !CODED_TEXT_FILES.includes(f) ? [f] : [];
  });
}

interface Scan {
  /** Texts a translated call names outright, with where. */
  called: Array<{ text: string; at: string }>;
  /** `${…}` texts handed to a translated call: at least one entry must fit each. */
  calledPatterns: Array<{ re: RegExp; at: string }>;
  /** Every string in the code, and every `${…}` text as a pattern. */
  strings: Set<string>;
  patterns: RegExp[];
}

const patternOf = (t: ts.TemplateExpression) =>
  new RegExp("^" + [t.head.text, ...t.templateSpans.map((s) => s.literal.text)].map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".+") + "$");

/** The texts an argument can be: literals, both arms of a ternary, the fallback of ?? and ||. */
function literalsOf(e: ts.Expression, out: { texts: string[]; patterns: RegExp[] }): void {
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) out.texts.push(e.text);
  else if (ts.isTemplateExpression(e)) out.patterns.push(patternOf(e));
  else if (ts.isParenthesizedExpression(e)) literalsOf(e.expression, out);
  else if (ts.isConditionalExpression(e)) {
    literalsOf(e.whenTrue, out);
    literalsOf(e.whenFalse, out);
  } else if (ts.isBinaryExpression(e) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind)) literalsOf(e.right, out);
}

function scan(): Scan {
  const s: Scan = { called: [], calledPatterns: [], strings: new Set(), patterns: [] };
  for (const file of sourceFiles()) {
    const tableFile = TABLE_FILES.test(file);
    const text = readFileSync(join(SRC, file), "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const at = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
    const visit = (n: ts.Node): void => {
      if (!tableFile) {
        if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isJsxText(n)) s.strings.add(ts.isJsxText(n) ? n.text.trim() : n.text);
        // `${a} ${b}` would fit any sentence: only a template with words of its own stands for its entries.
        else if (ts.isTemplateExpression(n) && /[A-Za-z]{3}/.test(n.head.text + n.templateSpans.map((x) => x.literal.text).join(""))) s.patterns.push(patternOf(n));
      }
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.arguments.length) {
        const name = n.expression.text;
        const found = { texts: [] as string[], patterns: [] as RegExp[] };
        if (name === "tr" || name === "trf" || name === "trm") literalsOf(n.arguments[0]!, found);
        if (name === "trc" && n.arguments.length === 2) {
          const ctx = n.arguments[0]!;
          const words = { texts: [] as string[], patterns: [] as RegExp[] };
          literalsOf(n.arguments[1]!, words);
          // "date: From" when the table has it, else the word's own entry.
          if (ts.isStringLiteral(ctx)) for (const w of words.texts) found.texts.push(`${ctx.text}: ${w}` in ZH ? `${ctx.text}: ${w}` : w), s.strings.add(`${ctx.text}: ${w}`);
        }
        for (const t of found.texts) s.called.push({ text: t, at: at(n) });
        for (const re of found.patterns) s.calledPatterns.push({ re, at: at(n) });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return s;
}

const scanned = scan();
const entries = Object.keys(ZH);

test("every text a translated call names has a Chinese entry", () => {
  const missing = scanned.called.filter((c) => c.text !== "" && !(c.text in ZH)).map((c) => `${JSON.stringify(c.text)} (${c.at})`);
  expect([...new Set(missing)]).toEqual([]);
  const unfilled = scanned.calledPatterns.filter((c) => !entries.some((e) => c.re.test(e))).map((c) => `${c.re} (${c.at})`);
  expect(unfilled).toEqual([]);
});

test("every Chinese entry is a text the code still has", () => {
  const unused = entries.filter((e) => !scanned.strings.has(e) && !scanned.patterns.some((re) => re.test(e)));
  expect(unused).toEqual([]);
});

test("the scan sees the pages (a sanity check on the scanner itself)", () => {
  expect(scanned.called.length).toBeGreaterThan(300);
  expect(scanned.called.some((c) => c.text === "Sign in")).toBe(true);
});
