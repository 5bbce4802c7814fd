// Sending on TRON: TRC20 `transfer`, TRX and Stake 2.0 transactions built and signed locally
// (tx.ts, never a node-built transaction) on a solidified reference block, broadcast with every
// refusal sorted into success, retry or permanent, and what the chain says of a sent one.
import type { BroadcastResult, ChainHead, SignedTransfer, TransferRequest, TxState } from "../types";
import { normalizeTronAddress } from "./address";
import { assertKeyFor, inclusion, TransferWouldRevertError, type NativeTransferRequest } from "../common/adapter-parts";
import { addressOfKey, signRaw, stakeRaw, transferData, transferTrxRaw, triggerRaw, type RefBlock, type TronRawData, type TronSignedTx } from "./tx";
import { hexText, numberOf, type TronNode } from "./node";
import { energyAndFeeLimit } from "./fees";
import type { TronAdapter, TronTxMeta } from "./types";

/** Signature (65 bytes + framing) and transaction framing on top of raw_data, for bandwidth. */
const BANDWIDTH_OVERHEAD = 67 + 64;

async function refAndTime(node: TronNode): Promise<{ ref: RefBlock; headTime: number }> {
  // The reference block is a solidified one: a reorg can never invalidate it (TAPOS).
  const [solid, head] = await Promise.all([node.nowBlock(true), node.nowBlock(false)]);
  return { ref: { number: Number(numberOf(solid)), blockID: solid.blockID! }, headTime: Number(head.block_header!.raw_data.timestamp) };
}

/** The address of `privateKey`; throws when it is not `from`'s key. */
function checkKey(privateKey: Uint8Array, from?: string): string {
  const own = addressOfKey(privateKey);
  assertKeyFor(from === undefined ? undefined : normalizeTronAddress(from), own);
  return own;
}

function signed(raw: TronRawData, privateKey: Uint8Array, meta: Pick<TronTxMeta, "kind" | "op" | "from" | "to" | "amount" | "feeLimit" | "token" | "energy">): SignedTransfer {
  const tx: TronSignedTx = signRaw(raw, privateKey);
  const full: TronTxMeta = {
    ...meta,
    bandwidth: tx.raw_data_hex.length / 2 + BANDWIDTH_OVERHEAD,
    expiration: raw.expiration,
    refBlock: parseInt(raw.ref_block_bytes, 16),
  };
  return { txHash: tx.txID, raw: JSON.stringify(tx), meta: full };
}

/** A TRC20 `transfer`, simulated first (a transfer that would revert is refused), its fee limit from the energy the simulation used. */
export async function signTransfer(node: TronNode, req: TransferRequest): Promise<SignedTransfer> {
  const t = node.token(req.token);
  const from = normalizeTronAddress(req.from);
  const to = normalizeTronAddress(req.to);
  checkKey(req.privateKey, from); // refuse a wrong key before asking the node anything
  const data = transferData(to, req.amount);
  const sim = await node.constant(t.contract, from, "transfer(address,uint256)", data.slice(8));
  if (sim.Error) throw new Error(`TRON ${req.token} transfer simulation failed: ${sim.Error}`);
  if (!sim.result?.result) {
    const msg = `${sim.result?.code ?? "error"}: ${hexText(sim.result?.message)}`;
    if (sim.result?.code === "CONTRACT_EXE_ERROR" || /revert/i.test(msg)) {
      throw new TransferWouldRevertError(`TRON ${req.token} transfer from ${from} would fail: ${msg}`);
    }
    throw new Error(`TRON ${req.token} transfer simulation failed: ${msg}`);
  }
  const { energy, feeLimit } = await energyAndFeeLimit(node, sim.energy_used);
  const { ref, headTime } = await refAndTime(node);
  const raw = triggerRaw({ owner: from, contract: t.contract, data, feeLimit: Number(feeLimit), ref, expiration: headTime + node.lifetime, timestamp: headTime });
  return signed(raw, req.privateKey, {
    kind: "TRC20",
    from,
    to,
    amount: req.amount.toString(),
    token: req.token,
    feeLimit: feeLimit.toString(),
    energy: energy.toString(),
  });
}

