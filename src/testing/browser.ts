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
 * connection of its own to that server: everything a page keeps (cookies, storage, cache) lives in
 * its contexts, and the client's protocol objects live in its connection. `close()` closes the
 * file's contexts; the connection stays open until the process ends. Chromium ends with the test
 * process (its Playwright server exits when the process's end closes its stdin).
 *
 * The connection is Bun's own WebSocket straight into a Playwright client `Connection`
 * (`ownConnection`), not `chromium.connect()`. Under Bun, `connect()` runs half a Playwright
 * server inside the test process: its LocalUtils opens the WebSocket with the bundled `ws`
 * (inflating large frames through node:zlib), wraps every message of every file's connection as
 * an event of a `JsonPipe` object of ONE in-process root connection, and hands each across a
 * setImmediate. CI runs broke there (2026-11-29, ci6, ci9, ci14 and a run alone under load,
 * always checkout.browser's first test): the root connection got a message for a pipe it did not
 * know ("Cannot find object to "message": jsonPipe@…", thrown out of a setImmediate into
 * whichever test ran), and the file's connection got a reference to a request it had not been
 * told of ("Object with guid request@… was not bound in the connection") and closed for every
 * later test. Nothing of that path is left: no in-process dispatcher, no root connection shared
 * by the files, no `ws`/zlib under Bun; a connection's messages arrive on its own socket, in
 * order, to its own `Connection`, and an error in one closes that one only (never thrown into
 * the event loop).
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
 * again). The connections of earlier files stay open until the process ends: a test that timed
 * out may still have operations pending on its connection, and they end there, not in the next
 * file. An open WebSocket per browser file of the process costs nothing measurable.
 *
 * The handle reconnects: a connection that closed under a test (the calls pending on it reject
 * with which side closed it, see `ownConnection`) is replaced at the file's next `newContext` or
 * `newPage`, so one dead connection fails one test, not every later one of the file.
 */
export async function launchBrowser(): Promise<Browser> {
  const connections = [await ownConnection(await browserServerEndpoint())];
  earlier.push(connections[0]!);
  const live = async (): Promise<Browser> => {
    const current = connections.at(-1)!;
    if (current.isConnected() && sockets.get(current)?.readyState === WebSocket.OPEN) return current;
    const fresh = await ownConnection(await browserServerEndpoint());
    connections.push(fresh);
    earlier.push(fresh);
    return fresh;
  };
  const own: Partial<Browser> = {
    newContext: async (options) => (await live()).newContext(options),
    newPage: async (options) => (await live()).newPage(options),
    // A file's afterAll closes what it opened, on every connection it had; the connections stay (above).
    close: async () => {
      await Promise.all(connections.flatMap((b) => b.contexts()).map((c) => c.close().catch(() => {})));
    },
  };
  // Everything else is the current connection's (a target of its own: no invariant ties the handle to one connection).
  const handle = new Proxy(Object.create(Object.getPrototypeOf(connections[0])) as Browser, {
    get(_target, prop) {
      if (typeof prop === "string" && prop in own) return own[prop as keyof Browser];
      const current = connections.at(-1)!;
      const v = Reflect.get(current, prop, current) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(current) : v;
    },
  });
  handleConnections.set(handle, connections);
  return handle;
}

/** The WebSocket endpoint of this process's browser server (started again when it went away). */
export async function browserServerEndpoint(): Promise<string> {
  let s = await server.catch(() => undefined);
  if (!s || s.proc.exitCode !== null || s.proc.signalCode) {
    s?.proc.kill();
    server = startServer();
    s = await server;
  }
  return s.wsEndpoint;
}

/**
 * The parts of playwright-core's client this needs that its typings do not show. `Connection` is
 * the client's protocol state (objects by guid, pending calls); its class is the one of the
 * in-process client, which carries no message here.
 */
interface ClientConnection {
  onmessage: (message: object) => void;
  dispatch(message: object): void;
  close(cause?: string): void;
  markAsRemote(): void;
  on(event: "close", f: () => void): void;
  initializePlaywright(): Promise<{ _initializer: { preLaunchedBrowser?: { _object: Browser } } }>;
}
type ConnectionClass = new (localUtils?: unknown, instrumentation?: unknown, headers?: unknown[]) => ClientConnection;
interface BrowserInternals {
  _connectToBrowserType(browserType: unknown, options: object, logger: undefined): void;
  _shouldCloseConnectionOnClose: boolean;
  _didClose(): void;
}
interface ContextInternals {
  _onClose(): void;
  pages(): { _onClose(): void }[];
}

/**
 * What `chromium.connect(wsEndpoint)` gives, over Bun's WebSocket (see above): the server's
 * pre-launched browser in a client `Connection` of its own, marked remote (binary data as base64,
 * files streamed), with the same bookkeeping `connect()` does (playwright-core
 * src/client/connect.ts `connectToBrowser`).
 */
async function ownConnection(wsEndpoint: string): Promise<Browser> {
  const Connection = (chromium as unknown as { _connection: { constructor: ConnectionClass } })._connection.constructor;
  const ws = new WebSocket(wsEndpoint, { headers: { "x-playwright-browser": "chromium" } } as unknown as string[]);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot connect to the browser server at ${wsEndpoint}`)), { once: true });
  });
  const connection = new Connection(undefined, undefined, []);
  connection.markAsRemote();
  let closeError: string | undefined;
  connection.onmessage = (message) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  };
  ws.addEventListener("message", (event) => {
    try {
      connection.dispatch(JSON.parse(String(event.data)) as object);
    } catch (e) {
      // A message this connection cannot place: this file's connection ends (its calls reject with why).
      closeError = String(e);
      ws.close();
    }
  });
  ws.addEventListener("close", (event) => {
    // Which side ended it goes into the error of every call pending on it (and of later ones);
    // a moment first, so a browser server that died has been seen exiting.
    setTimeout(() => {
      const why = closeError ? `closed by this test process: ${closeError}` : closedBy(event, wsEndpoint);
      console.warn(`browser connection to ${wsEndpoint} ${why}`);
      connection.close(`Target page, context or browser has been closed: the browser connection was ${why}`);
    }, 200);
  });
  let browser: (Browser & BrowserInternals) | undefined;
  connection.on("close", () => {
    for (const context of (browser?.contexts() ?? []) as unknown as ContextInternals[]) {
      for (const page of context.pages()) page._onClose();
      context._onClose();
    }
    setTimeout(() => browser?._didClose(), 0);
  });
  const playwright = await connection.initializePlaywright();
  const pre = playwright._initializer.preLaunchedBrowser;
  if (!pre) throw new Error(`${wsEndpoint} is no browser server (BrowserType.launchServer)`);
  browser = pre._object as Browser & BrowserInternals;
  browser._shouldCloseConnectionOnClose = true;
  browser.on("disconnected", () => {
    // With the socket still open, the server reported the browser itself gone (Chromium closed or crashed).
    if (ws.readyState === WebSocket.OPEN) closeError ??= "the browser server reported Chromium disconnected";
    ws.close();
  });
  browser._connectToBrowserType(chromium, {}, undefined);
  sockets.set(browser, ws);
  drops.set(browser, (why) => {
    closeError = why;
    ws.close();
  });
  return browser;
}

/** Each connection's socket: one no longer open is replaced at once, before its close has reached the client objects. */
const sockets = new WeakMap<Browser, WebSocket>();
/** Each connection's way to close itself from this side (dropBrowserConnection). */
const drops = new WeakMap<Browser, (why: string) => void>();

/** Closes the connection a `launchBrowser()` handle is on now, from this side: for the test of the reconnect. */
export function dropBrowserConnection(handle: Browser, why: string): void {
  drops.get(handleConnections.get(handle)?.at(-1) ?? handle)?.(why);
}

/** The connections behind each launchBrowser() handle, oldest first. */
const handleConnections = new WeakMap<Browser, Browser[]>();

/** Why a browser connection closed that this side did not close: the server's close frame, or the server process gone. */
function closedBy(event: CloseEvent, wsEndpoint: string): string {
  const proc = serverProcs.get(wsEndpoint);
  const exited = proc && (proc.exitCode !== null || proc.signalCode) ? `; the browser server process exited (${proc.signalCode ?? `code ${proc.exitCode}`})` : "";
  const frame = event.code === 1006 ? "without a close frame (code 1006: the socket dropped)" : `with code ${event.code}${event.reason ? ` "${event.reason}"` : ""}`;
  return `closed by the browser server side, ${frame}${exited}`;
}

/** The browser server processes by their endpoint (closedBy reads whether one exited). */
const serverProcs = new Map<string, Bun.Subprocess>();

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
  const wsEndpoint = text.trim();
  serverProcs.set(wsEndpoint, proc);
  return { proc, wsEndpoint };
}

/** test-output/screenshots under the repo root, created on first use. */
export function screenshotDir(): string {
  const dir = join(import.meta.dir, "..", "..", "test-output", "screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}
