// axe-core in the browser tests at a fraction of @axe-core/playwright's CPU (docs/testing.md
// "Browser tests: CPU"). AxeBuilder.analyze() evaluates the 600 KB axe source twice in the page,
// runs axe.runPartial in each frame, then opens a blank page (a new renderer) for every call to
// evaluate the source a third time and run axe.finishRun there, and builds every pass and
// inapplicable node into its result: about 2.4 CPU-s a page. Here axe.run() runs in the page
// itself (AxeBuilder's "legacy mode": same-origin frames are still checked, and our pages have
// none), the source is evaluated once per document, and only the violations are built in full
// (axe's resultTypes; the passes are still computed). The violations are the same
// (src/testing/axe.browser.test.ts compares both on a page with known faults).
import axeCore from "axe-core";
import type { Frame, Page } from "playwright-core";

export interface AxeViolation {
  id: string;
  impact?: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  nodes: { target: string[]; html: string; failureSummary?: string }[];
}

/** axe-core with its default rules on the page as it is now: `{ violations }` as AxeBuilder.analyze() returns them. */
export async function analyzeAxe(page: Page): Promise<{ violations: AxeViolation[] }> {
  for (const frame of page.frames()) await inject(frame);
  const r = await page.evaluate(runAxe);
  if (r.error !== null) throw new Error(`axe-core: ${r.error}`);
  return { violations: r.violations };
}

async function inject(frame: Frame): Promise<void> {
  const loaded = await frame.evaluate(() => typeof (window as { axe?: unknown }).axe === "object").catch(() => false);
  if (loaded) return;
  // A frame that went away meanwhile is skipped, as AxeBuilder does.
  await frame.evaluate(`${axeCore.source}\n;axe.configure({ allowedOrigins: ["<same_origin>"], branding: { application: "playwright" } });`).catch(() => {});
}

/** In the page: axe.run over the document, violations built in full. */
function runAxe(): Promise<{ error: string | null; violations: AxeViolation[] }> {
  const axe = (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: AxeViolation[] }> } }).axe;
  return axe.run(document, { resultTypes: ["violations"] }).then(
    (r) => ({ error: null, violations: r.violations }),
    (e: Error) => ({ error: e.message, violations: [] }),
  );
}
