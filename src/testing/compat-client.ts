// The shop plugins' side for the compatibility tests (src/compat/*.test.ts), written from the
// protocols' descriptions rather than the server's signing code: the MD5 over the non-empty
// parameters, sorted, `k=v&…` + secret; and a sandbox payment the payer makes.
import { expect } from "bun:test";
import { createHash } from "node:crypto";

export function md5Sign(params: Record<string, unknown>, secret: string, skip: string[]): string {
  const text = Object.keys(params)
    .filter((k) => !skip.includes(k) && params[k] !== "" && params[k] !== null && params[k] !== undefined)
    .sort()
    .map((k) => `${k}=${String(params[k])}`)
    .join("&");
  return createHash("md5").update(text + secret).digest("hex");
}

/** The payer sends `amount` of the token to `address` on a sandbox chain, then `blocks` blocks are mined. */
export async function sandboxPay(gatewayUrl: string, chainCode: string, tokenSymbol: string, address: string, amount: string, blocks = 1): Promise<void> {
  const call = (path: string, b: unknown) => fetch(`${gatewayUrl}/sandbox${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(b) });
  expect((await call("/transfers", { chainCode, tokenSymbol, toAddress: address, amount })).status).toBe(200);
  expect((await call("/blocks", { chainCode, count: blocks })).status).toBe(200);
}
