// CLI lists for people and runtime errors (issue 30): a header row over aligned columns, an empty
// list said in words, `--json` unchanged on every list; a runtime error is one short message and a
// pointer to `stablegate COMMAND --help`, never the help itself.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli, tempSetup, type TempSetup } from "../testing/process";
import { formatTable } from "./common";
import { TEST_ENGINE } from "../testing/engines";

const made: TempSetup[] = [];
afterAll(async () => {
  for (const s of made) {
    rmSync(s.dir, { recursive: true, force: true });
    await s.drop?.();
  }
});
const cli = (s: TempSetup, ...args: string[]) => runCli([...args, "--config", s.configPath], s.env);

test("formatTable: upper-case headers, aligned columns, '-' for nothing, words when empty", () => {
  expect(formatTable(["merchant", "status", "name"], [["M1", "active", "A shop"], ["M1000002", "disabled", null]], "no merchants")).toBe(
    ["MERCHANT  STATUS    NAME", "M1        active    A shop", "M1000002  disabled  -"].join("\n"),
  );
  expect(formatTable(["a"], [], "no rows")).toBe("no rows");
});

test("every list command: a header row or plain words when empty, and --json as before", async () => {
  const s = await tempSetup("", { engine: TEST_ENGINE });
  made.push(s);
  // Empty lists say so.
  const empty: [string[], string][] = [
    [["merchant", "list"], "no merchants"],
    [["user", "list"], "no users"],
    [["callbacks", "list"], "no callbacks"],
    [["callbacks", "list", "--failed"], "no callback gave up"],
    [["deposit", "list", "--unmatched"], "no unmatched deposits"],
    [["denylist", "list"], "the deny list is empty"],
    [["alerts", "list"], "no alerts"],
    [["restore", "list"], "no unrecorded outgoing transfer waits for acknowledgement"],
  ];
  for (const [args, words] of empty) {
    const r = cli(s, ...args);
    expect(r.code, args.join(" ")).toBe(0);
    expect(r.stdout.trim(), args.join(" ")).toBe(words);
    expect(JSON.parse(cli(s, ...args, "--json").stdout), args.join(" ")).toEqual([]);
  }
  const { merchantUid } = JSON.parse(cli(s, "merchant", "create", "--name", "Corner Shop", "--json").stdout);
  const merchants = cli(s, "merchant", "list").stdout.trim().split("\n");
  expect(merchants[0]).toMatch(/^MERCHANT\s+STATUS\s+NAME$/);
  expect(merchants[1]).toMatch(new RegExp(`^${merchantUid}\\s+active\\s+Corner Shop$`));
  expect(JSON.parse(cli(s, "merchant", "list", "--json").stdout)).toEqual([{ merchantUid, name: "Corner Shop", status: "active", createdAt: expect.any(String) }]);
  cli(s, "user", "create", "--username", "ops", "--role", "operator");
  expect(cli(s, "user", "list").stdout.split("\n")[0]).toMatch(/^USERNAME\s+ROLE\s+MERCHANT\s+STATUS\s+2FA$/);
  expect(cli(s, "audit", "list").stdout.split("\n")[0]).toMatch(/^AT\s+ACTOR\s+ROLE\s+ACTION\s+TARGET\s+CHANGE$/);
  expect(cli(s, "wallet", "gas").stdout.split("\n")[0]).toMatch(/^CHAIN\s+MODE\s+GAS WALLET$/);
});

test("a runtime error: one short message and where the usage is, not the help", async () => {
  const s = await tempSetup("", { engine: TEST_ENGINE });
  made.push(s);
  for (const [args, message, cmd] of [
    [["merchant", "disable", "M9999999"], "no merchant with UID M9999999", "merchant"],
    [["user", "create", "--username", "bob", "--role", "merchant"], "user create: a merchant user needs --merchant UID", "user"],
    [["order", "freeze", "PI123", "--reason", "x"], "error: no pay-in order PI123", "order"],
    [["callbacks", "resend", "EV1"], "no callback with event id EV1", "callbacks"],
  ] as const) {
    const r = cli(s, ...args);
    expect(r.code).toBeGreaterThan(0);
    expect(r.stderr.trim().split("\n")).toEqual([message, `(stablegate ${cmd} --help shows its usage)`]);
    expect(r.stdout).toBe("");
  }
});
