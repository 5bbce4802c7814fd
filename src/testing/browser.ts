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
 * A Chromium driven through a Playwright server that runs under Node (browser-server.cjs), so
 * the protocol objects arrive in order; `close()` also ends that server. Node is on every
 * machine that runs the tests (CI has node and npm but no bun).
 */
export async function launchBrowser(): Promise<Browser> {
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
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    await close(options).catch(() => {});
    void proc.stdin.end();
    await proc.exited;
  };
  return browser;
}

/** test-output/screenshots under the repo root, created on first use. */
export function screenshotDir(): string {
  const dir = join(import.meta.dir, "..", "..", "test-output", "screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}
