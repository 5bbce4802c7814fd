// Sending on Solana: token transfers (transferChecked from the source's ATA, the recipient's
// ATA created idempotently, fees and rent paid by a fee payer: the gas wallet), token-account
// creation, broadcasting, and what the chain says of a sent transaction (state and cost).
import { PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from "@solana/spl-token";
import { base58 } from "@scure/base";
import type { BroadcastResult, ChainHead, SignedTransfer, TxState } from "../types";
import { inclusion } from "../common/adapter-parts";
import { normalizeSolAddress } from "./address";
import { RpcError, sendErrorKind, type SignatureStatus } from "./rpc";
import { keypair, LAMPORTS_PER_SIGNATURE, type SolNode } from "./node";
import { SolTransferRefused, type SolCreateAccountsMeta, type SolTransferRequest, type SolTxMeta } from "./types";

/** A transaction, paid by `feePayerKey`, creating `ownerAddress`'s missing token accounts; null when they all exist. */
export async function signCreateTokenAccounts(node: SolNode, ownerAddress: string, feePayerKey: Uint8Array): Promise<SignedTransfer | null> {
  const { rpc, tokens } = node;
  const owner = normalizeSolAddress(ownerAddress);
  const payer = keypair(feePayerKey);
  const wanted = tokens.map((t) => ({ t, account: node.ataOf(owner, t) }));
  const found = await rpc.request<{ value: Array<unknown | null> }>("getMultipleAccounts", [wanted.map((w) => w.account), { encoding: "base64", commitment: "confirmed" }]);
  const missing = wanted.filter((_, i) => found.value[i] === null || found.value[i] === undefined);
  if (missing.length === 0) return null;
  const ixs = missing.map(({ t, account }) => createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, new PublicKey(account), new PublicKey(owner), t.mintKey, t.programId));
  const bh = await rpc.request<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }]);
  const tx = new Transaction({ feePayer: payer.publicKey, blockhash: bh.value.blockhash, lastValidBlockHeight: bh.value.lastValidBlockHeight }).add(...ixs);
  tx.sign(payer);
  const meta: SolCreateAccountsMeta = {
    feePayer: payer.publicKey.toBase58(),
    owner,
    accounts: missing.map((m) => m.account),
    blockhash: bh.value.blockhash,
    lastValidBlockHeight: bh.value.lastValidBlockHeight,
    rentLamports: (BigInt(missing.length) * (await node.tokenRent())).toString(),
    feeLamports: LAMPORTS_PER_SIGNATURE.toString(),
  };
  return { txHash: base58.encode(tx.signature!), raw: tx.serialize().toString("base64"), meta };
}

/** transferChecked from the source's ATA; the recipient's ATA created idempotently; the fee payer (else the owner) pays fees and rent. */
export async function signTransfer(node: SolNode, req: SolTransferRequest): Promise<SignedTransfer> {
  const { rpc } = node;
  const t = node.token(req.token);
  if (req.amount <= 0n) throw new SolTransferRefused(`SOL ${req.token} amount must be positive`);
  const owner = keypair(req.privateKey, req.from);
  const payer = req.feePayerKey ? keypair(req.feePayerKey) : owner;
  const to = normalizeSolAddress(req.to);
  const source = node.ataOf(owner.publicKey.toBase58(), t);

  // The recipient is normally a wallet (its ATA receives); a token account of this mint
  // given directly receives as is.
  const info = await rpc.request<{ value: { owner: string; data: unknown } | null }>("getAccountInfo", [to, { encoding: "jsonParsed", commitment: "confirmed" }]);
  const parsed = (info.value?.data as { parsed?: { type?: string; info?: { mint?: string } } } | undefined)?.parsed;
  const ixs: TransactionInstruction[] = [];
  let destination: string;
  let createsAccount = false;
  if (info.value && info.value.owner === t.programId.toBase58() && parsed?.type === "account") {
    if (parsed.info?.mint !== t.contract) throw new SolTransferRefused(`${to} is a token account of another mint (${parsed.info?.mint}), not ${req.token}`);
    destination = to;
  } else if (info.value && info.value.owner === t.programId.toBase58()) {
    throw new SolTransferRefused(`${to} is a ${parsed?.type ?? "token program"} account, not a wallet`);
  } else {
    destination = node.ataOf(to, t);
    const dest = await rpc.request<{ value: unknown | null }>("getAccountInfo", [destination, { encoding: "base64", commitment: "confirmed" }]);
    createsAccount = dest.value === null;
    // Idempotent: harmless if someone creates the account between now and landing.
    ixs.push(createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, new PublicKey(destination), new PublicKey(to), t.mintKey, t.programId));
  }
  ixs.push(createTransferCheckedInstruction(new PublicKey(source), t.mintKey, new PublicKey(destination), owner.publicKey, req.amount, t.decimals, [], t.programId));

  const bh = await rpc.request<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }]);
  const tx = new Transaction({ feePayer: payer.publicKey, blockhash: bh.value.blockhash, lastValidBlockHeight: bh.value.lastValidBlockHeight }).add(...ixs);
  if (payer.publicKey.equals(owner.publicKey)) tx.sign(owner);
  else tx.sign(payer, owner);
  const signatures = payer.publicKey.equals(owner.publicKey) ? 1n : 2n;
  const feePayerLamports = signatures * LAMPORTS_PER_SIGNATURE + (createsAccount ? await node.tokenRent() : 0n);
  const meta: SolTxMeta = {
    feePayer: payer.publicKey.toBase58(),
    from: owner.publicKey.toBase58(),
    to,
    sourceAccount: source,
    destinationAccount: destination,
    createsAccount,
    mint: t.contract,
    token: req.token,
    amount: req.amount.toString(),
    blockhash: bh.value.blockhash,
    lastValidBlockHeight: bh.value.lastValidBlockHeight,
    feePayerLamports: feePayerLamports.toString(),
  };
  return { txHash: base58.encode(tx.signature!), raw: tx.serialize().toString("base64"), meta };
}

