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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** test-output/screenshots under the repo root, created on first use. */
export function screenshotDir(): string {
  const dir = join(import.meta.dir, "..", "..", "test-output", "screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}
