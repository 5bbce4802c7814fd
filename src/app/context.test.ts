import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { createContext } from "./context";
import { loadConfig } from "../config/load";
import { afterCommit, writeTx } from "../db/client";
import { createLogger } from "../lib/logger";
import { tempSetup, type TempSetup } from "../testing/process";

let s: TempSetup | undefined;
afterAll(() => s && rmSync(s.dir, { recursive: true, force: true }));

test("a failing after-commit hook is logged through the context's logger, and its write stays committed", async () => {
  s = await tempSetup();
  const lines: string[] = [];
  const ctx = await createContext({ loaded: loadConfig(s.configPath), env: s.env, logger: createLogger({ sink: (l) => lines.push(l) }) });
  try {
    await writeTx(ctx.db, (tx) => {
      tx.$client.run("CREATE TABLE hook_probe (x INTEGER)");
      afterCommit(tx, () => {
        throw new Error("hook boom");
      });
    });
    expect(ctx.db.$client.query("SELECT count(*) AS n FROM sqlite_master WHERE name = 'hook_probe'").get()).toEqual({ n: 1 });
    const logged = lines.map((l) => JSON.parse(l)).find((r) => r.msg === "after-commit hook failed");
    expect(logged?.level).toBe("error");
    expect(logged?.error).toContain("hook boom");
  } finally {
    ctx.db.$client.close();
  }
});
