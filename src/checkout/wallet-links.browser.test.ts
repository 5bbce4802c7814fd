// Each chain's QR codes, rendered by Chromium from the real pages of a live
// gateway and decoded (jsQR always, zbar too where zbarimg is installed), say
// exactly what docs/wallet-links.md promises.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import jsQR from "jsqr";
import { launchBrowser, screenshotDir } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { ROOT } from "../testing/process";
import { solanaReference } from "../payin/payment-uri";
import { defaultToken } from "../chains/registry";
import { toBaseUnits } from "../lib/money";

const BROWSER_RETRY = { retry: 2 };
const zbar = Bun.which("zbarimg");
if (!zbar) console.log("QR codes are decoded by jsQR only: zbarimg is not installed (apt-get install zbar-tools)");

/** The table "What the pages encode": chain + page -> QR template and button template. */
function promises(): Map<string, { qr: string; button: string }> {
  const doc = readFileSync(join(ROOT, "docs/wallet-links.md"), "utf8");
  const out = new Map<string, { qr: string; button: string }>();
  for (const m of doc.matchAll(/^\| ([A-Z]+) \| (checkout|deposit)(, fallback)? \| `([^`]+)` \| ([^|]*)\|$/gm)) {
    out.set(`${m[1]} ${m[2]}${m[3] ? " fallback" : ""}`, { qr: m[4]!, button: m[5]!.trim() });
  }
  return out;
}

function fill(template: string, v: { address: string; contract: string; units?: bigint; amount?: string; reference?: string; orderNo?: string }): string {
  return template
    .replace("<orderNo>", v.orderNo ?? "")
    .replace("<address>", v.address)
    .replace("<contract>", v.contract)
    .replace("<base units>", String(v.units))
    .replace("<amount>", v.amount ?? "")
    .replace("<reference>", v.reference ?? "");
}

let gw: TestGateway;
let browser: Browser;
beforeAll(async () => {
  // Every chain on, the ones that are off by default too (DESIGN 17).
  gw = await startTestGateway({ jobs: false, config: { chains: Object.fromEntries(CASES.map((c) => [c.chain, { enabled: true }])) } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

/** One blank page for reading PNGs, opened on first use (a page per image cost a renderer each). */
let blank: Page | undefined;

/** Pixels of a PNG, read by Chromium on a blank page (no CSP in the way). */
async function pixels(png: Buffer): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  if (!blank || blank.isClosed()) blank = await browser.newPage();
  const page = blank;
  const r = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    const g = c.getContext("2d")!;
    g.drawImage(img, 0, 0);
    const bytes = g.getImageData(0, 0, c.width, c.height).data;
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { b64: btoa(bin), width: c.width, height: c.height };
  }, png.toString("base64"));
  return { data: new Uint8ClampedArray(Buffer.from(r.b64, "base64")), width: r.width, height: r.height };
}

/** The QR image's text as a scanner reads it; zbar and jsQR must agree where both exist. */
async function decode(page: Page, name: string, file: string): Promise<string> {
  const path = join(screenshotDir(), file);
  const png = await page.getByRole("img", { name, exact: true }).screenshot({ path, scale: "css" });
  const px = await pixels(png);
  const js = jsQR(px.data, px.width, px.height);
  expect(js, `jsQR reads ${file}`).not.toBeNull();
  if (zbar) {
    const r = Bun.spawnSync([zbar, "--raw", "-q", path], { stdout: "pipe", stderr: "pipe" });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString().replace(/\n$/, "")).toBe(js!.data);
  }
  return js!.data;
}

async function walletButton(page: Page): Promise<string | null> {
  const link = page.getByRole("link", { name: "Open in wallet app" });
  return (await link.count()) ? await link.getAttribute("href") : null;
}

const CASES = [
  { chain: "TRON", token: "USDT", amount: "12.5" },
  { chain: "BSC", token: "USDC", amount: "7.25" },
  { chain: "SOL", token: "USDC", amount: "3.1" },
  { chain: "SOL", token: "USDT", amount: "4.2" },
  // DESIGN 17: EIP-681 with each chain's id.
  { chain: "ETH", token: "USDT", amount: "20.000001" },
  { chain: "POLYGON", token: "USDC", amount: "4.5" },
  { chain: "ARBITRUM", token: "USDT", amount: "9.99" },
  { chain: "BASE", token: "USDC", amount: "1.25" },
  // DESIGN 23.
  { chain: "OPTIMISM", token: "USDT", amount: "2.5" },
  { chain: "AVALANCHE", token: "USDC", amount: "6.75" },
  { chain: "XLAYER", token: "USDT", amount: "8.01" },
  { chain: "PLASMA", token: "USDT", amount: "15" },
  // DESIGN 23: Tonkeeper's ton://transfer with the jetton master and the order number as comment.
  { chain: "TON", token: "USDT", amount: "6.5" },
] as const;

describe("QR codes decode to what docs/wallet-links.md promises", () => {
  test("the table covers every chain's checkout and deposit page", () => {
    const p = promises();
    for (const c of CASES) for (const page of ["checkout", "deposit"]) expect(p.has(`${c.chain} ${page}`), `${c.chain} ${page}`).toBe(true);
  });

  for (const c of CASES) {
    test(`${c.chain} ${c.token}: checkout page and deposit page`, async () => {
      const p = promises();
      const { contract, decimals } = defaultToken(c.chain, c.token)!;
      const o = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
        body: { chainCode: c.chain, tokenSymbol: c.token, merchantOrderNo: `QR-${c.chain}-${c.token}`, amount: c.amount, notifyUrl: "https://shop.example/cb" },
      });
      const values = { address: o.address!, contract, units: toBaseUnits(c.amount, decimals), amount: c.amount, reference: solanaReference(o.orderNo!), orderNo: o.orderNo! };
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, locale: "en-US" });
      const page = await ctx.newPage();

      await page.goto(o.cashierUrl!);
      const main = p.get(`${c.chain} checkout`)!;
      expect(await decode(page, "QR code of the payment request", `qr-${c.chain}-${c.token}-checkout.png`)).toBe(fill(main.qr, values));
      expect(await walletButton(page)).toBe(main.button === "none" ? null : main.button === "the same URI" ? fill(main.qr, values) : fill(main.button.replace(/`/g, ""), values));
      const fallback = p.get(`${c.chain} checkout fallback`);
      if (fallback) {
        await page.getByText("Wallet cannot read the code? Scan the address only").click();
        expect(await decode(page, "QR code of the address", `qr-${c.chain}-${c.token}-checkout-address.png`)).toBe(fill(fallback.qr, values));
      } else {
        expect(await page.getByRole("img", { name: "QR code of the address", exact: true }).count()).toBe(0);
      }
      // The API's paymentUri stays as DESIGN 5 fixes it, whatever the page shows.
      expect(o.paymentUri).toStartWith({ TRON: "tron:", BSC: "ethereum:", SOL: "solana:", ETH: "ethereum:", POLYGON: "ethereum:", ARBITRUM: "ethereum:", BASE: "ethereum:", OPTIMISM: "ethereum:", AVALANCHE: "ethereum:", XLAYER: "ethereum:", PLASMA: "ethereum:", TON: "ton://transfer/" }[c.chain]);

      const b = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/exclusive-bindings", {
        body: { chainCode: c.chain, tokenSymbol: c.token, bindKey: `qr-${c.chain}-${c.token}` },
      });
      await page.goto(b.depositUrl!);
      const dep = p.get(`${c.chain} deposit`)!;
      const dv = { address: b.address!, contract };
      expect(await decode(page, "QR code of the deposit address", `qr-${c.chain}-${c.token}-deposit.png`)).toBe(fill(dep.qr, dv));
      expect(await walletButton(page)).toBe(dep.button === "none" ? null : dep.button === "the same URI" ? fill(dep.qr, dv) : fill(dep.button.replace(/`/g, ""), dv));
      await ctx.close();
    }, BROWSER_RETRY);
  }
});
