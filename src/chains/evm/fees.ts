// What a transaction pays (docs/payouts.md "Fees, EIP-1559 and L1 data fees"): the market's fees
// (EIP-1559 type 2 where the chain has a base fee, legacy elsewhere) capped by gas_price_cap, gas
// limits with a margin, the OP-stack L1 data fee from the GasPriceOracle, and the raised fees of
// a replacement.
import { encodeFunctionData, getAddress, parseAbi, serializeTransaction, type Hex } from "viem";
import type { TokenSymbol } from "../types";
import { RpcError } from "../json-rpc";
import { ERC20_ABI, type EvmNode } from "./node";
import type { EvmFees } from "./types";

/** Gas limit = estimate × 13/10: estimates are exact for the state they ran on, and state moves. */
const GAS_MARGIN_NUM = 13n;
const GAS_MARGIN_DEN = 10n;
/** Used when estimation is impossible (e.g. `from` does not hold the tokens yet). docs: ≈ 51,696 to a new holder. */
const FALLBACK_TRANSFER_GAS = 65_000n;
export const NATIVE_TRANSFER_GAS = 21_000n;

/** The OP-stack GasPriceOracle predeploy (getL1Fee(bytes): the L1 data fee of an unsigned RLP-encoded transaction). */
export const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F";
const ORACLE_ABI = parseAbi(["function getL1Fee(bytes) view returns (uint256)"]);

/**
 * A replacement must raise its fees by what nodes require to take it over the pending one
 * (geth, erigon, anvil: 10 %; some pools 12.5 %): 12.5 %, rounded up, at least 1 wei.
 */
export function bumpFee(x: bigint): bigint {
  const up = (x * 125n + 999n) / 1000n;
  return x + (up > 0n ? up : 1n);
}
/** The least raise any node takes (10 %): a replacement capped below its 12.5 % bump still goes out when it clears this. */
const minBump = (x: bigint) => x + ((x + 9n) / 10n > 0n ? (x + 9n) / 10n : 1n);

const withMargin = (g: bigint) => (g * GAS_MARGIN_NUM + GAS_MARGIN_DEN - 1n) / GAS_MARGIN_DEN;
const cappedBy = (node: EvmNode) => (x: bigint) => (node.opts.gasPriceCap !== undefined && x > node.opts.gasPriceCap ? node.opts.gasPriceCap : x);

/** The fees a transaction signed now carries (type 2 where the chain has a base fee), capped by gasPriceCap. */
export async function marketFees(node: EvmNode): Promise<EvmFees> {
  const { rpc, profile } = node;
  const capped = cappedBy(node);
  const [block, price] = await Promise.all([node.getBlock("latest"), rpc.request<string>("eth_gasPrice")]);
  const baseFee = block?.baseFeePerGas !== undefined ? BigInt(block.baseFeePerGas) : null;
  if (baseFee === null || !(profile.eip1559 ?? baseFee > 0n)) return { type: "legacy", gasPrice: capped(BigInt(price)) };
  let tip: bigint;
  try {
    tip = BigInt(await rpc.request<string>("eth_maxPriorityFeePerGas"));
  } catch (e) {
    if (!(e instanceof RpcError && e.kind === "rpc")) throw e;
    tip = BigInt(price) > baseFee ? BigInt(price) - baseFee : 0n; // a node without the method: its gas price over the base fee
  }
  // Twice the base fee survives six full blocks of +12.5 % each before the transaction stops being includable.
  const maxFeePerGas = capped(2n * baseFee + tip);
  return { type: "eip1559", maxFeePerGas, maxPriorityFeePerGas: tip > maxFeePerGas ? maxFeePerGas : tip };
}

/** The highest price per gas `f` may pay. */
export const perGas = (f: EvmFees) => (f.type === "legacy" ? f.gasPrice : f.maxFeePerGas);

export type TxFields = { to: Hex; data?: Hex; value?: bigint; gas: bigint };

