import { describe, expect, test } from "bun:test";
import vectors from "../auth/signing-vectors.json";
import * as server from "../auth/signing";
import { canonicalBody, canonicalQuery, safeEqualHex, signCallback, signRequest, signedText } from "./signing";

// The gateway's verification imports this signing code (src/auth/signing.ts
// re-exports it); the SDK ships without the gateway. Both produce the published vectors.
describe("SDK signing matches the vectors the gateway verifies", () => {
  for (const c of vectors.cases) {
    test(c.name, () => {
      const q = canonicalQuery(c.query as Array<[string, string]>);
      const b = c.method === "GET" ? "" : canonicalBody(c.body);
      expect(q).toBe(c.canonicalQuery);
      expect(b).toBe(c.canonicalBody);
      const input = { merchantUid: vectors.merchantUid, timestamp: vectors.timestamp, nonce: c.nonce, method: c.method, path: c.path, canonicalQuery: q, canonicalBody: b };
      expect(signedText(input)).toBe(c.signedText);
      expect(signRequest(vectors.apiKey, input)).toBe(c.signature);
      expect(server.signRequest(vectors.apiKey, input)).toBe(c.signature);
    });
  }
  for (const [i, c] of vectors.callbacks.entries()) {
    test(`callback vector ${i}`, () => {
      expect(signCallback(vectors.apiKey, c.timestamp, c.nonce, c.rawBody)).toBe(c.signature);
    });
  }
  test("safeEqualHex: equal, different, different length", () => {
    expect(safeEqualHex("ab", "ab")).toBe(true);
    expect(safeEqualHex("ab", "ac")).toBe(false);
    expect(safeEqualHex("ab", "abc")).toBe(false);
  });
});
