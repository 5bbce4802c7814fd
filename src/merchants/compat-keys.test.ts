// A compatibility key refused is a CompatKeyError by code, one problem per key (the developer
// settings page shows their words in its language; the CLI prints the same English as before):
// what each refusal gives, table-driven, and nothing is written when any key is refused.
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { openTestDb } from "../testing/engines";
import { englishOf } from "../errors";
import { Cipher } from "../secrets/cipher";
import { refusalOf } from "../testing/refusal";
import { compatKeyProblem, setCompatKeys, type CompatKeyPatch } from "./compat-keys";
import { createMerchant, findMerchantByUid } from "./service";

// The engine of the test process (SG_TEST_DB): one body checks both merchants stores.
const testDb = await openTestDb();
const db = testDb.db;
afterAll(async () => await testDb.close());
const deps = { db, cipher: new Cipher(randomBytes(32)), now: () => Date.parse("2026-11-29T00:00:00Z") };
const { merchant } = await createMerchant(deps, { name: "plugins" });
const ACTOR = { actor: "cli", role: "operator" };

test.each([
  ["a short epusdt token", { epusdt: "short" }, ["compat_key.epusdt_length"], "epusdt token must be 8-128 characters"],
  ["an epusdt token with a space", { epusdt: "has a space" }, ["compat_key.epusdt_characters"], "epusdt token must be printable ASCII without spaces"],
  ["a long EPay key", { epay: "k".repeat(129) }, ["compat_key.epay_length"], "EPay key must be 8-128 characters"],
  ["an EPay key with a non-ASCII letter", { epay: "schlüssel-1234" }, ["compat_key.epay_characters"], "EPay key must be printable ASCII without spaces"],
  ["both refused", { epusdt: "short", epay: "with space!" }, ["compat_key.epusdt_length", "compat_key.epay_characters"], "epusdt token must be 8-128 characters; EPay key must be printable ASCII without spaces"],
  ["one good, one refused: nothing written", { epusdt: "good-token-123", epay: "short" }, ["compat_key.epay_length"], "EPay key must be 8-128 characters"],
] as Array<[string, CompatKeyPatch, string[], string]>)("%s", async (_what, patch, codes, english) => {
  expect(await refusalOf(() => setCompatKeys(deps, merchant.uid, patch, ACTOR))).toMatchObject({ kind: "CompatKeyError", code: codes[0], codes });
  await expect(setCompatKeys(deps, merchant.uid, patch, ACTOR)).rejects.toThrow(english);
  expect(await findMerchantByUid(db, merchant.uid)).toMatchObject({ epusdtTokenEnc: null, epayKeyEnc: null });
});

test("the CLI's check is the same rule, by protocol", () => {
  expect(compatKeyProblem("epusdt", "good-token-123")).toBeNull();
  expect(englishOf(compatKeyProblem("epay", "short")!)).toBe("EPay key must be 8-128 characters");
});
