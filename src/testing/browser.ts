// Browser tests drive Debian's Chromium through playwright-core; a browser is
// never downloaded (scripts/ensure-chromium.sh installs the system one).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The Chromium of this test process, shared by the test files that run in it (docs/testing.md
 * "Browser tests: CPU": a start costs about 2.5 CPU-s). It starts while the first file that
 * imports this module loads: outside every hook and test, since bun test kills the processes
 * that a file's hooks and tests started when that file ends. Files stay apart as before, as
 * everything a page keeps (cookies, storage, cache) lives in its context: `close()` closes the
 * contexts still open, not the browser. Chromium ends with the test process (its Playwright
 * server exits when the process's end closes its stdin).
 */
/** Each browser's Playwright server (node), ended when its browser is replaced. */
const servers = new Map<Browser, Bun.Subprocess>();

let shared: Promise<Browser> = startBrowser();
shared.catch(() => {}); // reported by the launchBrowser() that awaits it

/**
 * The shared Chromium, once it opens and closes a context (0.1 CPU-s); one that went away
 * (crashed) or no longer answers (a broken protocol connection an earlier file left) is
 * started again, for this file.
 */
export async function launchBrowser(): Promise<Browser> {
  const running = await shared.catch(() => undefined);
  if (running?.isConnected() && (await answers(running))) return running;
  if (running) servers.get(running)?.kill();
  shared = startBrowser();
  return shared;
}

async function answers(browser: Browser): Promise<boolean> {
  const probe = browser.newContext().then(async (c) => (await c.close(), true));
  return Promise.race([probe.catch(() => false), Bun.sleep(15_000).then(() => false)]);
}

/**
 * A Chromium driven through a Playwright server that runs under Node (browser-server.cjs), so
 * the protocol objects arrive in order. Node is on every machine that runs the tests (CI has
 * node and npm but no bun).
 */
async function startBrowser(): Promise<Browser> {
  const proc = Bun.spawn(["node", join(import.meta.dir, "browser-server.cjs"), CHROMIUM_PATH, JSON.stringify(CHROMIUM_ARGS)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`browser server exited before it listened (code ${await proc.exited})`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const browser = await chromium.connect(text.trim());
  // A file's afterAll closes what it opened; the browser stays for the next file.
  browser.close = async () => {
    await Promise.all(browser.contexts().map((c) => c.close().catch(() => {})));
  };
  // Not left running when the test process ends on its own (bun exits with the server's pipe open).
  proc.unref();
  servers.set(browser, proc);
  return browser;
}

/** test-output/screenshots under the repo root, created on first use. */
export function screenshotDir(): string {
  const dir = join(import.meta.dir, "..", "..", "test-output", "screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}
