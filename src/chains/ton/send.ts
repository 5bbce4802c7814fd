// Sending on TON (DESIGN 23): a USDT jetton transfer (TEP-74 `transfer`, op 0x0f8a7ea5, to the
// source's own jetton wallet) or a plain TON transfer (a gas top-up), as one signed external
// message to the source's wallet v5r1, with the wallet's StateInit attached while the account
// is not active (the wallet is deployed by its first transfer). The message is built and signed
// here with @ton/ton's WalletContractV5R1; its hash (lowercase hex) is the transfer's id until
// it lands, and what toncenter finds its transaction by (/transactionsByMessage).
//
// Sent at most once: the message carries the wallet's seqno and a valid_until (masterchain time
// + MESSAGE_LIFETIME_S). The wallet accepts a seqno once, so re-sending the stored message after
// a crash either lands it (it had not) or is refused (it had, or another message took the
// seqno); a message not found on chain once a masterchain block past its valid_until exists can
// never land (txState "expired"). It is never re-signed.
import type { Address, Cell } from "@ton/core";
import type { BroadcastResult, ChainHead, SignedTransfer, TransferRequest, TxCost, TxState } from "../types";
import { assertKeyFor, inclusion } from "../common/adapter-parts";
import { normalizeTonAddress, parseTonAddress, tonCore, tonFriendly, tonSecretKey, tonWallet } from "./address";
import { ed25519 } from "@noble/curves/ed25519.js";
import { b64hex, OP_INTERNAL_TRANSFER, OP_JETTON_TRANSFER, OP_TRANSFER_NOTIFICATION, type V3Transaction } from "./scan";
import type { TonRpc } from "./rpc";

/** How long a signed message stays valid, in seconds of masterchain time (a top-up before the first broadcast fits well inside). */
export const MESSAGE_LIFETIME_S = 3600;
/** TON attached to a jetton transfer for the two jetton wallets' gas and the forward amount; what is left comes back as `excesses`. */
export const JETTON_TRANSFER_TON = 50_000_000n;
/** TON forwarded to the recipient with the `transfer_notification` (1 nanoton, as wallet apps send: exchanges see the deposit). */
export const FORWARD_TON = 1n;
/** What the wallet's own transaction may cost on top (compute, forwarding, storage; the deploy on a first transfer). */
export const WALLET_FEE_RESERVE = 10_000_000n;
/** Transactions the cost and outcome reads follow along a transfer's trace at most. */
const MAX_TRACE_TXS = 6;

export interface TonTxMeta {
  kind: "JETTON" | "TON";
  from: string;
  to: string;
  /** Base units of `token` (JETTON) or nanotons (TON). */
  amount: string;
  token?: string;
  seqno: number;
  /** Unix seconds: the wallet refuses the message after it. */
  validUntil: number;
  /** The wallet's StateInit rides along (the account was not active when signed). */
  deploy: boolean;
  /** Nanotons the wallet sends with the message (JETTON: gas and forward amount; TON: the amount). */
  attached: string;
  /** JETTON: the source's jetton wallet (raw) the transfer goes to. */
  jettonWallet?: string;
  forwardTon?: string;
  comment?: string;
}

/** What the sending side reads: the source's jetton wallet (the master's answer) and the head. */
export interface TonSendDeps {
  rpc: TonRpc;
  jettonWalletOf(owner: string): Promise<string>;
  head(): Promise<ChainHead>;
}

/** The wallet's account state (toncenter v3 /walletInformation): status, balance, seqno (0 until deployed). */
export async function walletState(rpc: TonRpc, address: string): Promise<{ active: boolean; balance: bigint; seqno: number }> {
  const w = await rpc.get<{ status?: string; balance?: string; seqno?: number | null }>("walletInformation", { address });
  const active = w.status === "active";
  return { active, balance: BigInt(w.balance ?? "0"), seqno: active ? Number(w.seqno ?? 0) : 0 };
}

