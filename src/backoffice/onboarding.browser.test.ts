// Issue 30 in Chromium: an operator of a gateway with backoffice.require_2fa sets up 2FA before
// anything else; onboarding a merchant (name, default callback URL, first user) shows the key with
// "Copy API key", the first user's password once and "Send a test callback", which is delivered; a
// refused form keeps what was typed and says why in plain words, and leaves nothing behind; the
// first user chooses their own password at the first sign-in before any other page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { listMerchants } from "../merchants/service";
import { findUser } from "./users";
import { totpCode } from "./totp";
import { addUser, confirmIdentity, DESKTOP, PHONE, signIn } from "../testing/backoffice-browser";

const BROWSER_RETRY = { retry: 2, timeout: 120_000 };
let gw: TestGateway;
let browser: Browser;
let receiver: Receiver;
let op: { username: string; password: string };
let opCtx: BrowserContext;
let opPage: Page;
const firstUser = { username: "tea", password: "" };

beforeAll(async () => {
  receiver = startReceiver();
  // Sandbox chains leave require_2fa off by default; this gateway turns it on.
  gw = await startTestGateway({ config: { backoffice: { require_2fa: true } } });
  browser = await launchBrowser();
  op = await addUser(gw, "boss", "operator");
  opCtx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  opPage = await opCtx.newPage();
});
afterAll(async () => {
  await opCtx?.close();
  await browser?.close();
  await gw.stop();
  await receiver.stop();
});

test("require_2fa: an operator without 2FA is sent to set it up before any other page", async () => {
  const page = opPage;
  await signIn(page, gw.url, op);
  await page.getByRole("heading", { name: "Security" }).waitFor();
  expect(await page.getByRole("alert").innerText()).toContain("Set it up to continue");
  expect(await page.getByRole("navigation", { name: "Main" }).count()).toBe(0);
  await page.goto(gw.url + "/backoffice/payins");
  await page.getByRole("heading", { name: "Security" }).waitFor();
  expect(new URL(page.url()).pathname).toBe("/backoffice/security");
  await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
  await confirmIdentity(page, op.password);
  const secret = (await page.locator("[data-totp-secret]").innerText()).trim();
  await page.getByLabel("Authentication code").fill(totpCode(secret, gw.ctx.clock.now()));
  await page.getByRole("button", { name: "Turn on" }).click();
  await page.getByRole("heading", { name: "Recovery codes" }).waitFor();
  await page.goto(gw.url + "/backoffice/payins");
  await page.getByRole("heading", { name: "Pay-ins" }).waitFor();
}, BROWSER_RETRY);

test("onboarding: name, callback URL and first user in one form; key with Copy, password once, a test callback delivered", async () => {
  const page = opPage;
  await page.goto(gw.url + "/backoffice/merchants");
  await page.getByLabel("Name", { exact: true }).fill("Tea House");
  await page.getByLabel("Default callback URL (optional)").fill(receiver.url + "/cb");
  await page.getByLabel("First user's username (optional)").fill(firstUser.username);
  await page.getByRole("button", { name: "Create merchant" }).click();
  // A callback URL and a user: who can act and where callbacks go, so the password every time.
  await confirmIdentity(page, op.password);
  const key = (await page.locator("[data-api-key]").innerText()).trim();
  expect(key).toMatch(/^mch_[0-9a-f]{64}$/);
  await page.getByRole("button", { name: "Copy API key" }).click();
  await page.locator("[data-copy-status='new-api-key']").filter({ hasText: /Copied|Selected/ }).waitFor();
  firstUser.password = (await page.locator("[data-password]").innerText()).trim();
  expect(firstUser.password.length).toBe(20);
  expect(await page.getByRole("region", { name: "Next steps" }).innerText()).toContain(receiver.url + "/cb");
  await page.getByRole("button", { name: "Send a test callback" }).click();
  await page.getByText("Test callback queued").waitFor();
  const got = await receiver.waitFor((r) => r.length > 0, 20_000);
  expect(JSON.parse(got[0]!.text)).toMatchObject({ businessType: "test", status: "test" });
  const m = (await listMerchants(gw.ctx.db)).find((x) => x.name === "Tea House")!;
  expect(m.defaultCallbackUrl).toBe(receiver.url + "/cb");
  expect(await findUser(gw.ctx.db, firstUser.username)).toMatchObject({ role: "merchant", merchantId: m.id, mustChangePassword: true });
  // The delivery shows on the merchant's page.
  await page.reload();
  await page.getByRole("region", { name: "Test callbacks" }).getByText("delivered").waitFor({ timeout: 20_000 });
}, BROWSER_RETRY);

test("a refused onboarding or user form keeps what was typed, says why in plain words, and writes nothing", async () => {
  const page = opPage;
  await page.goto(gw.url + "/backoffice/merchants");
  await page.getByLabel("Name", { exact: true }).fill("Bad Shop");
  await page.getByLabel("Default callback URL (optional)").fill(receiver.url + "/cb");
  await page.getByLabel("First user's username (optional)").fill("no spaces allowed");
  await page.getByRole("button", { name: "Create merchant" }).click();
  await confirmIdentity(page, op.password);
  expect(await page.getByRole("alert").innerText()).toBe("A username is 1-64 characters of letters, digits and . _ @ -.");
  expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Bad Shop");
  expect(await page.getByLabel("First user's username (optional)").inputValue()).toBe("no spaces allowed");
  expect((await listMerchants(gw.ctx.db)).some((x) => x.name === "Bad Shop")).toBe(false);

  await page.goto(gw.url + "/backoffice/users");
  await page.getByLabel("New username").fill("clerk9");
  await page.getByLabel("Role").selectOption("merchant");
  await page.getByRole("button", { name: "Create user" }).click();
  await confirmIdentity(page, op.password);
  const alert = await page.getByRole("alert").innerText();
  expect(alert).toContain("Choose the merchant this user belongs to");
  expect(alert).not.toContain("--merchant");
  expect(await page.getByLabel("New username").inputValue()).toBe("clerk9");
  expect(await findUser(gw.ctx.db, "clerk9")).toBeUndefined();
}, BROWSER_RETRY);

test("first sign-in with a handed-over password: choose your own before anything else", async () => {
  expect(firstUser.password).not.toBe("");
  const ctx = await browser.newContext({ ...PHONE, locale: "en-US" });
  const page = await ctx.newPage();
  await signIn(page, gw.url, firstUser);
  await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
  await page.goto(gw.url + "/backoffice/payins");
  await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
  await page.getByLabel("New password", { exact: true }).fill("my-own-password-1");
  await page.getByLabel("Repeat new password").fill("my-own-password-2");
  await page.getByRole("button", { name: "Set password" }).click();
  expect(await page.getByRole("alert").innerText()).toContain("not the same");
  await page.getByLabel("New password", { exact: true }).fill("my-own-password-1");
  await page.getByLabel("Repeat new password").fill("my-own-password-1");
  await page.getByRole("button", { name: "Set password" }).click();
  // A merchant user: no 2FA step (require_2fa is for operators).
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  expect((await findUser(gw.ctx.db, firstUser.username))!.mustChangePassword).toBe(false);
  await page.getByRole("button", { name: "Sign out" }).click();
  await signIn(page, gw.url, { username: firstUser.username, password: "my-own-password-1" });
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await ctx.close();
}, BROWSER_RETRY);
