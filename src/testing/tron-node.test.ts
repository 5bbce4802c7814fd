// The fake TRON node against unmodified tronweb: what it builds, signs and broadcasts,
// and the chain rules the gateway relies on (solidification, energy, activation, reorgs, rate limits).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bytesToHex } from "@noble/hashes/utils.js";
import { mnemonicToSeedSync } from "@scure/bip39";
import { deriveTronKey } from "../chains/tron/address";
import { DEV_ADDRESS, DEV_KEY, startTronFixture, TRX, USDT, type TronFixture } from "./tron-fixture";
import { ENERGY_EXISTING_HOLDER, ENERGY_NEW_HOLDER } from "./tron-chain";

const SEED = mnemonicToSeedSync("legal winner thank year wave sausage worth useful legal winner thank yellow");
let idx = 0;
const fresh = () => deriveTronKey(SEED, idx++);
let fx: TronFixture;
beforeAll(async () => {
  fx = await startTronFixture({ autoMine: true, solidLag: 3 });
});
afterAll(() => fx?.stop());

const info = (id: string) => fx.node.tronWeb().trx.getUnconfirmedTransactionInfo(id);

describe("fake TRON node with unmodified tronweb", () => {
  test("node-built TRC20 transfer (triggersmartcontract): signed, broadcast, mined, with a Transfer log and energy burned", async () => {
    const to = fresh().address;
    const id = await fx.sendUsdt(to, 1_234_567n);
    const i = await info(id);
    expect(i.receipt).toMatchObject({ result: "SUCCESS", energy_usage_total: Number(ENERGY_NEW_HOLDER), energy_fee: Number(ENERGY_NEW_HOLDER) * 100 });
    expect(i.log[0].address).toBe("a614f803b6fd780986a42c78ec9c7f77e6ded13c");
    expect(i.log[0].topics[2].slice(-40)).toBe(fx.node.tronWeb().address.toHex(to).slice(2).toLowerCase());
    expect(BigInt("0x" + i.log[0].data)).toBe(1_234_567n);
    // A second transfer to an existing holder costs less energy.
    const id2 = await fx.sendUsdt(to, 1n);
    expect((await info(id2)).receipt.energy_usage_total).toBe(Number(ENERGY_EXISTING_HOLDER));
    expect(fx.node.chain.usdt(to)).toBe(1_234_568n);
  });

  test("locally built transfer (txLocal) is accepted the same way", async () => {
    const tw = fx.node.tronWeb(DEV_KEY);
    const to = fresh().address;
    const { transaction } = await tw.transactionBuilder.triggerSmartContract(USDT, "transfer(address,uint256)", { feeLimit: 50_000_000, txLocal: true }, [{ type: "address", value: to }, { type: "uint256", value: "5" }], DEV_ADDRESS);
    const r = await tw.trx.sendRawTransaction(await tw.trx.sign(transaction));
    expect(r.result).toBe(true);
    expect(fx.node.chain.usdt(to)).toBe(5n);
  });

  test("balanceOf and decimals through triggerConstantContract; getEnergyFee in the chain parameters", async () => {
    const tw = fx.node.tronWeb(DEV_KEY);
    const dec = await tw.transactionBuilder.triggerConstantContract(USDT, "decimals()", {}, [], DEV_ADDRESS);
    expect(BigInt("0x" + dec.constant_result[0])).toBe(6n);
    const bal = await tw.transactionBuilder.triggerConstantContract(USDT, "balanceOf(address)", {}, [{ type: "address", value: DEV_ADDRESS }], DEV_ADDRESS);
    expect(BigInt("0x" + bal.constant_result[0])).toBe(fx.node.chain.usdt(DEV_ADDRESS));
    expect((await tw.trx.getChainParameters()).find((p: { key: string }) => p.key === "getEnergyFee")).toEqual({ key: "getEnergyFee", value: 100 });
  });

  test("a TRX transfer activates a new account for 1 TRX paid by the sender; solidified reads lag", async () => {
    const to = fresh().address;
    const tw = fx.node.tronWeb(DEV_KEY);
    expect(await tw.trx.getUnconfirmedAccount(to)).toEqual({});
    const before = fx.node.chain.trx(DEV_ADDRESS);
    const id = await fx.sendTrx(to, 2n * TRX);
    expect(await tw.trx.getUnconfirmedBalance(to)).toBe(2_000_000);
    const i = await info(id);
    // The fee is the activation (1 TRX) plus bandwidth burned once the free allowance is used up.
    expect(BigInt(i.fee) - BigInt(i.receipt.net_fee ?? 0)).toBe(1n * TRX);
    expect(fx.node.chain.trx(DEV_ADDRESS)).toBe(before - 2n * TRX - BigInt(i.fee));
    expect(await tw.trx.getBalance(to)).toBe(0); // walletsolidity/getaccount: not solidified yet
    expect(await tw.trx.getTransactionInfo(id)).toEqual({});
    fx.node.mine(3);
    expect(await tw.trx.getBalance(to)).toBe(2_000_000);
    expect((await tw.trx.getTransactionInfo(id)).id).toBe(id);
  });

  test("without energy or TRX to burn a transfer fails OUT_OF_ENERGY, the TRX it had is burned and no token moves", async () => {
    const src = fresh();
    await fx.sendUsdt(src.address, 100n);
    await fx.sendTrx(src.address, 1n * TRX); // activated, 1 TRX: ~10,000 energy, far from 64,285
    const to = fresh().address;
    const id = await fx.sendUsdt(to, 100n, bytesToHex(src.privateKey));
    const i = await info(id);
    expect(i).toMatchObject({ result: "FAILED", receipt: { result: "OUT_OF_ENERGY", energy_fee: 1_000_000 } });
    expect(fx.node.chain.trx(src.address)).toBe(0n);
    expect(fx.node.chain.usdt(src.address)).toBe(100n);
    expect(fx.node.chain.usdt(to)).toBe(0n);
    expect(i.log).toBeUndefined();
  });

  test("refusals: a signature by another key, a duplicate, an account that does not exist", async () => {
    const tw = fx.node.tronWeb(DEV_KEY);
    const other = fresh();
    const { transaction } = await tw.transactionBuilder.triggerSmartContract(USDT, "transfer(address,uint256)", { feeLimit: 1_000_000 }, [{ type: "address", value: other.address }, { type: "uint256", value: "1" }], DEV_ADDRESS);
    const forged = { ...transaction, signature: fx.node.tronWeb().utils.crypto.signTransaction(bytesToHex(other.privateKey), { txID: transaction.txID }).signature };
    expect(await tw.trx.sendRawTransaction(forged)).toMatchObject({ code: "SIGERROR" });
    const signed = await tw.trx.sign(transaction);
    expect((await tw.trx.sendRawTransaction(signed)).result).toBe(true);
    expect(await tw.trx.sendRawTransaction(signed)).toMatchObject({ code: "DUP_TRANSACTION_ERROR" });
    const ghost = fresh();
    const tg = fx.node.tronWeb(bytesToHex(ghost.privateKey));
    const { transaction: t2 } = await tg.transactionBuilder.triggerSmartContract(USDT, "transfer(address,uint256)", { feeLimit: 1_000_000 }, [{ type: "address", value: DEV_ADDRESS }, { type: "uint256", value: "1" }], ghost.address);
    const r = await tg.trx.sendRawTransaction(await tg.trx.sign(t2));
    expect(r.code).toBe("CONTRACT_VALIDATE_ERROR");
    expect(Buffer.from(r.message, "hex").toString()).toMatch(/no OwnerAccount/);
  });

  test("a reorg replaces unsolidified blocks (new ids, transfers gone) and refuses to touch solidified ones", async () => {
    const to = fresh().address;
    const id = await fx.sendUsdt(to, 7n);
    const n = fx.node.chain.head.number;
    const oldId = fx.node.chain.head.blockID;
    fx.node.reorg(1);
    expect(fx.node.chain.head.number).toBe(n);
    expect(fx.node.chain.head.blockID).not.toBe(oldId);
    expect(await info(id)).toEqual({});
    expect(fx.node.chain.usdt(to)).toBe(0n);
    expect(() => fx.node.reorg(4)).toThrow(/solidified/);
  });

  test("a transaction whose expiration passed is refused and never mined", async () => {
    fx.node.setAutoMine(false);
    try {
      const tw = fx.node.tronWeb(DEV_KEY);
      const to = fresh().address;
      const { transaction } = await tw.transactionBuilder.triggerSmartContract(USDT, "transfer(address,uint256)", { feeLimit: 1_000_000 }, [{ type: "address", value: to }, { type: "uint256", value: "1" }], DEV_ADDRESS);
      const signed = await tw.trx.sign(transaction);
      expect((await tw.trx.sendRawTransaction(signed)).result).toBe(true);
      fx.node.chain.advanceTime(61_000);
      fx.node.mine(1);
      expect(await info(signed.txID)).toEqual({});
      expect(await tw.trx.sendRawTransaction(signed)).toMatchObject({ code: "TRANSACTION_EXPIRATION_ERROR" });
    } finally {
      fx.node.setAutoMine(true);
    }
  });

  test("TronGrid rate limiting: 403/429 injected, with a suspension; a missing API key is refused", async () => {
    fx.node.setFaults({ rate403: 1, suspendMs: 60_000 });
    try {
      const r1 = await fetch(fx.node.url + "/wallet/getnowblock", { method: "POST" });
      expect(r1.status).toBe(403);
      fx.node.setFaults({ rate429: 1 });
      expect((await fetch(fx.node.url + "/wallet/getnowblock", { method: "POST" })).status).toBe(429);
      fx.node.setFaults({ requireApiKey: "k1" });
      expect((await fetch(fx.node.url + "/wallet/getnowblock", { method: "POST" })).status).toBe(401);
      expect((await fetch(fx.node.url + "/wallet/getnowblock", { method: "POST", headers: { "TRON-PRO-API-KEY": "k1" } })).status).toBe(200);
    } finally {
      fx.node.setFaults({});
    }
  });
});