/** The TEP-74 transfer body: amount to `to`, excess back to `response`, a forward amount and an optional text comment. */
export function jettonTransferBody(a: { amount: bigint; to: Address; response: Address; forwardTon: bigint; comment?: string; queryId?: bigint }): Cell {
  const { beginCell } = tonCore();
  const payload = a.comment === undefined ? null : beginCell().storeUint(0, 32).storeStringTail(a.comment).endCell();
  return beginCell()
    .storeUint(OP_JETTON_TRANSFER, 32)
    .storeUint(a.queryId ?? 0n, 64)
    .storeCoins(a.amount)
    .storeAddress(a.to)
    .storeAddress(a.response)
    .storeMaybeRef(null)
    .storeCoins(a.forwardTon)
    .storeMaybeRef(payload)
    .endCell();
}

function addressOf(s: string, what: string): Address {
  const a = parseTonAddress(s);
  if (!a) throw Object.assign(new Error(`invalid TON ${what} address: ${JSON.stringify(s)}`), { permanent: true });
  return a;
}

/** The wallet v5r1 of `privateKey`; throws when it is not `from` (a wrong key is refused before any call). */
function walletOfKey(privateKey: Uint8Array, from?: string) {
  const wallet = tonWallet(ed25519.getPublicKey(privateKey));
  assertKeyFor(from === undefined ? undefined : normalizeTonAddress(from), tonFriendly(wallet.address));
  return wallet;
}

/** Signs one internal message from the wallet of `privateKey` as an external message; the seqno is the wallet's (or `hint.seqno` when higher). */
async function signMessage(
  d: TonSendDeps,
  req: { from?: string; privateKey: Uint8Array; hint?: Record<string, unknown> },
  out: { to: Address; value: bigint; bounce: boolean; body?: Cell },
  meta: Omit<TonTxMeta, "seqno" | "validUntil" | "deploy" | "from" | "attached">,
): Promise<SignedTransfer> {
  const { beginCell, external, internal, storeMessage, SendMode } = tonCore();
  const wallet = walletOfKey(req.privateKey, req.from);
  const own = tonFriendly(wallet.address);
  const [state, head] = await Promise.all([walletState(d.rpc, own), d.head()]);
  const floor = typeof req.hint?.seqno === "number" ? req.hint.seqno : 0;
  const seqno = Math.max(state.seqno, floor);
  const validUntil = Math.floor(head.time / 1000) + MESSAGE_LIFETIME_S;
  const body = wallet.createTransfer({
    seqno,
    secretKey: tonSecretKey(req.privateKey),
    timeout: validUntil,
    // Fees apart from the value; no IGNORE_ERRORS: a wallet short of TON fails its action phase, which txState reads as a failure.
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [internal({ to: out.to, value: out.value, bounce: out.bounce, body: out.body })],
  });
  const deploy = !state.active;
  const cell = beginCell()
    .store(storeMessage(external({ to: wallet.address, init: deploy ? wallet.init : undefined, body })))
    .endCell();
  const full: TonTxMeta = { ...meta, from: own, seqno, validUntil, deploy, attached: out.value.toString() };
  return { txHash: cell.hash().toString("hex"), raw: cell.toBoc().toString("base64"), meta: full as unknown as Record<string, unknown> };
}

