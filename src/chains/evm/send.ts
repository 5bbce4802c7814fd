// Sending: token and native transfers signed locally (the node's chain id, the next nonce or the
// stored one), replacements of a transaction that does not confirm (same nonce, raised fees up to
// gas_price_cap), broadcasting with every refusal sorted into success, retry or permanent, and what
// the chain says of a sent transaction (its state, cost and nonce).
import { bytesToHex, encodeFunctionData, getAddress, keccak256, parseTransaction, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { BroadcastResult, ChainHead, SignedTransfer, TransferRequest, TxState } from "../types";
import { RpcError } from "../json-rpc";
import { assertKeyFor, inclusion, TransferWouldRevertError, type NativeTransferRequest } from "../common/adapter-parts";
import { ERC20_ABI, hex, type EvmNode } from "./node";
import { estimateTokenGas, l1FeeOf, marketFees, NATIVE_TRANSFER_GAS, perGas, raisedFees, txRequest, type TxFields } from "./fees";
import type { EvmFees, EvmTxMeta } from "./types";

/** The nonce a signature uses: the hint's (a stored payout's), else the node's next one, pending transactions included. */
export async function nonceFor(node: EvmNode, address: string, hint?: Record<string, unknown>): Promise<number> {
  const h = hint?.nonce;
  if (typeof h === "number" || typeof h === "bigint" || (typeof h === "string" && /^\d+$/.test(h))) return Number(h);
  return Number(BigInt(await node.rpc.request<string>("eth_getTransactionCount", [address, "pending"])));
}

/** The signing account of `privateKey`; throws when it is not `from`'s key. */
function accountFor(privateKey: Uint8Array, from?: string) {
  const account = privateKeyToAccount(bytesToHex(privateKey));
  assertKeyFor(from === undefined ? undefined : getAddress(from), account.address);
  return account;
}

async function signWith(
  node: EvmNode,
  privateKey: Uint8Array,
  from: string | undefined,
  tx: TxFields,
  fees: EvmFees,
  hint: Record<string, unknown> | undefined,
  extra: Record<string, unknown>,
): Promise<SignedTransfer> {
  const account = accountFor(privateKey, from);
  const nonce = await nonceFor(node, account.address, hint);
  const raw = await account.signTransaction(txRequest(node, tx, fees, nonce));
  const l1Fee = await l1FeeOf(node, tx, fees, nonce);
  const meta: EvmTxMeta = {
    chainId: node.chainId,
    from: account.address,
    to: tx.to,
    nonce,
    type: fees.type,
    gasPrice: perGas(fees).toString(),
    ...(fees.type === "eip1559" ? { maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() } : {}),
    gasLimit: tx.gas.toString(),
    ...(node.profile.l1Fee === "op-stack" ? { l1Fee: l1Fee.toString() } : {}),
    ...extra,
  };
  return { txHash: keccak256(raw), raw, meta };
}

/** A token transfer; its gas limit the hint's or estimated (a transfer the node says would revert is refused). */
export async function signTokenTransfer(node: EvmNode, req: TransferRequest): Promise<SignedTransfer> {
  const t = node.token(req.token);
  const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [getAddress(req.to), req.amount] });
  const from = getAddress(req.from);
  accountFor(req.privateKey, from); // refuse a wrong key before asking the node anything
  let gas: bigint;
  const hinted = req.hint?.gasLimit;
  if (typeof hinted === "string" || typeof hinted === "number" || typeof hinted === "bigint") {
    gas = BigInt(hinted);
  } else {
    try {
      gas = await estimateTokenGas(node, from, t.contract, data);
    } catch (e) {
      if (e instanceof RpcError && e.kind === "rpc") {
        throw new TransferWouldRevertError(`${node.profile.name} ${req.token} transfer from ${from} would fail: ${e.message}`);
      }
      throw e;
    }
  }
  return signWith(node, req.privateKey, from, { to: t.contract as Hex, data, gas }, await marketFees(node), req.hint, {
    token: req.token,
    recipient: getAddress(req.to),
    amount: req.amount.toString(),
  });
}