/** Sends `tx`; a "blockhash not found" refusal is permanent only once the transaction can never land. */
export async function broadcast(node: SolNode, stateOf: (tx: SignedTransfer) => Promise<TxState>, tx: SignedTransfer): Promise<BroadcastResult> {
  const { rpc } = node;
  try {
    const sig = await rpc.request<string>("sendTransaction", [tx.raw, { encoding: "base64", skipPreflight: false, preflightCommitment: "confirmed", maxRetries: 0 }]);
    if (sig !== tx.txHash) return { ok: false, permanent: true, error: `node computed signature ${sig}, expected ${tx.txHash}` };
    return { ok: true };
  } catch (e) {
    if (!(e instanceof RpcError)) return { ok: false, permanent: false, error: (e as Error).message };
    const kind = sendErrorKind(e);
    if (kind === "already") return { ok: true };
    if (kind === "permanent") return { ok: false, permanent: true, error: e.message };
    if (kind === "transient") return { ok: false, permanent: false, error: e.message };
    // Blockhash unknown: final only once the transaction can never land.
    try {
      const st = await stateOf(tx);
      if (st.state === "included" || st.state === "pending") return { ok: true };
      if (st.state === "expired") return { ok: false, permanent: true, error: `${e.message} (blockhash expired; never re-signed)` };
    } catch (inner) {
      return { ok: false, permanent: false, error: `${e.message}; status lookup failed: ${(inner as Error).message}` };
    }
    return { ok: false, permanent: false, error: e.message };
  }
}

// What the fee payer (account 0: the gas wallet) spent, read from the chain: the fee plus the
// rent of every token account the transaction created (rent a gateway never gets back).
export async function txCost(node: SolNode, tx: SignedTransfer) {
  const t = await node.rpc.request<{ meta?: { fee?: number; preBalances?: number[]; postBalances?: number[] } } | null>("getTransaction", [
    tx.txHash,
    { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  if (!t?.meta) return null;
  const fee = BigInt(t.meta.fee ?? 0);
  const pre = t.meta.preBalances?.[0];
  const post = t.meta.postBalances?.[0];
  const spent = pre === undefined || post === undefined ? fee : BigInt(pre) - BigInt(post);
  return { nativeBurned: spent > fee ? spent : fee };
}

export async function txState(node: SolNode, head: () => Promise<ChainHead>, tx: SignedTransfer): Promise<TxState> {
  const lastValid = (tx.meta as Partial<SolTxMeta>).lastValidBlockHeight;
  // Height first, status second: a null status read after a final height past lastValid
  // means no block that could still hold the transaction exists.
  const height = typeof lastValid === "number" ? await node.rpc.request<number>("getBlockHeight", [{ commitment: "finalized" }]) : null;
  const r = await node.rpc.request<{ value: Array<SignatureStatus | null> }>("getSignatureStatuses", [[tx.txHash], { searchTransactionHistory: true }]);
  const s = r.value[0];
  if (!s) return height !== null && height > lastValid! ? { state: "expired" } : { state: "unknown" };
  if (s.confirmationStatus === "processed" || !s.confirmationStatus) return { state: "pending" };
  // Confirmed or finalized: finality from the head like every chain (the finalized slot is
  // head.final; the head is read after the status, so a slot the status saw is never ahead of it).
  const slot = BigInt(s.slot);
  return { state: "included", blockNumber: slot, success: s.err === null, ...inclusion(await head(), slot) };
}
