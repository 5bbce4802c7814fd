import { afterEach, beforeEach, expect, spyOn, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "./main";
import { ENV_VARS } from "./usage";

let out: string[];
let err: string[];
let spies: Array<{ mockRestore(): void }>;
beforeEach(() => {
  out = [];
  err = [];
  spies = [spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" "))), spyOn(console, "error").mockImplementation((...a) => void err.push(a.join(" ")))];
});
afterEach(() => spies.forEach((s) => s.mockRestore()));

test("stablegate help lists every command and every environment variable", async () => {
  expect(await main(["help"])).toBe(0);
  const text = out.join("\n");
  for (const cmd of ["init", "wallet export-mnemonic", "serve", "migrate", "merchant create", "key rotate", "backup", "alerts list", "merchant set", "order freeze", "deposit attach", "denylist add", "audit list", "help"]) expect(text).toContain(cmd);
  for (const v of ["STABLEGATE_CONFIG", "STABLEGATE_MASTER_KEY", "STABLEGATE_WALLET_MNEMONIC", "STABLEGATE_BSC_TESTNET_RPC"]) expect(text).toContain(v);
});

test.each(["init", "serve", "migrate", "merchant", "key", "wallet", "callbacks", "alerts", "order", "deposit", "denylist", "audit", "backup", "help"])("%s --help prints that command's usage", async (cmd) => {
  expect(await main([cmd, "--help"])).toBe(0);
  expect(out.join("\n")).toStartWith("usage: stablegate");
  expect(out.join("\n")).toContain(cmd);
  expect(err).toEqual([]);
});

test("help COMMAND equals COMMAND --help; an unknown one is an error", async () => {
  await main(["help", "backup"]);
  const a = out.join("\n");
  out.length = 0;
  await main(["backup", "--help"]);
  expect(out.join("\n")).toBe(a);
  expect(await main(["help", "nope"])).toBe(2);
  expect(await main(["nope", "--help"])).toBe(2);
});

test("the README documents every environment variable the help names", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  for (const v of ENV_VARS) expect(readme, v).toContain(v);
});