export async function signNativeTransfer(node: EvmNode, req: NativeTransferRequest): Promise<SignedTransfer> {
  return signWith(
    node,
    req.privateKey,
    req.from,
    { to: getAddress(req.to), value: req.amount, gas: NATIVE_TRANSFER_GAS },
    await marketFees(node),
    req.hint,
    { token: node.profile.nativeSymbol, recipient: getAddress(req.to), amount: req.amount.toString() },
  );
}

/** Meta keys signWith writes itself; a replacement carries the rest over. */
const SIGNED_META_KEYS = ["chainId", "from", "to", "nonce", "type", "gasPrice", "maxPriorityFeePerGas", "gasLimit", "l1Fee"];

/** `prev` again with the same nonce, gas, recipient and data and raised fees; null when stuck at the cap. */
export async function signReplacement(node: EvmNode, prev: SignedTransfer, privateKey: Uint8Array): Promise<SignedTransfer | null> {
  const p = parseTransaction(prev.raw as Hex);
  const meta = prev.meta as Partial<EvmTxMeta>;
  if (p.nonce === undefined || p.gas === undefined || !p.to) throw new Error(`${node.profile.name} stored transaction ${prev.txHash} cannot be replaced: no nonce, gas or recipient`);
  const fees = raisedFees(node, p, await marketFees(node));
  if (fees === null) return null;
  const extra = Object.fromEntries(Object.entries(meta).filter(([k]) => !SIGNED_META_KEYS.includes(k)));
  return signWith(node, privateKey, meta.from, { to: getAddress(p.to), data: p.data, value: p.value, gas: p.gas }, fees, { nonce: p.nonce }, { ...extra, replaces: prev.txHash });
}

/** Every endpoint's answer on whether it knows `hash`: true (one does), false (all answered: none), null (one could not be asked). */
async function knownAnywhere(node: EvmNode, hash: string): Promise<boolean | null> {
  const answers = await node.rpc.requestEvery<unknown>("eth_getTransactionByHash", [hash]);
  if (answers.some((a) => a !== null && !(a instanceof RpcError))) return true;
  return answers.some((a) => a instanceof RpcError) ? null : false;
}

export type NonceVerdict = "ours" | "taken" | "open" | "unsure";

/** What the chain says of a transaction's nonce, asked of every endpoint (EvmAdapter.nonceVerdict). */
export async function nonceVerdict(node: EvmNode, head: () => Promise<ChainHead>, tx: SignedTransfer): Promise<NonceVerdict> {
  const known = await knownAnywhere(node, tx.txHash);
  if (known) return "ours";
  const meta = tx.meta as Partial<EvmTxMeta>;
  if (known === null || typeof meta.from !== "string" || typeof meta.nonce !== "number") return "unsure";
  // Only a final block's nonce concludes: a reorg above it could still undo it.
  const h = await head();
  let used: bigint;
  try {
    used = BigInt(await node.rpc.request<string>("eth_getTransactionCount", [meta.from, hex(h.final)]));
  } catch (e) {
    if (!(e instanceof RpcError && e.kind === "rpc")) throw e;
    node.log?.warn({ msg: `${node.profile.name.toLowerCase()} nonce at the final block unavailable; concluding nothing`, block: h.final.toString(), error: e.message });
    return "unsure";
  }
  return used > BigInt(meta.nonce) ? "taken" : "open";
}

/** Sends `tx`; a refusal is a success when the transaction is already known, permanent only when it can never land. */
export async function broadcast(node: EvmNode, verdict: (tx: SignedTransfer) => Promise<NonceVerdict>, tx: SignedTransfer): Promise<BroadcastResult> {
  try {
    const hash = await node.rpc.request<string>("eth_sendRawTransaction", [tx.raw]);
    if (hash.toLowerCase() !== tx.txHash.toLowerCase()) {
      return { ok: false, permanent: true, error: `node computed hash ${hash}, expected ${tx.txHash}` };
    }
    return { ok: true };
  } catch (e) {
    if (!(e instanceof RpcError) || e.kind !== "rpc") {
      return { ok: false, permanent: false, error: (e as Error).message };
    }
    try {
      return await refusalOutcome(node, verdict, tx, e.message);
    } catch (inner) {
      return { ok: false, permanent: false, error: `${e.message}; lookup failed: ${(inner as Error).message}` };
    }
  }
}

