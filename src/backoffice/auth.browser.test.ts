// Sign-in, lockout, TOTP, sign-out, session expiry and CSRF in real Chromium
// against one gateway whose clock the test moves.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";
import { listAudit } from "../audit/log";
import { findUser } from "./users";
import { totpCode } from "./totp";
import { addUser, confirmIdentity, DESKTOP, PHONE, signIn, withSession } from "../testing/backoffice-browser";

const BROWSER_RETRY = { retry: 2 };
let gw: TestGateway;
let browser: Browser;
let n = 0;
/** A fresh user per attempt (tests may be retried). */
const fresh = async (name: string, role: "operator" | "merchant" = "operator") => await addUser(gw, `${name}${++n}`, role);
const clock = new TestClock(Date.parse("2026-11-21T08:00:00Z"));

beforeAll(async () => {
  gw = await startTestGateway({ clock, config: { backoffice: { session_idle: "30m", session_max: "12h" } } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

test("sign in, wrong password, sign out; HttpOnly SameSite=Strict cookie", async () => {
  const alice = await fresh("alice");
  const ctx = await browser.newContext({ ...PHONE, locale: "en-US" });
  const page = await ctx.newPage();
  await signIn(page, gw.url, { username: alice.username, password: "wrong-password-123" });
  expect(await page.getByRole("alert").innerText()).toBe("Wrong username or password.");
  await signIn(page, gw.url, alice);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  const cookie = (await ctx.cookies()).find((c) => c.name === "sg_session")!;
  expect(cookie.httpOnly).toBe(true);
  expect(cookie.sameSite).toBe("Strict");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByText("Signed out.").waitFor();
  await page.goto(gw.url + "/backoffice");
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  expect((await listAudit(gw.ctx.db, { actor: alice.username })).entries.some((e) => e.action === "user.sign_in")).toBe(true);
  await ctx.close();
}, BROWSER_RETRY);

test("five failures lock the username for 15 minutes, even with the right password", async () => {
  const bob = await fresh("bob");
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  for (let i = 0; i < 4; i++) {
    await signIn(page, gw.url, { username: bob.username, password: `nope-${i}-xxxxxxxx` });
    expect(await page.getByRole("alert").innerText()).toBe("Wrong username or password.");
  }
  await signIn(page, gw.url, { username: bob.username, password: "nope-5-xxxxxxxx" });
  expect(await page.getByRole("alert").innerText()).toContain("Too many failed sign-ins");
  await signIn(page, gw.url, bob);
  expect(await page.getByRole("alert").innerText()).toContain("Too many failed sign-ins");
  await clock.advance(15 * 60_000 + 1000);
  await signIn(page, gw.url, bob);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await ctx.close();
}, BROWSER_RETRY);

test("TOTP enrollment with a QR code, then sign-in asks for the authentication code", async () => {
  const carol = await fresh("carol");
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await signIn(page, gw.url, carol);
  await page.getByRole("link", { name: "Security" }).click();
  await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
  await confirmIdentity(page, carol.password);
  expect(await page.getByRole("img", { name: "QR code for your authenticator app" }).isVisible()).toBe(true);
  const secret = (await page.locator("[data-totp-secret]").innerText()).trim();
  await page.getByLabel("Authentication code").fill("000000");
  await page.getByRole("button", { name: "Turn on" }).click();
  expect(await page.getByRole("alert").innerText()).toContain("not valid");
  await page.getByLabel("Authentication code").fill(totpCode(secret, clock.now()));
  await page.getByRole("button", { name: "Turn on" }).click();
  await page.getByRole("heading", { name: "Recovery codes" }).waitFor();
  const recovery = (await page.locator("ul.secret li").allInnerTexts()).map((s) => s.trim());
  expect(recovery).toHaveLength(10);
  expect((await findUser(gw.ctx.db, carol.username))!.totpEnabledAt).not.toBeNull();
  await page.getByRole("button", { name: "Sign out" }).click();

  // Password alone is not enough now.
  await signIn(page, gw.url, carol);
  await page.getByLabel("Authentication code").waitFor();
  await page.goto(gw.url + "/backoffice");
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await signIn(page, gw.url, carol);
  // The code used for enrollment is spent; the next one works.
  await page.getByLabel("Authentication code").fill(totpCode(secret, clock.now()));
  await page.getByRole("button", { name: "Verify" }).click();
  expect(await page.getByRole("alert").innerText()).toContain("not valid");
  await clock.advance(30_000);
  const code = totpCode(secret, clock.now());
  await page.getByLabel("Authentication code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();
  // A code works once: replaying it is refused.
  await signIn(page, gw.url, carol);
  await page.getByLabel("Authentication code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
  expect(await page.getByRole("alert").innerText()).toContain("not valid");

  // A recovery code works once.
  for (const expectOk of [true, false]) {
    await signIn(page, gw.url, carol);
    await page.getByLabel("Authentication code").fill(recovery[0]);
    await page.getByRole("button", { name: "Verify" }).click();
    if (expectOk) {
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      await page.getByRole("button", { name: "Sign out" }).click();
    } else expect(await page.getByRole("alert").innerText()).toContain("not valid");
  }
  await ctx.close();
}, BROWSER_RETRY);

test("sessions end after session_idle without a request and after session_max in any case", async () => {
  const dave = await fresh("dave");
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await signIn(page, gw.url, dave);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await clock.advance(29 * 60_000);
  await page.goto(gw.url + "/backoffice");
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await clock.advance(31 * 60_000);
  await page.goto(gw.url + "/backoffice");
  await page.getByRole("button", { name: "Sign in" }).waitFor();

  await signIn(page, gw.url, dave);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  // Active every 20 minutes: alive for 12 hours, then over.
  for (let t = 0; t < 12 * 60; t += 20) {
    await clock.advance(20 * 60_000);
    expect((await page.request.get(gw.url + "/backoffice", { maxRedirects: 0 })).status()).toBe(200);
  }
  await clock.advance(60_000);
  expect((await page.request.get(gw.url + "/backoffice", { maxRedirects: 0 })).status()).toBe(303);
  await page.goto(gw.url + "/backoffice");
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await ctx.close();
}, BROWSER_RETRY);

test("a POST without the CSRF token is 403 and changes nothing", async () => {
  const erin = await fresh("erin");
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await withSession(page, gw.url, erin); // the form is the first test's; this one is about the token
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  // Same cookies as the page; only the token is missing or wrong.
  for (const form of [{} as Record<string, string>, { _csrf: "forged" }]) {
    const r = await page.request.post(gw.url + "/backoffice/security/password", { form: { ...form, current: erin.password, new: "a-brand-new-password" }, maxRedirects: 0 });
    expect(r.status()).toBe(403);
    const out = await page.request.post(gw.url + "/backoffice/logout", { form, maxRedirects: 0 });
    expect(out.status()).toBe(403);
  }
  expect(await Bun.password.verify(erin.password, (await findUser(gw.ctx.db, erin.username))!.passwordHash)).toBe(true);
  await page.goto(gw.url + "/backoffice");
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  // The login form itself needs its token too.
  const login = await page.request.post(gw.url + "/backoffice/login", { form: { username: erin.username, password: erin.password }, maxRedirects: 0 });
  expect(login.status()).toBe(403);
  await ctx.close();
}, BROWSER_RETRY);

test("money and key actions ask for the password again when the last entry is older than 5 minutes", async () => {
  const fran = await fresh("fran");
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await withSession(page, gw.url, fran); // a real sign-in over HTTP: the last entry is now
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await clock.advance(6 * 60_000);
  await page.getByRole("link", { name: "Merchants" }).click();
  await page.getByLabel("Name", { exact: true }).fill("Reauth Shop");
  await page.getByRole("button", { name: "Create merchant" }).click();
  await page.getByRole("heading", { name: "Confirm it is you" }).waitFor();
  await page.getByLabel("Password").fill("not-my-password");
  await page.getByRole("button", { name: "Confirm" }).click();
  expect(await page.getByRole("alert").innerText()).toContain("not right");
  await page.getByLabel("Password").fill(fran.password);
  await page.getByRole("button", { name: "Confirm" }).click();
  const key = (await page.locator("[data-api-key]").innerText()).trim();
  expect(key).toMatch(/^mch_[0-9a-f]{64}$/);
  // Shown once: the merchant's page does not show it again.
  await page.getByRole("link", { name: "Merchants" }).click();
  expect(await page.content()).not.toContain(key);
  expect((await listAudit(gw.ctx.db, { action: "merchant.create" })).entries[0]).toMatchObject({ actor: fran.username, role: "operator" });
  await ctx.close();
}, BROWSER_RETRY);

test("the session cookie is Secure when public_url is https", async () => {
  const { backofficeDeps, setCookie } = await import("./guard");
  const d = backofficeDeps({ ...gw.ctx, publicUrl: "https://pay.example.com" }, () => {});
  expect(setCookie(d, "sg_session", "x")).toBe("sg_session=x; Path=/backoffice; HttpOnly; SameSite=Strict; Secure");
  expect(setCookie(backofficeDeps(gw.ctx, () => {}), "sg_session", "x")).not.toContain("Secure");
});

test("the Security page lists the user's sessions and ends another one", async () => {
  const gil = await fresh("gil");
  const a = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const b = await browser.newContext({ ...PHONE, locale: "en-US" });
  const pa = await a.newPage();
  const pb = await b.newPage();
  // Two real sign-ins over HTTP (the form is the first test's), each cookie in its own context.
  await withSession(pa, gw.url, gil);
  await withSession(pb, gw.url, gil);
  await pb.getByRole("heading", { name: "Dashboard" }).waitFor();
  await pa.goto(gw.url + "/backoffice/security");
  const rows = pa.getByRole("region", { name: "Sessions" }).locator("tbody tr");
  expect(await rows.count()).toBe(2);
  await pa.getByRole("button", { name: /^End the session/ }).click();
  await pa.getByText("Session ended.").waitFor();
  expect(await rows.count()).toBe(1);
  await pb.reload();
  await pb.getByRole("button", { name: "Sign in" }).waitFor();
  await a.close();
  await b.close();
}, BROWSER_RETRY);
