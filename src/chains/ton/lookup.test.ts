import { describe, expect, test } from "bun:test";
import { tonTxHash } from "./lookup";

const HEX = "ab".repeat(16) + "0f".repeat(16);

describe("tonTxHash: the hash forms a TON look-up takes", () => {
  const cases: Array<[string, string, string | null]> = [
    ["lowercase hex", HEX, HEX],
    ["uppercase hex with 0x and spaces", ` 0x${HEX.toUpperCase()} `, HEX],
    ["toncenter's base64", Buffer.from(HEX, "hex").toString("base64"), HEX],
    ["base64url without padding", Buffer.from(HEX, "hex").toString("base64url"), HEX],
    ["63 hex digits", HEX.slice(1), null],
    ["base64 of 31 bytes", Buffer.alloc(31, 1).toString("base64"), null],
    ["an EVM-length hash with a letter out of range", "0x" + "g".repeat(64), null],
    ["words", "not a hash", null],
  ];
  for (const [name, input, want] of cases) test(name, () => expect(tonTxHash(input)).toBe(want));
});