/** What a node's JSON-RPC refusal of `tx` means (messages of geth, erigon, nethermind, anvil and providers). */
async function refusalOutcome(node: EvmNode, verdict: (tx: SignedTransfer) => Promise<NonceVerdict>, tx: SignedTransfer, msg: string): Promise<BroadcastResult> {
  const known = async () => (await node.rpc.request("eth_getTransactionByHash", [tx.txHash])) !== null;
  if (/already known|known transaction|already imported|already exists|already in (the )?pool/i.test(msg)) {
    return { ok: true };
  }
  if (/nonce too low|nonce is too low|nonce has already been used|noncetoolow|old nonce/i.test(msg)) {
    // Our own transaction already mined (rebroadcast after a crash) is a success. One
    // endpoint's word is not enough either way: every endpoint is asked for this
    // transaction, and only a nonce used in a final block by another one is permanent.
    if (await known()) return { ok: true };
    const v = await verdict(tx);
    if (v === "ours") return { ok: true };
    if (v === "taken") return { ok: false, permanent: true, error: `${msg} (the nonce is used in a final block by another transaction)` };
    return { ok: false, permanent: false, error: msg };
  }
  if (/insufficient funds/i.test(msg)) return { ok: false, permanent: false, error: msg };
  if (/replacement transaction underpriced/i.test(msg)) {
    return (await known()) ? { ok: true } : { ok: false, permanent: false, error: msg };
  }
  if (
    /transaction underpriced|gas price too low|intrinsic gas too low|exceeds block gas limit|invalid sender|invalid signature|invalid chain ?id|chain ?id mismatch|oversized|exceeds the configured cap|rlp|invalid transaction/i.test(
      msg,
    )
  ) {
    return { ok: false, permanent: true, error: msg };
  }
  // Unknown refusal: never call it permanent unless we know the tx cannot land.
  return (await known()) ? { ok: true } : { ok: false, permanent: false, error: msg };
}

/** Native coin a mined transaction burned: gas used × effective price, + the L1 data fee an OP-stack receipt carries. */
export async function txCost(node: EvmNode, tx: SignedTransfer) {
  const r = await node.rpc.request<{ gasUsed?: string; effectiveGasPrice?: string; l1Fee?: string } | null>("eth_getTransactionReceipt", [tx.txHash]);
  if (!r?.gasUsed) return null;
  // OP-stack receipts carry the L1 data fee paid on top of gas.
  return { nativeBurned: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice ?? "0x0") + BigInt(r.l1Fee ?? "0x0") };
}

export async function txState(node: EvmNode, head: () => Promise<ChainHead>, verdict: (tx: SignedTransfer) => Promise<NonceVerdict>, tx: SignedTransfer): Promise<TxState> {
  const receiptState = async (): Promise<TxState | null> => {
    const r = await node.rpc.request<{ blockNumber: string; status: string } | null>("eth_getTransactionReceipt", [tx.txHash]);
    if (!r) return null;
    const blockNumber = BigInt(r.blockNumber);
    return { state: "included", blockNumber, success: r.status === "0x1", ...inclusion(await head(), blockNumber) };
  };
  const included = await receiptState();
  if (included) return included;
  const pending = await node.rpc.request<{ blockNumber: string | null } | null>("eth_getTransactionByHash", [tx.txHash]);
  if (pending) return { state: "pending" };

  // Expired only on final data: the nonce used in a final block and no endpoint knowing this
  // transaction. A final block's nonce that cannot be read concludes nothing (never the latest's).
  const v = await verdict(tx);
  if (v === "ours") return { state: "pending" };
  if (v === "taken") {
    // It may have landed between the receipt lookup and now.
    return (await receiptState()) ?? { state: "expired" };
  }
  return { state: "unknown" };
}