/** A Stake 2.0 transaction for ENERGY signed by `req.from`. */
export async function signStake(node: TronNode, req: Parameters<TronAdapter["signStake"]>[0]): Promise<SignedTransfer> {
  const from = checkKey(req.privateKey, req.from);
  const to = req.to === undefined ? undefined : normalizeTronAddress(req.to);
  const { ref, headTime } = await refAndTime(node);
  const raw = stakeRaw({ kind: req.op, owner: from, receiver: to, amount: req.amount, ref, expiration: headTime + node.lifetime, timestamp: headTime });
  return signed(raw, req.privateKey, { kind: "STAKE", op: req.op, from, to: to ?? from, amount: req.amount.toString(), feeLimit: "0" });
}

export async function signNativeTransfer(node: TronNode, req: NativeTransferRequest): Promise<SignedTransfer> {
  const from = checkKey(req.privateKey, req.from);
  const to = normalizeTronAddress(req.to);
  const { ref, headTime } = await refAndTime(node);
  const raw = transferTrxRaw({ owner: from, to, amount: req.amount, ref, expiration: headTime + node.lifetime, timestamp: headTime });
  return signed(raw, req.privateKey, { kind: "TRX", from, to, amount: req.amount.toString(), feeLimit: "0" });
}

/** Sends `tx`; a refusal is a success when the chain already has it, permanent only when it can never land. */
export async function broadcast(node: TronNode, tx: SignedTransfer): Promise<BroadcastResult> {
  let r: { result?: boolean; txid?: string; code?: string; message?: string; Error?: string };
  try {
    r = await node.rpc.post("wallet/broadcasttransaction", JSON.parse(tx.raw) as Record<string, unknown>);
  } catch (e) {
    return { ok: false, permanent: false, error: (e as Error).message };
  }
  if (r.result === true) {
    if (r.txid && r.txid.toLowerCase() !== tx.txHash.toLowerCase()) {
      return { ok: false, permanent: true, error: `node computed txid ${r.txid}, expected ${tx.txHash}` };
    }
    return { ok: true };
  }
  if (r.Error) return { ok: false, permanent: true, error: `node could not read the transaction: ${r.Error}` };
  const code = r.code ?? "OTHER_ERROR";
  const error = `${code}: ${hexText(r.message)}`;
  if (code === "DUP_TRANSACTION_ERROR") return { ok: true };
  try {
    // A refusal of a transaction the chain already has (a rebroadcast after a crash) is a success.
    if (await node.known(tx.txHash)) return { ok: true };
  } catch (e) {
    return { ok: false, permanent: false, error: `${error}; lookup failed: ${(e as Error).message}` };
  }
  switch (code) {
    case "SIGERROR":
    case "TOO_BIG_TRANSACTION_ERROR":
    case "TRANSACTION_EXPIRATION_ERROR":
      return { ok: false, permanent: true, error };
    case "CONTRACT_VALIDATE_ERROR":
      // Funds or activation can still arrive (gas top-up); anything else about the contract cannot change.
      if (/balance is not sufficient|no OwnerAccount|does not exist|not exist|insufficient/i.test(error)) return { ok: false, permanent: false, error };
      return { ok: false, permanent: true, error };
    default:
      // BANDWITH_ERROR, SERVER_BUSY, NOT_ENOUGH_EFFECTIVE_CONNECTION, TAPOS_ERROR (a node behind
      // the reference block), OTHER_ERROR...: not known to be final.
      return { ok: false, permanent: false, error };
  }
}

export async function txState(node: TronNode, head: () => Promise<ChainHead>, tx: SignedTransfer): Promise<TxState> {
  const included = async (): Promise<TxState | null> => {
    const info = await node.infoOf(tx.txHash);
    if (!info) return null;
    const blockNumber = BigInt(info.blockNumber!);
    const success = info.result !== "FAILED" && (info.receipt?.result === undefined || info.receipt.result === "SUCCESS");
    return { state: "included", blockNumber, success, ...inclusion(await head(), blockNumber) };
  };
  const inc = await included();
  if (inc) return inc;
  if (await node.known(tx.txHash)) return { state: "pending" };
  const m = tx.meta as Partial<TronTxMeta>;
  let expiration = typeof m.expiration === "number" ? m.expiration : undefined;
  if (expiration === undefined) {
    try {
      expiration = Number((JSON.parse(tx.raw) as TronSignedTx).raw_data.expiration);
    } catch {}
  }
  if (expiration === undefined || !Number.isFinite(expiration)) return { state: "unknown" };
  // Past its expiration at a solidified block: no block from here on may include it.
  const solid = await node.nowBlock(true);
  if (Number(solid.block_header!.raw_data.timestamp) > expiration) return (await included()) ?? { state: "expired" };
  return { state: "unknown" };
}
