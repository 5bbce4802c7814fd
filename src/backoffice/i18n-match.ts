// Sentences made elsewhere in English with values in them (a callback's error in plain words,
// src/callbacks/plain-error.ts; a refused "Accept as paid", src/payin/kept.ts)
// shown in the page's language: the sentence is matched against English templates with `{name}`
// placeholders and the matching template's translation is filled with the same values. A
// sentence no template matches is looked up as is (tr), so English stays exactly as it was made.
import { locale, tr, trf } from "./i18n";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const compiled = new Map<string, { re: RegExp; names: string[] }>();
function compile(template: string) {
  let c = compiled.get(template);
  if (!c) {
    const names: string[] = [];
    const re = new RegExp("^" + template.split(/(\{\w+\})/).map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return escape(part);
      names.push(name);
      return "(.+?)";
    }).join("") + "$");
    compiled.set(template, (c = { re, names }));
  }
  return c;
}

/** `english` in the page's language: its table entry, else the first template it matches, translated and filled. */
export function trMatch(english: string, templates: readonly string[]): string {
  if (locale() !== "zh") return english;
  const direct = tr(english);
  if (direct !== english) return direct;
  for (const t of templates) {
    const { re, names } = compile(t);
    const m = re.exec(english);
    if (m) return trf(t, Object.fromEntries(names.map((n, i) => [n, m[i + 1]!])));
  }
  return english;
}
