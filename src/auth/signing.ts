// Request and callback signing (spec 5.2, 6.2; DESIGN 4). The canonical text and
// the HMACs are the merchant SDK's (src/sdk/signing.ts), so the server verifies
// exactly what the client signs. Only what the server alone needs lives here:
// reading a raw query string, the strict RFC 3986 alternative, callback checks.
import { safeEqualHex, signCallback } from "../sdk/signing";

export { canonicalBody, canonicalQuery, safeEqualHex, signCallback, signedText, signRequest, type QueryPairs, type SignInput } from "../sdk/signing";

/** RFC 3986 strict variant: also escapes !'()* (accepted by the server as an alternative). */
export function strictEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/** Pairs from a raw query string (no leading `?`), decoded; `+` is a space as in forms. */
export function parseQuery(raw: string): Array<[string, string]> {
  if (!raw) return [];
  const out: Array<[string, string]> = [];
  for (const part of raw.split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const k = eq < 0 ? part : part.slice(0, eq);
    const v = eq < 0 ? "" : part.slice(eq + 1);
    out.push([decodeComponent(k), decodeComponent(v)]);
  }
  return out;
}

function decodeComponent(s: string): string {
  const spaced = s.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced; // malformed escapes are signed as sent
  }
}

export function verifyCallbackSignature(apiKey: string, timestamp: string, nonce: string, rawBody: string | Uint8Array, signature: string): boolean {
  return safeEqualHex(signCallback(apiKey, timestamp, nonce, rawBody), signature);
}
