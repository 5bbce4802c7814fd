// Shared steps of the back-office browser tests.
import { analyzeAxe } from "./axe";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CLI_ACTOR } from "../audit/log";
import type { TestGateway } from "./harness";
import { createUser, type Role } from "../backoffice/users";
import { sandboxClient } from "./sandbox";
import { uploadBatch } from "../treasury/batch";
import { previewCollection, setCollectionSetting } from "../treasury/collection";
import { randomAddress } from "../wallet/hd";

export async function addUser(gw: TestGateway, username: string, role: Role, merchantUid?: string): Promise<{ username: string; password: string }> {
  const deps = { db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => gw.ctx.clock.now() };
  const { password } = await createUser(deps, { username, role, merchantUid }, CLI_ACTOR);
  return { username, password };
}

export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 };
export const DESKTOP = { viewport: { width: 1280, height: 800 } };

/**
 * A new context signed in as `who`, its page on the dashboard. The session comes from a real
 * sign-in over HTTP (the form's POST, as `httpSession`), its cookie put in the context as the
 * gateway set it: typing into the sign-in page in Chromium cost about 1 CPU-s more per context
 * (the login page's render, the form, the redirect), and the pages that use this are not testing
 * sign-in (auth.browser.test.ts does, through `signIn`). docs/testing.md "Browser tests: CPU".
 */
export async function signedIn(browser: Browser, gw: TestGateway, who: { username: string; password: string }, size = DESKTOP): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ ...size, locale: "en-US" });
  const page = await ctx.newPage();
  await withSession(page, gw.url, who);
  return { ctx, page };
}

/** `page` signed in as `who` the way `signedIn` does it (a real sign-in over HTTP, its cookie in the page's context), then on the dashboard. */
export async function withSession(page: Page, url: string, who: { username: string; password: string }): Promise<void> {
  await page.context().addCookies([sessionCookie(url, await httpSession(url, who))]);
  await page.goto(url + "/backoffice");
}

/** The session cookie with the attributes guard.ts `setCookie` gives it (Path=/backoffice, HttpOnly, SameSite=Strict; Secure only over HTTPS). */
function sessionCookie(url: string, header: string): Parameters<BrowserContext["addCookies"]>[0][number] {
  const eq = header.indexOf("=");
  const [name, value] = [header.slice(0, eq), header.slice(eq + 1)];
  const u = new URL(url);
  return { name, value, domain: u.hostname, path: "/backoffice", httpOnly: true, sameSite: "Strict", secure: u.protocol === "https:" };
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
  return axeHere(page, path);
}

/** axe-core's serious and critical violations on the page as it is now, no navigation ("label: rule (impact) targets"). */
export async function axeHere(page: Page, label: string): Promise<string[]> {
  const r = await analyzeAxe(page);
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${label}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * `axeAt` at both sizes with one load: at 1280, then with the viewport resized to 390 in the same
 * document (the back office's CSS changes with width only; docs/testing.md "Browser tests:
 * cheaper files"). The page is left at 1280.
 */
export async function axeAtBothSizes(page: Page, url: string, path: string): Promise<string[]> {
  await page.setViewportSize(DESKTOP.viewport);
  const found = await axeAt(page, url, path);
  await page.setViewportSize(PHONE.viewport);
  found.push(...(await axeHere(page, `${path} (390)`)));
  await page.setViewportSize(DESKTOP.viewport);
  return found;
}

/** What seedPages made: a record for every kind of back-office page. */
export interface SeededPages {
  /** A completed pay-in (also the address of an unmatched deposit). */
  paid: Record<string, string>;
  /** The txHash of the unmatched deposit (the search opens its page). */
  stray: string;
  /** A frozen (short-paid) pay-in. */
  frozen: Record<string, string>;
  payout?: string;
  wallet?: string;
  invoice: string;
  batch: string;
  run: string;
}

/**
 * Demo data for the back-office page sweeps (layout and language tests, screenshots): a paid
 * order, an unmatched deposit, a frozen order, a funded exclusive wallet with a payout, an
 * invoice, a batch in preview and a collection run of the harness's merchant.
 */
export async function seedPages(gw: TestGateway): Promise<SeededPages> {
  const d = {} as SeededPages;
  const sb = sandboxClient(gw.url);
  const create = (merchantOrderNo: string, amount: string) =>
    gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount, notifyUrl: "https://shop.example/cb" } });
  d.paid = await create("LAYOUT-1", "5");
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: d.paid.address!, amount: "5" });
  await sb.mine("TRON", 2);
  // An unmatched deposit and a frozen order: the exceptions page with its Attach and Release.
  d.stray = String((await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: d.paid.address!, amount: "0.5" })).txHash);
  await sb.mine("TRON", 2);
  const frozen = (d.frozen = await create("LAYOUT-2", "2"));
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: frozen.address!, amount: "1.5" });
  await sb.mine("TRON", 2);
  const b = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "fund-1" } });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address!, amount: "20" });
  await sb.mine("TRON", 2);
  try {
    const po = await gw.client.request<Record<string, string>>("POST", "/openapi/payout/orders", {
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "LPO-1", fromAddress: b.address, toAddress: randomAddress("TRON"), amount: "1", notifyUrl: "https://shop.example/po" },
    });
    d.payout = po.orderNo;
  } catch {
    // A payout needs a funded source; without one its page is left out.
  }
  d.wallet = gw.ctx.db.$client.query<{ id: string }, [string]>("SELECT id FROM bindings WHERE bind_key = ?").get("fund-1")?.id;
  d.invoice = (await gw.client.createInvoice({ merchantOrderNo: "LAYOUT-INV", priceAmount: "5", priceCurrency: "USD" })).invoiceNo;
  // A batch in preview (two rows, one refused) and a collection run: their pages.
  const csv = `chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\nTRON,USDT,${randomAddress("TRON")},1,LB-1\nTRON,USDT,TNotAnAddress0000000000000000000,1,LB-2\n`;
  d.batch = (await uploadBatch(gw.ctx, gw.merchant.id, { name: "payouts.csv", bytes: new TextEncoder().encode(csv) }, CLI_ACTOR)).id;
  await setCollectionSetting(gw.ctx, gw.merchant.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: randomAddress("TRON"), minimum: "1", confirmedWithPassword: true }, CLI_ACTOR);
  d.run = String((await previewCollection(gw.ctx, gw.merchant.id, "TRON", "USDT", CLI_ACTOR)).id);
  return d;
}

/** Actions in the main content outside the viewport, and how far the page scrolls sideways. */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out: string[] = [];
    const sw = document.documentElement.scrollWidth;
    if (sw > vw) out.push(`the page is ${sw} px wide in a ${vw} px viewport`);
    for (const el of Array.from(document.querySelectorAll("main button, main a[href], main summary"))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not shown (a closed menu, a button the script reveals)
      if (r.left < -0.5 || r.right > vw + 0.5) out.push(`"${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 40)}" at ${Math.round(r.left)}-${Math.round(r.right)} px`);
    }
    return out;
  });
}

