// A shop written in PHP for the plugin tests (src/compat/php-plugins.e2e.test.ts): Debian's php-cli
// built-in server on a free 127.0.0.1 port, routing every request through a harness script that
// loads a vendored plugin unchanged (src/compat/php/*.php). The shop's state is a JSON file in a
// temporary directory, removed at stop.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./wait";

export const PHP = process.env.PHP ?? "/usr/bin/php";

export interface PhpShop {
  url: string;
  get(path: string): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

export async function startPhpShop(router: string, env: Record<string, string>): Promise<PhpShop> {
  const dir = mkdtempSync(join(tmpdir(), "php-shop-"));
  const port = await freePort();
  const proc = Bun.spawn([PHP, "-S", `127.0.0.1:${port}`, router], {
    env: { ...env, STATE: join(dir, "state.json"), PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdout: "ignore",
    stderr: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await fetch(url + "/ping");
      break;
    } catch {
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`php -S did not start (${router})`);
      await Bun.sleep(50);
    }
  }
  return {
    url,
    async get(path) {
      const res = await fetch(url + path, { redirect: "manual" });
      return { status: res.status, text: await res.text() };
    },
    async stop() {
      proc.kill();
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