/** A USDT transfer from `req.from` to the owner `req.to` (its jetton wallet is the master's business), excess back to the source. */
export async function signJettonTransfer(d: TonSendDeps, req: TransferRequest & { comment?: string }): Promise<SignedTransfer> {
  if (req.token !== "USDT") throw Object.assign(new Error(`TON carries no ${req.token}`), { permanent: true });
  if (req.amount <= 0n) throw Object.assign(new Error("a TON jetton transfer needs a positive amount"), { permanent: true });
  const from = normalizeTonAddress(req.from);
  const to = addressOf(req.to, "recipient");
  walletOfKey(req.privateKey, from);
  const jettonWallet = await d.jettonWalletOf(from);
  const { Address } = tonCore();
  const body = jettonTransferBody({ amount: req.amount, to, response: Address.parse(from), forwardTon: FORWARD_TON, comment: req.comment });
  return signMessage(
    d,
    { from, privateKey: req.privateKey, hint: req.hint },
    // Bounceable: a jetton wallet that rejects the transfer sends the TON back.
    { to: Address.parseRaw(jettonWallet), value: JETTON_TRANSFER_TON, bounce: true, body },
    { kind: "JETTON", to: tonFriendly(to), amount: req.amount.toString(), token: req.token, jettonWallet, forwardTon: FORWARD_TON.toString(), ...(req.comment === undefined ? {} : { comment: req.comment }) },
  );
}

/** Nanotons to `req.to` (a gas top-up), non-bounceable: it reaches a wallet not deployed yet. */
export async function signTonTransfer(d: TonSendDeps, req: { from?: string; to: string; amount: bigint; privateKey: Uint8Array; hint?: Record<string, unknown> }): Promise<SignedTransfer> {
  const to = addressOf(req.to, "recipient");
  return signMessage(d, req, { to, value: req.amount, bounce: false }, { kind: "TON", to: tonFriendly(to), amount: req.amount.toString() });
}

const metaOf = (tx: SignedTransfer) => tx.meta as unknown as TonTxMeta;

/** The transaction a message (hex hash) arrived in, or null while toncenter has none. */
async function byInMessage(rpc: TonRpc, msgHash: string): Promise<V3Transaction | null> {
  const r = await rpc.get<{ transactions?: V3Transaction[] }>("transactionsByMessage", { msg_hash: msgHash, direction: "in", limit: 1 });
  return r.transactions?.[0] ?? null;
}

const hexOf = (h: string) => (/^[0-9a-fA-F]{64}$/.test(h) ? h.toLowerCase() : b64hex(h));
const okTx = (t: V3Transaction) => !t.description?.aborted && t.description?.compute_ph?.success !== false && t.description?.action?.success !== false;

/**
 * The wallet's transaction and, for a jetton transfer, those of the source's and the recipient's
 * jetton wallets: the transfer has landed when all are in masterchain blocks, and succeeded when
 * none failed (a failing jetton wallet bounces, nothing moves). "pending": part is on its way.
 */
async function outcome(rpc: TonRpc, tx: SignedTransfer): Promise<{ wallet: V3Transaction; block: number; success: boolean } | "pending" | null> {
  const wallet = await byInMessage(rpc, tx.txHash);
  if (!wallet) return null;
  if (wallet.mc_block_seqno === null || wallet.mc_block_seqno === undefined) return "pending";
  if (!okTx(wallet) || wallet.out_msgs.length === 0) return { wallet, block: wallet.mc_block_seqno, success: false };
  if (metaOf(tx).kind !== "JETTON") return { wallet, block: wallet.mc_block_seqno, success: true };
  // Ours (transfer → internal_transfer), then the recipient's (internal_transfer → notification, excesses).
  const ours = await byInMessage(rpc, hexOf(wallet.out_msgs[0]!.hash));
  if (!ours || ours.mc_block_seqno == null) return "pending";
  const handoff = ours.out_msgs.find((m) => !m.bounced && m.destination && Number(m.opcode) === OP_INTERNAL_TRANSFER);
  if (!okTx(ours) || !handoff) return { wallet, block: ours.mc_block_seqno, success: false };
  const theirs = await byInMessage(rpc, hexOf(handoff.hash));
  if (!theirs || theirs.mc_block_seqno == null) return "pending";
  return { wallet, block: Math.max(wallet.mc_block_seqno, ours.mc_block_seqno, theirs.mc_block_seqno), success: okTx(theirs) };
}

