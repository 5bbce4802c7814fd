// The MD5 signatures of the shop-plugin protocols (DESIGN 19, conformance/compat-vectors.json):
// the non-empty parameters except the signature's own (epusdt: `signature`; EPay: `sign` and
// `sign_type`), sorted by name in byte order, joined `k=v` with `&`, followed directly by the
// secret (no `&key=`), MD5, lowercase hex. Values are signed as the text they are; a JSON number
// as its shortest decimal text without exponent (42, 42.5, 0.01), as epusdt's own server does.
import { createHash, timingSafeEqual } from "node:crypto";
import { Big } from "./money";

export type CompatProtocol = "epusdt" | "epay";

/** The parameters each protocol leaves out of its signed text. */
export const UNSIGNED: Record<CompatProtocol, readonly string[]> = { epusdt: ["signature"], epay: ["sign", "sign_type"] };

/** A number as epusdt signs it: shortest round-trip digits, never an exponent. */
export function numberText(n: number): string {
  return new Big(n).toFixed();
}

/** What is signed: the text before the MD5. */
export function compatSignedText(protocol: CompatProtocol, params: Record<string, string>, secret: string): string {
  const skip = UNSIGNED[protocol];
  const keys = Object.keys(params)
    .filter((k) => !skip.includes(k) && params[k] !== "")
    .sort((a, b) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
  return keys.map((k) => `${k}=${params[k]}`).join("&") + secret;
}

export function compatSign(protocol: CompatProtocol, params: Record<string, string>, secret: string): string {
  return createHash("md5").update(compatSignedText(protocol, params, secret), "utf8").digest("hex");
}

/** Constant-time check of a received signature (hex, either case). */
export function compatSignatureOk(protocol: CompatProtocol, params: Record<string, string>, secret: string, received: string): boolean {
  const want = Buffer.from(compatSign(protocol, params, secret), "utf8");
  const got = Buffer.from(received.trim().toLowerCase(), "utf8");
  return got.length === want.length && timingSafeEqual(got, want);
}
