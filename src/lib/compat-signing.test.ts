// The shop-plugin signatures against conformance/compat-vectors.json (DESIGN 19), one row per vector.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import vectors from "./compat-vectors.json";
import { compatSign, compatSignatureOk, compatSignedText, numberText } from "./compat-signing";

const rows = [
  ...vectors.epusdt.map((v) => ({ protocol: "epusdt" as const, note: v.note, params: v.params as unknown as Record<string, string>, secret: v.token, text: v.signed_text, sig: v.signature })),
  ...vectors.epay.map((v) => ({ protocol: "epay" as const, note: v.note, params: v.params as unknown as Record<string, string>, secret: v.key, text: v.signed_text, sig: v.sign })),
];

describe("compat signature vectors", () => {
  for (const r of rows) {
    test(`${r.protocol}: ${r.note}`, () => {
      expect(compatSignedText(r.protocol, r.params, r.secret)).toBe(r.text);
      expect(compatSign(r.protocol, r.params, r.secret)).toBe(r.sig);
      // The signature fields themselves are never signed.
      const withSig = { ...r.params, ...(r.protocol === "epusdt" ? { signature: r.sig } : { sign: r.sig, sign_type: "MD5" }) };
      expect(compatSign(r.protocol, withSig, r.secret)).toBe(r.sig);
      expect(compatSignatureOk(r.protocol, withSig, r.secret, r.sig.toUpperCase())).toBe(true);
      expect(compatSignatureOk(r.protocol, withSig, r.secret + "x", r.sig)).toBe(false);
      expect(compatSignatureOk(r.protocol, withSig, r.secret, r.sig.slice(1))).toBe(false);
    });
  }
});

test("numbers sign as their shortest decimal text, never with an exponent", () => {
  expect([42, 42.5, 0.01, 199.9, 28.154929, 1e-7, 1e21].map(numberText)).toEqual(["42", "42.5", "0.01", "199.9", "28.154929", "0.0000001", "1000000000000000000000"]);
});

const shared = join(import.meta.dir, "..", "..", "..", "shared", "conformance", "compat-vectors.json");
test.skipIf(!existsSync(shared))("the vectors are the contract's, verbatim", () => {
  expect(readFileSync(join(import.meta.dir, "compat-vectors.json"), "utf8")).toBe(readFileSync(shared, "utf8"));
});