/** The unsigned transaction of `tx` with `fees` and `nonce` at the node's chain id. */
export const txRequest = (node: EvmNode, tx: TxFields, fees: EvmFees, nonce: number) =>
  fees.type === "legacy"
    ? { type: "legacy" as const, chainId: node.chainId, nonce, ...tx, gasPrice: fees.gasPrice }
    : { type: "eip1559" as const, chainId: node.chainId, nonce, ...tx, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };

/** OP-stack: the L1 data fee of this transaction with a 30 % margin (the L1 base fee moves until it lands); 0 elsewhere. */
export async function l1FeeOf(node: EvmNode, tx: TxFields, fees: EvmFees, nonce: number): Promise<bigint> {
  const { profile } = node;
  if (profile.l1Fee !== "op-stack") return 0n;
  const unsigned = serializeTransaction(txRequest(node, tx, fees, nonce));
  const data = encodeFunctionData({ abi: ORACLE_ABI, functionName: "getL1Fee", args: [unsigned] });
  const answer = await node.call(GAS_PRICE_ORACLE, data);
  if (!answer || answer === "0x") throw new Error(`${profile.name}: no GasPriceOracle at ${GAS_PRICE_ORACLE} to price the L1 data fee`);
  return withMargin(BigInt(answer));
}

/** eth_estimateGas of a token call, with the margin. */
export async function estimateTokenGas(node: EvmNode, from: string, contract: string, data: Hex): Promise<bigint> {
  return withMargin(BigInt(await node.rpc.request<string>("eth_estimateGas", [{ from, to: contract, data }])));
}

/** Wei `from` needs to pay for this token transfer (gas limit with margin × capped highest price per gas, + the L1 data fee on OP-stack chains). */
export async function estimateTransferFee(node: EvmNode, nonceOf: (address: string) => Promise<number>, from: string, to: string, symbol: TokenSymbol, amount: bigint): Promise<bigint> {
  const t = node.token(symbol);
  const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [getAddress(to), amount] });
  let gas: bigint;
  try {
    gas = await estimateTokenGas(node, getAddress(from), t.contract, data);
  } catch (e) {
    if (!(e instanceof RpcError && e.kind === "rpc")) throw e;
    gas = (FALLBACK_TRANSFER_GAS * GAS_MARGIN_NUM) / GAS_MARGIN_DEN;
  }
  const fees = await marketFees(node);
  const l1 = node.profile.l1Fee === "op-stack" ? await l1FeeOf(node, { to: t.contract as Hex, data, gas }, fees, await nonceOf(getAddress(from))) : 0n;
  return gas * perGas(fees) + l1;
}

/** The fees a stored transaction carried, as parsed from its raw bytes. */
export interface StoredFees {
  type?: string;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/**
 * A replacement's fees: each raised by at least bumpFee, or to the market's when higher, capped by
 * gasPriceCap; null when the cap leaves no raise a node would take (stuck at the cap).
 */
export function raisedFees(node: EvmNode, p: StoredFees, market: EvmFees): EvmFees | null {
  const cap = node.opts.gasPriceCap;
  /** The raised price: the bump, or the market's when higher; at the cap, the cap when it still clears the least raise; else null. */
  const raise = (old: bigint, now: bigint): bigint | null => {
    const want = bumpFee(old) > now ? bumpFee(old) : now;
    if (cap === undefined || want <= cap) return want;
    return cap >= minBump(old) ? cap : null;
  };
  if (p.type === "eip1559") {
    const maxFee = raise(p.maxFeePerGas!, perGas(market));
    if (maxFee === null) return null;
    const marketTip = market.type === "eip1559" ? market.maxPriorityFeePerGas : 0n;
    const tip = bumpFee(p.maxPriorityFeePerGas!) > marketTip ? bumpFee(p.maxPriorityFeePerGas!) : marketTip;
    if (tip > maxFee) return null;
    return { type: "eip1559", maxFeePerGas: maxFee, maxPriorityFeePerGas: tip };
  }
  const price = raise(p.gasPrice!, perGas(market));
  if (price === null) return null;
  return { type: "legacy", gasPrice: price };
}