export async function txState(d: TonSendDeps, tx: SignedTransfer): Promise<TxState> {
  const found = await outcome(d.rpc, tx);
  if (found === "pending") return { state: "pending" };
  if (found) return { state: "included", blockNumber: BigInt(found.block), success: found.success, ...inclusion(await d.head(), BigInt(found.block)) };
  const m = metaOf(tx);
  // Past valid_until at the newest masterchain block, and not in any block: it can never land.
  const head = await d.head();
  if (Math.floor(head.time / 1000) > m.validUntil) return (await outcome(d.rpc, tx)) ? txState(d, tx) : { state: "expired" };
  // The seqno moved past it: the message (or another with its seqno) was taken; the index will tell which.
  if (typeof m.seqno === "number" && (await walletState(d.rpc, m.from)).seqno > m.seqno) return { state: "pending" };
  return { state: "unknown" };
}

/** Sends the stored message; a refusal is a success when the chain already has it, permanent only past its valid_until. */
export async function broadcast(d: TonSendDeps, tx: SignedTransfer): Promise<BroadcastResult> {
  let error: string;
  try {
    const r = await d.rpc.sendMessage(tx.raw);
    if (r.refused === undefined) return { ok: true };
    error = `refused: ${r.refused}`;
  } catch (e) {
    error = String((e as Error)?.message ?? e);
  }
  try {
    const s = await txState(d, tx);
    if (s.state === "included" || s.state === "pending") return { ok: true };
    if (s.state === "expired") return { ok: false, permanent: true, error: `message past its valid_until and not on chain (${error}); nothing was sent` };
  } catch (e) {
    return { ok: false, permanent: false, error: `${error}; lookup failed: ${(e as Error).message}` };
  }
  return { ok: false, permanent: false, error };
}

/**
 * What a landed transfer cost its wallet: the wallet transaction's fees and the TON it sent
 * (with the forwarding fee each message carries),
 * less what came back to the wallet along the trace (a jetton transfer's `excesses`, a bounce)
 * net of the fees of the transactions that took it in. A jetton transfer's cost is thus the
 * fees burned by every hop plus the forward amount the recipient got; a top-up's its fee and
 * what the receiving wallet's transaction burned on arrival.
 */
export async function txCost(d: TonSendDeps, tx: SignedTransfer): Promise<TxCost | null> {
  const wallet = await byInMessage(d.rpc, tx.txHash);
  if (!wallet || wallet.mc_block_seqno == null) return null;
  const m = metaOf(tx);
  // The wallet pays its transaction's fees and, for each message it sends, the value and the forwarding fee the message carries.
  const fees = BigInt(wallet.total_fees ?? "0") + wallet.out_msgs.reduce((s, o) => s + BigInt(o.fwd_fee ?? "0"), 0n);
  if (m.kind === "TON") {
    // A top-up's fee includes what the receiving wallet's transaction burns on arrival (its storage fee, as it was not deployed).
    const arrived = wallet.out_msgs[0] ? await byInMessage(d.rpc, hexOf(wallet.out_msgs[0].hash)) : null;
    return { nativeBurned: fees + BigInt(arrived?.total_fees ?? "0") };
  }
  const account = wallet.account.toUpperCase();
  let spent = fees + wallet.out_msgs.reduce((s, o) => s + BigInt(o.value ?? "0"), 0n);
  const queue = [...wallet.out_msgs];
  for (let read = 0; queue.length > 0 && read < MAX_TRACE_TXS; ) {
    const msg = queue.shift()!;
    // The recipient's notification goes to the recipient's wallet: nothing of it comes back.
    if (!msg.destination || Number(msg.opcode) === OP_TRANSFER_NOTIFICATION) continue;
    read++;
    const t = await byInMessage(d.rpc, hexOf(msg.hash));
    if (!t) continue;
    if (t.account.toUpperCase() === account) spent -= BigInt(msg.value ?? "0") - BigInt(t.total_fees ?? "0");
    else queue.push(...t.out_msgs);
  }
  return { nativeBurned: spent };
}
