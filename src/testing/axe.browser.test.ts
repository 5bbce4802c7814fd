// analyzeAxe (src/testing/axe.ts), which the browser tests use instead of @axe-core/playwright's
// AxeBuilder to save CPU, finds the same violations as AxeBuilder.analyze(): on a page with
// known faults (serious and critical ones, and a moderate one), and again after the page changes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { analyzeAxe, type AxeViolation } from "./axe";
import { launchBrowser } from "./browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const FAULTY = `<!doctype html><html><head><title>faults</title></head><body>
<main>
  <h1>Faults</h1>
  <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
  <p style="color:#aaa;background:#fff">Low contrast text</p>
  <button></button>
  <input type="text">
  <a href="#x"></a>
  <div role="button" aria-pressed="maybe">x</div>
  <h4>Skipped heading levels</h4>
</main></body></html>`;

const summary = (violations: AxeViolation[]) =>
  violations.map((v) => `${v.id} ${v.impact} ${v.nodes.map((n) => JSON.stringify(n.target)).sort().join(" ")}`).sort();

async function faultyPage(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.setContent(FAULTY);
  return page;
}

test("analyzeAxe finds what AxeBuilder.analyze() finds: rule, impact and elements", async () => {
  const page = await faultyPage();
  const expected = summary((await new AxeBuilder({ page }).analyze()).violations as AxeViolation[]);
  const got = summary((await analyzeAxe(page)).violations);
  expect(got).toEqual(expected);
  // The faults are there to be found (a helper that found nothing would pass every test).
  for (const id of ["image-alt", "color-contrast", "button-name", "label", "link-name", "aria-valid-attr-value", "html-has-lang", "heading-order"]) expect(got.some((l) => l.startsWith(id + " "))).toBe(true);
  await page.context().close();
}, 120_000);

test("a second run on the same document (axe already loaded) sees the page as it is then", async () => {
  const page = await faultyPage();
  const before = summary((await analyzeAxe(page)).violations);
  await page.evaluate(() => {
    document.querySelector("main img")!.setAttribute("alt", "a pixel");
    document.documentElement.lang = "en";
  });
  const after = summary((await analyzeAxe(page)).violations);
  expect(after).toEqual(summary((await new AxeBuilder({ page }).analyze()).violations as AxeViolation[]));
  expect(before.some((l) => l.startsWith("image-alt "))).toBe(true);
  expect(after.some((l) => l.startsWith("image-alt "))).toBe(false);
  expect(after.some((l) => l.startsWith("html-has-lang "))).toBe(false);
  await page.context().close();
}, 120_000);
