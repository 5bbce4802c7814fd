// A child process for src/wallet/derivation-counter.e2e.test.ts: derives `count` shared addresses
// of a merchant on TRON, one write transaction each, beside other processes doing the same.
// usage: bun src/testing/derive-addresses.ts DB_PATH MERCHANT_ID COUNT
import { openDb, writeTx } from "../db/client";
import { addSharedAddress } from "../wallet/addresses";
import { deriveKey, mnemonicToSeed } from "../wallet/hd";
import type { ChainAdapter } from "../chains/types";

const [dbPath, merchantId, count] = process.argv.slice(2);
const db = openDb(dbPath!);
// One seed for every process: an index taken twice would also be one address twice.
const seed = mnemonicToSeed("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");
const adapter = { chain: "TRON", deriveKey: (s: Uint8Array, i: number) => deriveKey("TRON", s, i) } as unknown as ChainAdapter;
const taken: number[] = [];
for (let i = 0; i < Number(count); i++) taken.push((await writeTx(db, async (tx) => await addSharedAddress(tx, adapter, seed, Number(merchantId), Date.now()))).derivationIndex);
db.$client.close();
console.log(JSON.stringify(taken));
