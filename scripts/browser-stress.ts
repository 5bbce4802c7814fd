// Stress of the browser tests' harness (src/testing/browser.ts): in ONE process, many "files" in a
// row, each with its own connection to the shared Chromium (launchBrowser) and several pages at
// once that poll the server every few ms, listen to every request, take screenshots (messages
// far above the 10 KB where the server compresses) and are closed with calls still pending (a
// test that timed out). Any protocol error, unhandled rejection or uncaught exception is counted.
//   bun scripts/browser-stress.ts [rounds=30] [pages=4]
//   STRESS_VIA=connect bun scripts/browser-stress.ts   the same through chromium.connect() (before 2026-11-29)
// Prints one line per round and exits 1 when anything went wrong (docs/testing.md "Browser tests: connections").
import { chromium, type Browser, type Page } from "playwright-core";
import { browserServerEndpoint, launchBrowser } from "../src/testing/browser";

const rounds = Number(process.argv[2] ?? 30);
const pages = Number(process.argv[3] ?? 2);
const problems: string[] = [];
process.on("unhandledRejection", (e) => problems.push(`unhandled rejection: ${String(e).slice(0, 200)}`));
process.on("uncaughtException", (e) => problems.push(`uncaught: ${String(e).slice(0, 200)}`));

const big = "x".repeat(40_000);
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/status") return Response.json({ n: Math.random(), pad: url.searchParams.has("big") ? big : "" });
    const html = `<!doctype html><title>stress</title><main><p data-testid="n">0</p><p>${"lorem ipsum ".repeat(300)}</p></main><script>
      let n = 0;
      setInterval(async () => { const r = await fetch("/status" + (n % 5 === 0 ? "?big" : "")); await r.json(); document.querySelector("[data-testid=n]").textContent = String(++n); }, 100);
    </script>`;
    return new Response(html, { headers: { "content-type": "text/html" } });
  },
});
const base = `http://127.0.0.1:${server.port}`;

async function connect(): Promise<Browser> {
  if (process.env.STRESS_VIA !== "connect") return launchBrowser();
  // The old way, for comparison: chromium.connect() to the same server (its connection left open, as before).
  const browser = await chromium.connect(await browserServerEndpoint());
  browser.close = async () => {
    await Promise.all(browser.contexts().map((c) => c.close().catch(() => {})));
  };
  return browser;
}

async function onePage(browser: Browser, i: number): Promise<number> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page: Page = await ctx.newPage();
  let requests = 0;
  page.on("request", () => requests++);
  page.on("requestfinished", () => {});
  page.on("response", () => {});
  page.on("console", () => {});
  await page.goto(`${base}/p${i}`);
  const t = Date.now();
  while (Date.now() - t < 1000) {
    await page.getByTestId("n").innerText();
    await page.screenshot();
  }
  if (i % 2 === 0) {
    // A test that timed out: calls still pending when its context closes.
    void page.waitForSelector("#never", { timeout: 60_000 }).catch(() => {});
    void page.evaluate(() => new Promise(() => {})).catch(() => {});
  }
  await ctx.close();
  return requests;
}

let failed = 0;
for (let r = 1; r <= rounds; r++) {
  const t = Date.now();
  const before = problems.length;
  let requests = 0;
  try {
    const browser = await connect();
    const counts = await Promise.all(Array.from({ length: pages }, (_, i) => onePage(browser, i)));
    requests = counts.reduce((a, b) => a + b, 0);
    await browser.close();
  } catch (e) {
    problems.push(`round ${r}: ${String(e).slice(0, 300)}`);
  }
  const bad = problems.length - before;
  if (bad) failed++;
  console.log(`round ${r}: ${pages} pages, ${requests} requests, ${Date.now() - t} ms${bad ? `, ${bad} problem(s): ${problems.slice(before).join(" | ")}` : ""}`);
}
server.stop(true);
console.log(`${rounds} rounds, ${failed} with problems`);
process.exit(failed ? 1 : 0);
