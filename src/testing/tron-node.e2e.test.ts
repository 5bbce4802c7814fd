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

describe("Stake 2.0 (freeze, delegate, undelegate, unfreeze) through tronweb", () => {
  /** A funded, activated account with its own key. */
  async function funded(trx: bigint) {
    const k = fresh();
    await fx.sendTrx(k.address, trx * TRX);
    return { ...k, keyHex: bytesToHex(k.privateKey), tw: fx.node.tronWeb(bytesToHex(k.privateKey)) };
  }
  /** tronweb builds these locally: the node refuses them at broadcast, with java-tron's message (hex). */
  const refused = async (tw: any, tx: Promise<any>, re: RegExp) => {
    const r = await tw.trx.sendRawTransaction(await tw.trx.sign(await tx));
    expect(r.code).toBe("CONTRACT_VALIDATE_ERROR");
    expect(Buffer.from(r.message, "hex").toString("utf8")).toMatch(re);
  };
  const send = async (tw: any, tx: Promise<any>) => {
    const r = await tw.trx.sendRawTransaction(await tw.trx.sign(await tx));
    expect(r.result).toBe(true);
    return r.txid as string;
  };

  test("stake gives energy (10 per TRX at the default network weight); a transfer uses it instead of burning; usage recovers in 24 h", async () => {
    const a = await funded(20_000n);
    await send(a.tw, a.tw.transactionBuilder.freezeBalanceV2(13_100 * 1_000_000, "ENERGY", a.address));
    const res = await a.tw.trx.getAccountResources(a.address);
    expect(res).toMatchObject({ EnergyLimit: 131_000, TotalEnergyLimit: 180_000_000_000, TotalEnergyWeight: 18_000_000_000 });
    expect(res.EnergyUsed).toBeUndefined();
    const acct = await a.tw.trx.getUnconfirmedAccount(a.address);
    expect(acct.frozenV2[1]).toEqual({ type: "ENERGY", amount: 13_100_000_000 });
    expect(acct.balance).toBe(6_900_000_000);

    await fx.sendUsdt(a.address, 1_000n);
    const before = fx.node.chain.trx(a.address);
    const id = await fx.sendUsdt(fresh().address, 10n, a.keyHex);
    const i = await info(id);
    expect(i.receipt).toMatchObject({ result: "SUCCESS", energy_usage: Number(ENERGY_NEW_HOLDER), energy_usage_total: Number(ENERGY_NEW_HOLDER) });
    expect(i.receipt.energy_fee).toBeUndefined();
    expect(fx.node.chain.trx(a.address)).toBe(before); // bandwidth free, no TRX burned
    expect((await a.tw.trx.getAccountResources(a.address)).EnergyUsed).toBe(Number(ENERGY_NEW_HOLDER));
    // (Read at a later time without moving the node's clock: tronweb dates what it builds by the local clock.)
    const acct2 = fx.node.chain.accountOf(a.address)!;
    const t = acct2.latestConsumeTime - (acct2.latestConsumeTime % 3_000);
    expect(fx.node.chain.usageAt(acct2, t + 12 * 3_600_000)).toBe(ENERGY_NEW_HOLDER / 2n);
    expect(fx.node.chain.usageAt(acct2, t + 24 * 3_600_000)).toBe(0n);
  });

  test("delegate to a source: it transfers on the owner's stake; undelegate returns the stake and the used share to the owner", async () => {
    const owner = await funded(10_000n);
    await send(owner.tw, owner.tw.transactionBuilder.freezeBalanceV2(8_000 * 1_000_000, "ENERGY", owner.address));
    const src = await funded(1n);
    await fx.sendUsdt(src.address, 500n);
    const to = fresh().address;
    await fx.sendUsdt(to, 1n); // an existing holder: 64,285 energy
    const max = await fx.node.tronWeb().fullNode.request("wallet/getcandelegatedmaxsize", { owner_address: owner.address, type: 1, visible: true }, "post");
    expect(max).toEqual({ max_size: 8_000_000_000 });

    await send(owner.tw, owner.tw.transactionBuilder.delegateResource(6_500 * 1_000_000, src.address, "ENERGY", owner.address));
    expect(fx.node.chain.delegated(owner.address, src.address)).toBe(6_500_000_000n);
    expect((await src.tw.trx.getAccountResources(src.address)).EnergyLimit).toBe(65_000);
    expect((await owner.tw.trx.getUnconfirmedAccount(owner.address)).account_resource).toMatchObject({ delegated_frozenV2_balance_for_energy: 6_500_000_000 });

    const id = await fx.sendUsdt(to, 100n, src.keyHex);
    expect((await info(id)).receipt).toMatchObject({ result: "SUCCESS", energy_usage: Number(ENERGY_EXISTING_HOLDER) });
    expect(fx.node.chain.trx(src.address)).toBe(1_000_000n); // nothing burned

    await send(owner.tw, owner.tw.transactionBuilder.undelegateResource(6_500 * 1_000_000, src.address, "ENERGY", owner.address));
    expect(fx.node.chain.delegated(owner.address, src.address)).toBe(0n);
    expect((await src.tw.trx.getAccountResources(src.address)).EnergyLimit).toBeUndefined();
    // The energy the source used now weighs on the owner until it recovers.
    const r = await owner.tw.trx.getAccountResources(owner.address);
    expect(r.EnergyLimit).toBe(80_000);
    // Used energy recovers linearly over 24 h of the node's (real) clock: ~0.74 units a second here,
    // so a slow machine reads a few less than was spent (CI, 2026-11-29: 64,282); 64 units is 86 s.
    const spent = Number(ENERGY_EXISTING_HOLDER);
    expect(r.EnergyUsed).toBeLessThanOrEqual(spent);
    expect(r.EnergyUsed).toBeGreaterThan(spent - 64);
    expect(fx.node.chain.accountOf(owner.address)!.frozenEnergy).toBe(8_000_000_000n);
    // ... and cannot be delegated again before it does.
    const max2 = await fx.node.tronWeb().fullNode.request("wallet/getcandelegatedmaxsize", { owner_address: owner.address, type: 1, visible: true }, "post");
    expect(max2.max_size).toBeGreaterThanOrEqual(8_000_000_000 - Math.ceil((spent * 1_000_000) / 10));
    expect(max2.max_size).toBeLessThan(8_000_000_000 - Math.ceil(((spent - 64) * 1_000_000) / 10));
  });

  test("refusals as java-tron words them; unfreeze waits 14 days, then withdraw (moves the node's clock: last)", async () => {
    const a = await funded(3n);
    const tw = a.tw;
    await refused(tw, tw.transactionBuilder.freezeBalanceV2(5 * 1_000_000, "ENERGY", a.address), /less than or equal to accountBalance/);
    await send(tw, tw.transactionBuilder.freezeBalanceV2(2 * 1_000_000, "ENERGY", a.address));
    const b = await funded(1n);
    await refused(tw, tw.transactionBuilder.delegateResource(500_000, b.address, "ENERGY", a.address), /greater than or equal to 1 TRX/);
    await refused(tw, tw.transactionBuilder.delegateResource(3 * 1_000_000, b.address, "ENERGY", a.address), /available FreezeEnergyV2 balance/);
    await refused(tw, tw.transactionBuilder.undelegateResource(1_000_000, b.address, "ENERGY", a.address), /delegated Resource does not exist/);
    await send(tw, tw.transactionBuilder.unfreezeBalanceV2(2 * 1_000_000, "ENERGY", a.address));
    const acct = await tw.trx.getUnconfirmedAccount(a.address);
    expect(acct.unfrozenV2).toEqual([{ type: "ENERGY", unfreeze_amount: 2_000_000, unfreeze_expire_time: expect.any(Number) }]);
    await refused(tw, tw.transactionBuilder.withdrawExpireUnfreeze(a.address), /no unFreeze balance to withdraw/);
    fx.node.chain.advanceTime(14 * 86_400_000 + 1000);
    fx.node.mine(1);
    const before = fx.node.chain.trx(a.address);
    await send(tw, tw.transactionBuilder.withdrawExpireUnfreeze(a.address));
    expect(fx.node.chain.trx(a.address)).toBe(before + 2_000_000n);
  });
});
