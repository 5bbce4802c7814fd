import { expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Cipher } from "./cipher";
import { keyFromString } from "./master-key";

test("round-trips and never stores the plaintext", () => {
  const c = new Cipher(randomBytes(32));
  const secret = "mch_" + "ab".repeat(32);
  const enc = c.encrypt(secret);
  expect(enc).not.toContain(secret);
  expect(enc).not.toBe(c.encrypt(secret)); // random IV
  expect(c.decrypt(enc)).toBe(secret);
});

test("a wrong key or a tampered ciphertext fails", () => {
  const enc = new Cipher(randomBytes(32)).encrypt("hello");
  expect(() => new Cipher(randomBytes(32)).decrypt(enc)).toThrow();
  const c = new Cipher(Buffer.alloc(32, 1));
  const e2 = c.encrypt("hello");
  const parts = e2.split(":");
  parts[3] = Buffer.from("jello").toString("base64url");
  expect(() => c.decrypt(parts.join(":"))).toThrow();
});

test.each([
  ["ab".repeat(32), 32],
  [randomBytes(32).toString("base64"), 32],
  ["a passphrase", 32],
])("master key from %s", (s, len) => {
  expect(keyFromString(s as string).length).toBe(len as number);
});
