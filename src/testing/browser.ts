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
 * "Browser tests: CPU": a start costs about 2.5 CPU-s). Its Playwright server starts while the
 * first file that imports this module loads: outside every hook and test, since bun test kills
 * the processes that a file's hooks and tests started when that file ends. Each file gets a
 * connection of its own to that server (a WebSocket, cheap): everything a page keeps (cookies,
 * storage, cache) lives in its contexts, and the client's protocol objects live in its
 * connection, so what an earlier file left behind (a test that timed out with operations still
 * pending) cannot break the next file's protocol state. `close()` closes the file's contexts; the
 * connection stays open until the process ends. Chromium ends with the test process (its
 * Playwright server exits when the process's end closes its stdin).
 */
interface BrowserServer {
  proc: Bun.Subprocess;
  wsEndpoint: string;
}

let server: Promise<BrowserServer> = startServer();
server.catch(() => {}); // reported by the launchBrowser() that awaits it
/** The connections of the files before, left open (see launchBrowser). */
const earlier: Browser[] = [];

/**
 * A connection of this file's own to the shared Chromium (a server that went away is started
 * again). The connections of earlier files stay open until the process ends: closing one let a
 * message for its pipe arrive after the pipe was gone ("Cannot find object to "message":
 * jsonPipe@…"), thrown into the next file's first test, and that file's connection was then broken
 * for every test ("Object with guid request@… was not bound in the connection"; a CI run of
 * 2026-11-29). An open WebSocket per browser file of the process costs nothing measurable.
 */
export async function launchBrowser(): Promise<Browser> {
  let s = await server.catch(() => undefined);
  if (!s || s.proc.exitCode !== null || s.proc.signalCode) {
    s?.proc.kill();
    server = startServer();
    s = await server;
  }
  const browser = await chromium.connect(s.wsEndpoint);
  // A file's afterAll closes what it opened; the connection stays (above).
  browser.close = async () => {
    await Promise.all(browser.contexts().map((c) => c.close().catch(() => {})));
  };
  earlier.push(browser);
  return browser;
}

/**
 * A Chromium driven through a Playwright server that runs under Node (browser-server.cjs), so
 * the protocol objects arrive in order. Node is on every machine that runs the tests (CI has
 * node and npm but no bun).
 */
async function startServer(): Promise<BrowserServer> {
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
  // Not left running when the test process ends on its own (bun exits with the server's pipe open).
  proc.unref();
  return { proc, wsEndpoint: text.trim() };
}

/** test-output/screenshots under the repo root, created on first use. */
export function screenshotDir(): string {
  const dir = join(import.meta.dir, "..", "..", "test-output", "screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}
