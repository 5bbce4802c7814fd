// `stablegate user …`, `serve --demo` users and the one-time setup link, run as
// an operator would: separate processes against one database.
import { expect, test } from "bun:test";
import { runCli, startGatewayProcess, tempSetups, type TempSetup } from "../testing/process";
import { eventually } from "../testing/wait";
import { httpSession } from "../testing/backoffice-browser";
import { postLogin } from "../testing/backoffice-client";
import { TEST_ENGINE } from "../testing/engines";

const setup = tempSetups();
const cli = (s: TempSetup, ...args: string[]) => runCli([...args, "--config", s.configPath], s.env);
const until = (fn: () => boolean, ms = 10_000) => eventually(fn, ms, "gateway output");

test("user create, list, disable, reset-password, reset-2fa; a running serve sees each at once; each is audited", async () => {
  const s = await setup("", { engine: TEST_ENGINE });
  const gw = await startGatewayProcess(s);
  try {
    const { merchantUid } = JSON.parse(cli(s, "merchant", "create", "--name", "shop", "--json").stdout);
    const op = cli(s, "user", "create", "--username", "ops", "--role", "operator", "--json");
    expect(op.code).toBe(0);
    const created = JSON.parse(op.stdout.trim());
    expect(Object.keys(created).sort()).toEqual(["password", "username"]);
    expect(created.password.length).toBeGreaterThanOrEqual(16);
    const mu = JSON.parse(cli(s, "user", "create", "--username", "clerk", "--role", "merchant", "--merchant", merchantUid, "--json").stdout);

    // Refusals: clear message, non-zero exit, nothing written.
    expect(cli(s, "user", "create", "--username", "x", "--role", "merchant").code).toBe(2);
    expect(cli(s, "user", "create", "--username", "ops", "--role", "operator").stderr).toContain("already exists");
    expect(cli(s, "user", "create", "--username", "y", "--role", "merchant", "--merchant", "M9999999").code).toBe(2);
    expect(cli(s, "user", "disable", "nobody").code).toBe(2);

    const list = JSON.parse(cli(s, "user", "list", "--json").stdout);
    expect(list).toMatchObject([
      { username: "ops", role: "operator", merchantUid: null, status: "active", totp: false },
      { username: "clerk", role: "merchant", merchantUid, status: "active", totp: false },
    ]);

    // The running gateway accepts the new user at once; disabling ends the session.
    const cookie = await httpSession(s.url, mu);
    expect((await fetch(s.url + "/backoffice", { headers: { cookie }, redirect: "manual" })).status).toBe(200);
    expect(cli(s, "user", "disable", "clerk").code).toBe(0);
    expect((await fetch(s.url + "/backoffice", { headers: { cookie }, redirect: "manual" })).status).toBe(303);
    await expect(httpSession(s.url, mu)).rejects.toThrow();
    expect(cli(s, "user", "enable", "clerk").code).toBe(0);

    // DESIGN 10: a lockout never locks a user out of recovery: reset-password ends the lock.
    for (let i = 0; i < 5; i++) await postLogin(s.url, { username: "clerk", password: `wrong-${i}-xxxxxxxx` });
    expect((await postLogin(s.url, mu)).status).toBe(429);
    const reset = JSON.parse(cli(s, "user", "reset-password", "clerk", "--json").stdout);
    expect(reset.username).toBe("clerk");
    await expect(httpSession(s.url, mu)).rejects.toThrow();
    await httpSession(s.url, reset);
    expect(cli(s, "user", "reset-2fa", "clerk").code).toBe(0);

    const audit = JSON.parse(cli(s, "audit", "list", "--json").stdout) as { actor: string; action: string; target: string }[];
    const actions = audit.filter((e) => e.target.startsWith("user:")).map((e) => `${e.actor} ${e.action} ${e.target}`);
    expect(actions).toEqual(
      expect.arrayContaining(["cli user.create user:ops", "cli user.create user:clerk", "cli user.disable user:clerk", "cli user.enable user:clerk", "cli user.reset_password user:clerk", "cli user.reset_2fa user:clerk"]),
    );
  } finally {
    await gw.kill();
  }
}, 120_000);

test("plain serve with no operator prints a one-time setup link that creates the first one", async () => {
  const s = await setup("", { engine: TEST_ENGINE });
  const gw = await startGatewayProcess(s);
  try {
    await until(() => gw.stdout().includes("/backoffice/setup/"));
    const link = /(http:\/\/\S+\/backoffice\/setup\/[A-Za-z0-9_-]+)/.exec(gw.stdout())![1];
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const pre = /sg_csrf=([^;]+)/.exec(page.headers.get("set-cookie") ?? "")![1];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
    const post = (password: string) =>
      fetch(link, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: `sg_csrf=${pre}` },
        body: new URLSearchParams({ _csrf: csrf, username: "owner", password }),
      });
    // Someone guessing the well-known name before it exists does not lock its owner out.
    for (let i = 0; i < 5; i++) await postLogin(s.url, { username: "owner", password: `guess-${i}-xxxxxxxx` });
    expect((await post("short")).status).toBe(400);
    expect((await post("a-long-enough-password")).status).toBe(303);
    await httpSession(s.url, { username: "owner", password: "a-long-enough-password" });
    // One use only.
    expect((await fetch(link)).status).toBe(404);
    expect((await post("another-long-password")).status).toBe(404);
  } finally {
    await gw.kill();
  }
}, 120_000);

// serve --demo makes a SQLite data folder: refused on PostgreSQL (postgres.e2e.test.ts).
test.skipIf(TEST_ENGINE === "pg")("serve --demo creates admin and demo and prints their passwords once", async () => {
  const s = await setup();
  const gw = await startGatewayProcess(s, { args: ["--demo"] });
  let admin = "";
  let demo = "";
  try {
    await until(() => /demo\s+\(merchant\)\s+password: \S+/.test(gw.stdout()));
    admin = /admin\s+\(operator\)\s+password: (\S+)/.exec(gw.stdout())![1];
    demo = /demo\s+\(merchant\)\s+password: (\S+)/.exec(gw.stdout())![1];
    expect(gw.stdout()).not.toContain("/backoffice/setup/");
    await httpSession(s.url, { username: "admin", password: admin });
    await httpSession(s.url, { username: "demo", password: demo });
  } finally {
    await gw.kill();
  }
  const again = await startGatewayProcess(s, { args: ["--demo"] });
  try {
    await until(() => again.stdout().includes("back office:"));
    expect(again.stdout()).not.toContain(admin);
    expect(again.stdout()).not.toContain("password:");
  } finally {
    await again.kill();
  }
  const users = JSON.parse(cli(s, "user", "list", "--json").stdout);
  expect(users).toMatchObject([{ username: "admin", role: "operator" }, { username: "demo", role: "merchant" }]);
}, 120_000);
