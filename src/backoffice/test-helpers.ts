// Shared steps of the back-office browser tests.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CLI_ACTOR } from "../audit/log";
import type { TestGateway } from "../testing/harness";
import { createUser, type Role } from "./users";

export function addUser(gw: TestGateway, username: string, role: Role, merchantUid?: string): { username: string; password: string } {
  const deps = { db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => gw.ctx.clock.now() };
  const { password } = createUser(deps, { username, role, merchantUid }, CLI_ACTOR);
  return { username, password };
}

export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 };
export const DESKTOP = { viewport: { width: 1280, height: 800 } };

export async function signedIn(browser: Browser, gw: TestGateway, who: { username: string; password: string }, size = DESKTOP): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ ...size, locale: "en-US" });
  const page = await ctx.newPage();
  await signIn(page, gw.url, who);
  return { ctx, page };
}

export async function signIn(page: Page, url: string, who: { username: string; password: string }): Promise<void> {
  await page.goto(url + "/backoffice/login");
  await page.getByLabel("Username").fill(who.username);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}
