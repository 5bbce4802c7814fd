// Acknowledging a source's unrecorded transfers after a restore, refused: an AckError by code and
// parameters (the exceptions page words it in its language; `restore ack` prints the English).
import { expect, test } from "bun:test";
import { openDb } from "../db/client";
import { migrate } from "../db/migrate";
import { refusalOf } from "../testing/refusal";
import { randomAddress } from "../wallet/hd";
import { acknowledgeUnrecorded } from "./reconcile";

const db = openDb(":memory:");
await migrate(db);
const ACTOR = { actor: "cli", role: "operator" };
const ports = { releaseHeldPayouts: () => Promise.reject(new Error("nothing to release: the acknowledgement was refused")) };
const tron = randomAddress("TRON");

test.each([
  ["an unknown chain", { chain: "DOGE", address: "D1" }, "ack.unknown_chain", { chain: "DOGE" }],
  ["an address not of the chain", { chain: "TRON", address: "0x0000000000000000000000000000000000000001" }, "ack.invalid_address", { chain: "TRON", address: "0x0000000000000000000000000000000000000001" }],
  ["a source with nothing waiting", { chain: "TRON", address: tron }, "ack.nothing_open", { chain: "TRON", address: tron }],
] as const)("%s", async (_what, input, code, params) => {
  expect(await refusalOf(() => acknowledgeUnrecorded(db, input, ACTOR, Date.now(), ports))).toMatchObject({ kind: "AckError", code, params });
});

test("the CLI's English is the same as before", async () => {
  await expect(acknowledgeUnrecorded(db, { chain: "TRON", address: tron }, ACTOR, Date.now(), ports)).rejects.toThrow(`no unrecorded outgoing transfer from ${tron} on TRON waits for acknowledgement`);
});
