// One fake TRON node with a funded dev account, tronweb helpers (the chain's own client
// library) to move USDT and TRX, and an adapter pointed at the node.
import { bytesToHex } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createTronAdapter, type TronAdapter, type TronAdapterOptions } from "../chains/tron/adapter";
import { deriveTronKey } from "../chains/tron/address";
import { chainModule } from "../chains/registry";
import type { TokenInfo } from "../chains/types";
import { startTronNode, type TronNode, type TronNodeOptions } from "./tron-node";

export const TRON_TOKENS: TokenInfo[] = chainModule("TRON").defaults.tokens.map((t) => ({ ...t }));
export const USDT = TRON_TOKENS[0].contract;
const DEV = deriveTronKey(sha256(new TextEncoder().encode("stablegate tron dev")), 0);
export const DEV_ADDRESS = DEV.address;
export const DEV_KEY = bytesToHex(DEV.privateKey);
export const TRX = 1_000_000n;

export interface TronFixture {
  node: TronNode;
  adapter(overrides?: Partial<TronAdapterOptions>): TronAdapter;
  /** A TRC20 transfer built, signed and broadcast with tronweb; returns its txID. */
  sendUsdt(to: string, amount: bigint, fromKeyHex?: string): Promise<string>;
  /** A TRX transfer (activates `to` when new) sent with tronweb; returns its txID. */
  sendTrx(to: string, sun: bigint, fromKeyHex?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTronFixture(opts: TronNodeOptions = {}): Promise<TronFixture> {
  const node = await startTronNode({
    solidLag: 3,
    genesis: [{ address: DEV_ADDRESS, trx: 10_000_000n * TRX, usdt: 1_000_000_000n * 10n ** 6n }],
    ...opts,
  });
  async function send(tx: unknown, tw: any): Promise<string> {
    const signed = await tw.trx.sign(tx);
    const r = await tw.trx.sendRawTransaction(signed);
    if (!r.result) throw new Error(`broadcast refused: ${r.code} ${r.message ? Buffer.from(r.message, "hex").toString() : ""}`);
    return r.txid ?? signed.txID;
  }
  return {
    node,
    adapter: (o = {}) =>
      createTronAdapter({ rpcUrls: [node.url], tokens: TRON_TOKENS, confirmations: 3, backoffBaseMs: 5, rateLimitBackoffMs: 50, requestTimeoutMs: 2000, ...o }),
    async sendUsdt(to, amount, fromKeyHex = DEV_KEY) {
      const tw = node.tronWeb(fromKeyHex);
      const from = tw.address.fromPrivateKey(fromKeyHex);
      const { transaction } = await tw.transactionBuilder.triggerSmartContract(
        USDT,
        "transfer(address,uint256)",
        { feeLimit: 100_000_000 },
        [
          { type: "address", value: to },
          { type: "uint256", value: amount.toString() },
        ],
        from,
      );
      return send(transaction, tw);
    },
    async sendTrx(to, sun, fromKeyHex = DEV_KEY) {
      const tw = node.tronWeb(fromKeyHex);
      const tx = await tw.transactionBuilder.sendTrx(to, Number(sun), tw.address.fromPrivateKey(fromKeyHex));
      return send(tx, tw);
    },
    stop: () => node.stop(),
  };
}
