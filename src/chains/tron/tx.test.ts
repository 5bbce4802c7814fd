// Our local TRON transaction encoding and signing against tronweb's own encoder and recovery.
import { describe, expect, test } from "bun:test";
import { bytesToHex } from "@noble/hashes/utils.js";
import { mnemonicToSeedSync } from "@scure/bip39";
import { deriveTronKey } from "./address";
import { recoverSigner, signRaw, stakeRaw, transferData, transferTrxRaw, triggerRaw, type TronRawData } from "./tx";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TronWeb, utils } = require("tronweb");
const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");
const key = deriveTronKey(SEED, 3);
const to = deriveTronKey(SEED, 4).address;
const ref = { number: 70_123_456, blockID: "00000000042e0c40" + "9f1c2b3a4d5e6f70" + "ab".repeat(16) };

const cases: Array<[string, TronRawData]> = [
  ["TRC20 transfer, 1 base unit", triggerRaw({ owner: key.address, contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", data: transferData(to, 1n), feeLimit: 15_634_200, ref, expiration: 1_767_225_660_000, timestamp: 1_767_225_600_000 })],
  ["TRC20 transfer, 2^128 base units", triggerRaw({ owner: key.address, contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", data: transferData(to, 2n ** 128n), feeLimit: 1, ref: { number: 1, blockID: "0000000000000001" + "00".repeat(24) }, expiration: 1, timestamp: 0 })],
  ["TRX transfer", transferTrxRaw({ owner: key.address, to, amount: 1_234_567n, ref, expiration: 1_767_225_660_000, timestamp: 1_767_225_600_000 })],
  ["stake for energy (FreezeBalanceV2)", stakeRaw({ kind: "freeze", owner: key.address, amount: 6_500_000_000n, ref, expiration: 1_767_225_660_000, timestamp: 1_767_225_600_000 })],
  ["unstake (UnfreezeBalanceV2)", stakeRaw({ kind: "unfreeze", owner: key.address, amount: 1_000_000n, ref, expiration: 1_767_225_660_000, timestamp: 1_767_225_600_000 })],
  ["delegate energy (DelegateResource)", stakeRaw({ kind: "delegate", owner: key.address, receiver: to, amount: 7_800_000_000n, ref, expiration: 1_767_225_660_000, timestamp: 1_767_225_600_000 })],
  ["reclaim energy (UnDelegateResource)", stakeRaw({ kind: "undelegate", owner: key.address, receiver: to, amount: 7_800_000_000n, ref, expiration: 1_767_225_660_000, timestamp: 1_767_225_600_000 })],
];

describe("TRON transactions built locally", () => {
  test.each(cases)("%s: raw_data_hex and txID equal tronweb's txJsonToPb / txPbToTxID", (_label, raw) => {
    const tx = signRaw(raw, key.privateKey);
    const pb = utils.transaction.txJsonToPb(JSON.parse(JSON.stringify(tx)));
    expect(tx.raw_data_hex).toBe(utils.transaction.txPbToRawDataHex(pb).toLowerCase());
    expect(tx.txID).toBe(utils.transaction.txPbToTxID(pb).replace(/^0x/, ""));
  });

  test.each(cases)("%s: the signature is tronweb's and recovers to the owner", (_label, raw) => {
    const tx = signRaw(raw, key.privateKey);
    const theirs = utils.crypto.signTransaction(bytesToHex(key.privateKey), { txID: tx.txID });
    expect(tx.signature[0]).toBe(theirs.signature[0].toLowerCase());
    expect(TronWeb.address.fromHex(utils.crypto.ecRecover(tx.txID, tx.signature[0]))).toBe(key.address);
    expect(recoverSigner(tx.txID, tx.signature[0])).toBe(key.address);
  });

  test("a transaction built by tronweb (txLocal) has the same bytes as ours for the same fields", async () => {
    const tw = new TronWeb({ fullHost: "http://127.0.0.1:1" });
    const raw = cases[0][1];
    const { transaction } = await tw.transactionBuilder.triggerSmartContract(
      "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      "transfer(address,uint256)",
      { feeLimit: raw.fee_limit, txLocal: true, blockHeader: { ref_block_bytes: raw.ref_block_bytes, ref_block_hash: raw.ref_block_hash, expiration: raw.expiration, timestamp: raw.timestamp } },
      [
        { type: "address", value: to },
        { type: "uint256", value: "1" },
      ],
      key.address,
    );
    expect(signRaw(raw, key.privateKey).raw_data_hex).toBe(transaction.raw_data_hex);
  });
});
