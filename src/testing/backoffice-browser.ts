// Shared steps of the back-office browser tests.
import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CLI_ACTOR } from "../audit/log";
import type { TestGateway } from "./harness";
import { createUser, type Role } from "../backoffice/users";

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

/** The guard's "Confirm it is you" step (DESIGN 10: actions that change where money goes or who can act). */
export async function confirmIdentity(page: Page, password: string): Promise<void> {
  await page.getByRole("heading", { name: "Confirm it is you" }).waitFor();
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole("button", { name: "Confirm", exact: true }).click();
}

/** Signs in over plain HTTP and returns the Cookie header of the session (for fetch-based checks). */
export async function httpSession(url: string, who: { username: string; password: string }): Promise<string> {
  const login = await fetch(url + "/backoffice/login");
  const pre = /sg_csrf=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")![1];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await login.text())![1];
  const res = await fetch(url + "/backoffice/login", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: `sg_csrf=${pre}` },
    body: new URLSearchParams({ _csrf: csrf, username: who.username, password: who.password, next: "/backoffice" }),
  });
  const session = /sg_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "");
  if (!session) throw new Error(`sign-in failed: ${res.status}`);
  return `sg_session=${session[1]}`;
}

/** Opens `url + path` and lists axe-core's serious and critical violations there ("path: rule (impact) targets"). */
export async function axeAt(page: Page, url: string, path: string): Promise<string[]> {
  await page.goto(url + path);
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${path}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
