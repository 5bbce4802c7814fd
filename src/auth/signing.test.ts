import { describe, expect, test } from "bun:test";
import vectors from "./signing-vectors.json";
import {
  canonicalBody,
  canonicalQuery,
  safeEqualHex,
  signCallback,
  signRequest,
  signedText,
  strictEncode,
  verifyCallbackSignature,
} from "./signing";

describe("request signing vectors", () => {
  for (const c of vectors.cases) {
    test(c.name, () => {
      const q = canonicalQuery(c.query as [string, string][]);
      const b = c.body === null ? "" : canonicalBody(c.body);
      expect(q).toBe(c.canonicalQuery);
      expect(b).toBe(c.canonicalBody);
      const input = {
        merchantUid: vectors.merchantUid,
        timestamp: vectors.timestamp,
        nonce: c.nonce,
        method: c.method,
        path: c.path,
        canonicalQuery: q,
        canonicalBody: b,
      };
      expect(signedText(input)).toBe(c.signedText);
      expect(signRequest(vectors.apiKey, input)).toBe(c.signature);
      if ("strictRfc3986Signature" in c) {
        const strict = canonicalQuery(c.query as [string, string][], strictEncode);
        expect(signRequest(vectors.apiKey, { ...input, canonicalQuery: strict })).toBe(c.strictRfc3986Signature as string);
      }
    });
  }
});

describe("callback signing vectors", () => {
  for (const c of vectors.callbacks) {
    test(`callback ${c.nonce}`, () => {
      expect(signCallback(vectors.apiKey, c.timestamp, c.nonce, c.rawBody)).toBe(c.signature);
      expect(verifyCallbackSignature(vectors.apiKey, c.timestamp, c.nonce, c.rawBody, c.signature)).toBe(true);
      const reserialized = JSON.stringify(JSON.parse(c.rawBody), null, 1);
      expect(verifyCallbackSignature(vectors.apiKey, c.timestamp, c.nonce, reserialized, c.signature)).toBe(false);
    });
  }
});

test("constant-time compare treats a length difference as a mismatch", () => {
  expect(safeEqualHex("abcd", "abcd")).toBe(true);
  expect(safeEqualHex("abcd", "abc")).toBe(false);
  expect(safeEqualHex("", "a")).toBe(false);
});
