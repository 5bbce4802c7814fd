// A Solana JSON-RPC node for tests: LiteSVM runs the real SPL Token, ATA and Memo programs
// in-process; this server keeps the ledger around it (slots, blocks, block heights, blockhash
// expiry, signatures per address, token balances before/after each transaction) and answers the
// methods the gateway and @solana/web3.js's Connection use, on 127.0.0.1.
//
// Commitments: a transaction lands in the current (processed) slot; `confirmed` trails by
// `confirmedLag` slots and `finalized` by `finalizedLag`. Slots move only when the test says so
// (advance / skipSlots / startTicker), or by one per landed transaction (`slotPerTx`).
// Block times are the wall clock when the block was made (orders match on block time).
// Account reads show the current state whatever the commitment (LiteSVM keeps no history).
import { LiteSVM, TransactionMetadata } from "litesvm";
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  Transaction,
  VersionedTransaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import {
  AccountLayout,
  MintLayout,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { base58 } from "@scure/base";
import { createHash } from "node:crypto";

export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
export const USDT_MINT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";
/** The mints the node places at their mainnet addresses (6 decimals, one test mint authority). */
export const SOL_MINTS = { USDC: USDC_MINT, USDT: USDT_MINT } as const;
/** Mainnet's genesis hash: getGenesisHash answers it, so config stays mainnet-shaped. */
export const MAINNET_GENESIS_HASH = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";
const ALT_PROGRAM = "AddressLookupTab1e1111111111111111111111111";
const FEE_PER_SIGNATURE = 5000;

const TX_ERRORS_FIELDLESS = [
  "AccountInUse", "AccountLoadedTwice", "AccountNotFound", "ProgramAccountNotFound", "InsufficientFundsForFee",
  "InvalidAccountForFee", "AlreadyProcessed", "BlockhashNotFound", "CallChainTooDeep", "MissingSignatureForFee",
  "InvalidAccountIndex", "SignatureFailure", "InvalidProgramForExecution", "SanitizeFailure", "ClusterMaintenance",
  "AccountBorrowOutstanding", "WouldExceedMaxBlockCostLimit", "UnsupportedVersion", "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit", "WouldExceedAccountDataBlockLimit", "TooManyAccountLocks",
  "AddressLookupTableNotFound", "InvalidAddressLookupTableOwner", "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex", "InvalidRentPayingAccount", "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit", "MaxLoadedAccountsDataSizeExceeded", "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit", "UnbalancedTransaction", "ProgramCacheHitMaxLimit", "CommitCancelled",
];
const IX_ERRORS_FIELDLESS = [
  "GenericError", "InvalidArgument", "InvalidInstructionData", "InvalidAccountData", "AccountDataTooSmall",
  "InsufficientFunds", "IncorrectProgramId", "MissingRequiredSignature", "AccountAlreadyInitialized",
  "UninitializedAccount", "UnbalancedInstruction", "ModifiedProgramId", "ExternalAccountLamportSpend",
  "ExternalAccountDataModified", "ReadonlyLamportChange", "ReadonlyDataModified", "DuplicateAccountIndex",
  "ExecutableModified", "RentEpochModified", "NotEnoughAccountKeys", "AccountDataSizeChanged", "AccountNotExecutable",
  "AccountBorrowFailed", "AccountBorrowOutstanding", "DuplicateAccountOutOfSync", "InvalidError",
  "ExecutableDataModified", "ExecutableLamportChange", "ExecutableAccountNotRentExempt", "UnsupportedProgramId",
  "CallDepth", "MissingAccount", "ReentrancyNotAllowed", "MaxSeedLengthExceeded", "InvalidSeeds", "InvalidRealloc",
  "ComputationalBudgetExceeded", "PrivilegeEscalation", "ProgramEnvironmentSetupFailure", "ProgramFailedToComplete",
  "ProgramFailedToCompile", "Immutable", "IncorrectAuthority", "AccountNotRentExempt", "InvalidAccountOwner",
  "ArithmeticOverflow", "UnsupportedSysvar", "IllegalOwner", "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded", "MaxInstructionTraceLengthExceeded", "BuiltinProgramsMustConsumeComputeUnits", "BorshIoError",
];

/** LiteSVM's error objects → the JSON shape a real node answers (`"BlockhashNotFound"`, `{InstructionError:[0,{Custom:1}]}`). */
export function txErrorJson(e: unknown): unknown {
  if (typeof e === "number") return TX_ERRORS_FIELDLESS[e] ?? `Unknown(${e})`;
  const o = e as { index?: number; accountIndex?: number; err?: () => unknown };
  if (typeof o?.err === "function" && typeof o.index === "number") {
    const inner = o.err();
    if (typeof inner === "number") return { InstructionError: [o.index, IX_ERRORS_FIELDLESS[inner] ?? `Unknown(${inner})`] };
    const ic = inner as { code?: number; msg?: string };
    if (typeof ic.code === "number") return { InstructionError: [o.index, { Custom: ic.code }] };
    return { InstructionError: [o.index, { BorshIoError: ic.msg ?? "" }] };
  }
  if (typeof o?.index === "number") return { DuplicateInstruction: o.index };
  if (typeof o?.accountIndex === "number") return { InsufficientFundsForRent: { account_index: o.accountIndex } };
  return String(e);
}

export type Commitment = "processed" | "confirmed" | "finalized";

interface Block {
  slot: number;
  height: number;
  blockhash: string;
  parentSlot: number;
  time: number;
  signatures: string[];
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

interface AccountKey {
  pubkey: string;
  signer: boolean;
  writable: boolean;
  source: "transaction" | "lookupTable";
}

interface LandedTx {
  signature: string;
  slot: number;
  blockTime: number;
  raw: Uint8Array;
  version: "legacy" | 0;
  keys: AccountKey[];
  loaded: { writable: string[]; readonly: string[] };
  recentBlockhash: string;
  instructions: Array<{ programIdIndex: number; accounts: number[]; data: string }>;
  err: unknown;
  fee: number;
  logs: string[];
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  computeUnits: number;
}

export interface SolanaRpcFaults {
  /** Fraction of HTTP requests answered 429 (seeded dice). */
  rate429?: number;
  /** The next N HTTP requests answer 429. */
  next429?: number;
  /** Every request answers HTTP 503. */
  down?: boolean;
  /** The next N sendTransaction calls fail with a -32005 "node is behind" error (nothing lands). */
  failNextSends?: number;
  /** sendTransaction accepts but does not land the next N transactions (dropped on the way to the leader). */
  dropNextSends?: number;
  seed?: number;
}

export interface SolanaRpcNodeOptions {
  confirmedLag?: number;
  finalizedLag?: number;
  /** Blocks a blockhash stays valid for (lastValidBlockHeight = height + this). Default 150. */
  blockhashValidity?: number;
  /** Each landed transaction opens a new slot (like anvil's automine). Default true. */
  slotPerTx?: boolean;
}

export interface SolanaRpcNode {
  url: string;
  svm: LiteSVM;
  /** Mint authority of the USDC and USDT mints placed at their mainnet addresses. */
  mintAuthority: Keypair;
  /** A funded account that pays fees for test helpers. */
  faucet: Keypair;
  slot(c?: Commitment): number;
  blockHeight(c?: Commitment): number;
  /** Opens `n` new slots, each with a block. */
  advance(n?: number): void;
  /** Moves the slot without blocks (skipped slots: block height stays). */
  skipSlots(n: number): void;
  /** Advances until everything landed so far is finalized. */
  finalizeAll(): void;
  /** Background slot production (for child-process gateways). Returns a stop function. */
  startTicker(ms: number): () => void;
  airdrop(address: string, lamports: bigint): void;
  lamports(address: string): bigint;
  /** Token balance of `owner`'s ATA for `mint` (0 when the ATA does not exist). */
  tokenBalance(owner: string, mint?: string): bigint;
  /** Mints `amount` of `mint` (default USDC) to `owner`'s ATA (created when missing) in a landed transaction; returns its signature. */
  mint(owner: string, amount: bigint, mint?: string): string;
  /** Lands a transaction built by the test (signed already); returns the signature or throws with the error. */
  land(tx: Transaction | VersionedTransaction): string;
  /** A landed transaction's record, or null. */
  landed(signature: string): LandedTx | null;
  calls: Map<string, number>;
  totalCalls(): number;
  resetCounts(): void;
  setFaults(f: SolanaRpcFaults): void;
  stop(): Promise<void>;
}

class RpcFail extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const b64 = (u: Uint8Array) => Buffer.from(u).toString("base64");
const uiString = (amount: bigint, decimals: number) => {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, "0");
  const r = `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/0+$/, "").replace(/\.$/, "");
  return r;
};

export async function startSolanaRpc(opts: SolanaRpcNodeOptions = {}): Promise<SolanaRpcNode> {
  const confirmedLag = opts.confirmedLag ?? 1;
  const finalizedLag = opts.finalizedLag ?? 4;
  const validity = opts.blockhashValidity ?? 150;
  const slotPerTx = opts.slotPerTx ?? true;
  const svm = new LiteSVM().withBlockhashCheck(false);
  const mintAuthority = Keypair.generate();
  const faucet = Keypair.generate();
  if (!(svm.airdrop(faucet.publicKey, 100_000_000_000_000n) instanceof TransactionMetadata)) throw new Error("LiteSVM airdrop to the faucet failed");

  // USDC and USDT at their mainnet addresses, 6 decimals, with a test mint authority.
  for (const address of Object.values(SOL_MINTS)) {
    const data = Buffer.alloc(MintLayout.span);
    MintLayout.encode(
      { mintAuthorityOption: 1, mintAuthority: mintAuthority.publicKey, supply: 0n, decimals: 6, isInitialized: true, freezeAuthorityOption: 0, freezeAuthority: PublicKey.default },
      data,
    );
    svm.setAccount(new PublicKey(address), { lamports: Number(svm.minimumBalanceForRentExemption(BigInt(MintLayout.span))), data, owner: TOKEN_PROGRAM_ID, executable: false });
  }

  let lastTime = 0;
  const blocks = new Map<number, Block>();
  const hashes = new Map<string, number>(); // blockhash → slot
  const txs = new Map<string, LandedTx>();
  const byAddress = new Map<string, string[]>(); // oldest first
  let slot = 0;
  let height = 0;
  let lastBlockSlot = 0;

  function newBlock(s: number): Block {
    const blockhash = base58.encode(createHash("sha256").update(`block:${s}:${Math.random()}`).digest());
    const b: Block = { slot: s, height: height, blockhash, parentSlot: lastBlockSlot, time: Math.max(lastTime, Math.floor(Date.now() / 1000)), signatures: [] };
    lastTime = b.time;
    blocks.set(s, b);
    hashes.set(blockhash, s);
    lastBlockSlot = s;
    svm.warpToSlot(BigInt(s));
    return b;
  }
  newBlock(0);

  function advance(n = 1) {
    for (let i = 0; i < n; i++) {
      slot++;
      height++;
      newBlock(slot);
    }
  }

  const lagOf = (c: Commitment = "finalized") => (c === "processed" ? 0 : c === "confirmed" ? confirmedLag : finalizedLag);
  const slotAt = (c?: Commitment) => Math.max(0, slot - lagOf(c));
  /** The last block at or below the commitment's slot. */
  function blockAt(c?: Commitment): Block {
    for (let s = slotAt(c); s >= 0; s--) {
      const b = blocks.get(s);
      if (b) return b;
    }
    return blocks.get(0)!;
  }
  const commitmentOf = (cfg: unknown): Commitment => {
    const c = (cfg as { commitment?: string } | undefined)?.commitment;
    if (c === "processed" || c === "confirmed" || c === "finalized") return c;
    if (c === "recent" || c === "single" || c === "singleGossip") return "processed";
    return "finalized";
  };
  const minContext = (cfg: unknown, c: Commitment) => {
    const m = (cfg as { minContextSlot?: number } | undefined)?.minContextSlot;
    if (typeof m === "number" && slotAt(c) < m) {
      throw new RpcFail(-32016, "Minimum context slot has not been reached", { contextSlot: slotAt(c) });
    }
  };
  const visible = (t: LandedTx, c: Commitment) => t.slot <= slotAt(c);

  const tokenPrograms = new Set([TOKEN_PROGRAM_ID.toBase58(), TOKEN_2022_PROGRAM_ID.toBase58()]);
  function mintDecimals(mint: PublicKey): number {
    const a = svm.getAccount(mint);
    return a && a.data.length >= MintLayout.span ? MintLayout.decode(a.data.slice(0, MintLayout.span)).decimals : 0;
  }
  function tokenAccount(address: string) {
    const a = svm.getAccount(new PublicKey(address));
    if (!a || !tokenPrograms.has(a.owner.toBase58()) || a.data.length < AccountLayout.span) return null;
    const d = AccountLayout.decode(a.data.slice(0, AccountLayout.span));
    return { mint: d.mint.toBase58(), owner: d.owner.toBase58(), amount: d.amount, decimals: mintDecimals(d.mint), programId: a.owner.toBase58(), state: d.state, lamports: a.lamports };
  }
  function tokenBalances(keys: AccountKey[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((k, i) => {
      const t = tokenAccount(k.pubkey);
      if (!t) return;
      out.push({
        accountIndex: i,
        mint: t.mint,
        owner: t.owner,
        programId: t.programId,
        uiTokenAmount: { amount: t.amount.toString(), decimals: t.decimals, uiAmount: Number(uiString(t.amount, t.decimals)), uiAmountString: uiString(t.amount, t.decimals) },
      });
    });
    return out;
  }

  function decodeTx(raw: Uint8Array) {
    const vtx = VersionedTransaction.deserialize(raw);
    const msg = vtx.message;
    const statics = msg.staticAccountKeys.map((k) => k.toBase58());
    const loaded = { writable: [] as string[], readonly: [] as string[] };
    for (const l of msg.addressTableLookups) {
      const acc = svm.getAccount(l.accountKey);
      if (!acc || acc.owner.toBase58() !== ALT_PROGRAM) throw new RpcFail(-32002, "Transaction simulation failed: AddressLookupTableNotFound", { err: "AddressLookupTableNotFound" });
      const table = new AddressLookupTableAccount({ key: l.accountKey, state: AddressLookupTableAccount.deserialize(acc.data) });
      for (const i of l.writableIndexes) loaded.writable.push(table.state.addresses[i].toBase58());
      for (const i of l.readonlyIndexes) loaded.readonly.push(table.state.addresses[i].toBase58());
    }
    const h = msg.header;
    const keys: AccountKey[] = statics.map((pubkey, i) => {
      const signer = i < h.numRequiredSignatures;
      const writable = signer ? i < h.numRequiredSignatures - h.numReadonlySignedAccounts : i < statics.length - h.numReadonlyUnsignedAccounts;
      return { pubkey, signer, writable, source: "transaction" as const };
    });
    for (const w of loaded.writable) keys.push({ pubkey: w, signer: false, writable: true, source: "lookupTable" });
    for (const r of loaded.readonly) keys.push({ pubkey: r, signer: false, writable: false, source: "lookupTable" });
    const instructions = msg.compiledInstructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: [...ix.accountKeyIndexes], data: base58.encode(ix.data) }));
    return { vtx, keys, loaded, instructions, signature: base58.encode(vtx.signatures[0]), version: msg.version as "legacy" | 0, recentBlockhash: msg.recentBlockhash };
  }

  function blockhashValid(bh: string): boolean {
    const s = hashes.get(bh);
    if (s === undefined) return false;
    return height <= blocks.get(s)!.height + validity;
  }

  /** Executes and records a transaction; throws RpcFail when it cannot land (preflight or fee-level failure). */
  function execute(raw: Uint8Array, preflight: boolean): string {
    const d = decodeTx(raw);
    if (txs.has(d.signature)) {
      if (preflight) throw new RpcFail(-32002, "Transaction simulation failed: This transaction has already been processed", { err: "AlreadyProcessed", logs: [] });
      return d.signature;
    }
    if (!blockhashValid(d.recentBlockhash)) {
      if (preflight) throw new RpcFail(-32002, "Transaction simulation failed: Blockhash not found", { err: "BlockhashNotFound", logs: [] });
      return d.signature; // accepted by the RPC, never lands
    }
    if (preflight) {
      const sim = svm.simulateTransaction(d.vtx);
      if ("err" in sim && typeof (sim as { err?: unknown }).err === "function") {
        const f = sim as unknown as { err(): unknown; meta(): { logs(): string[] } };
        const err = txErrorJson(f.err());
        throw new RpcFail(-32002, `Transaction simulation failed: ${typeof err === "string" ? err : "Error processing Instruction " + JSON.stringify(err)}`, { err, logs: f.meta().logs() });
      }
    }
    const preBalances = d.keys.map((k) => Number(svm.getBalance(new PublicKey(k.pubkey)) ?? 0n));
    const preTokenBalances = tokenBalances(d.keys);
    const res = svm.sendTransaction(d.vtx) as unknown as { err?: () => unknown; meta?: () => { logs(): string[]; computeUnitsConsumed(): bigint }; logs?: () => string[]; computeUnitsConsumed?: () => bigint };
    let err: unknown = null;
    let logs: string[] = [];
    let cu = 0;
    if (typeof res.err === "function") {
      err = txErrorJson(res.err());
      const m = res.meta!();
      logs = m.logs();
      cu = Number(m.computeUnitsConsumed());
      // Fee-level failures never reach a block.
      if (typeof err === "string") {
        if (preflight) throw new RpcFail(-32002, `Transaction simulation failed: ${String(err)}`, { err, logs });
        return d.signature;
      }
    } else {
      logs = res.logs!();
      cu = Number(res.computeUnitsConsumed!());
    }
    if (slotPerTx) advance(1);
    const block = blocks.get(slot) ?? newBlock(slot);
    const t: LandedTx = {
      signature: d.signature,
      slot,
      blockTime: block.time,
      raw,
      version: d.version,
      keys: d.keys,
      loaded: d.loaded,
      recentBlockhash: d.recentBlockhash,
      instructions: d.instructions,
      err,
      fee: FEE_PER_SIGNATURE * d.vtx.signatures.length,
      logs,
      preBalances,
      postBalances: d.keys.map((k) => Number(svm.getBalance(new PublicKey(k.pubkey)) ?? 0n)),
      preTokenBalances,
      postTokenBalances: tokenBalances(d.keys),
      computeUnits: cu,
    };
    txs.set(t.signature, t);
    block.signatures.push(t.signature);
    for (const k of d.keys) {
      const list = byAddress.get(k.pubkey) ?? [];
      list.push(t.signature);
      byAddress.set(k.pubkey, list);
    }
    return t.signature;
  }

  function serialize(tx: Transaction | VersionedTransaction): Uint8Array {
    return tx instanceof VersionedTransaction ? tx.serialize() : tx.serialize();
  }

  function land(tx: Transaction | VersionedTransaction): string {
    return execute(serialize(tx), true);
  }

  function helperTx(ixs: TransactionInstruction[], signers: Keypair[]): string {
    const tx = new Transaction();
    tx.add(...ixs);
    tx.feePayer = faucet.publicKey;
    tx.recentBlockhash = blockAt("confirmed").blockhash;
    tx.sign(faucet, ...signers);
    return land(tx);
  }

  // ---- JSON-RPC ----

  const ctx = (c: Commitment) => ({ apiVersion: "2.1.21", slot: slotAt(c) });

  function accountJson(address: string, cfg: { encoding?: string } | undefined) {
    const a = svm.getAccount(new PublicKey(address));
    if (!a) return null;
    const base = { lamports: a.lamports, owner: a.owner.toBase58(), executable: a.executable, rentEpoch: 18446744073709551615, space: a.data.length };
    if (cfg?.encoding === "jsonParsed" && tokenPrograms.has(base.owner)) {
      const program = base.owner === TOKEN_PROGRAM_ID.toBase58() ? "spl-token" : "spl-token-2022";
      if (a.data.length === MintLayout.span || (program === "spl-token-2022" && a.data.length > AccountLayout.span && a.data[AccountLayout.span] === 1)) {
        const m = MintLayout.decode(a.data.slice(0, MintLayout.span));
        return {
          ...base,
          data: {
            program,
            space: a.data.length,
            parsed: {
              type: "mint",
              info: { decimals: m.decimals, freezeAuthority: m.freezeAuthorityOption ? m.freezeAuthority.toBase58() : null, isInitialized: m.isInitialized, mintAuthority: m.mintAuthorityOption ? m.mintAuthority.toBase58() : null, supply: m.supply.toString() },
            },
          },
        };
      }
      const t = tokenAccount(address);
      if (t) {
        return {
          ...base,
          data: {
            program,
            space: a.data.length,
            parsed: {
              type: "account",
              info: { isNative: false, mint: t.mint, owner: t.owner, state: t.state === 2 ? "frozen" : "initialized", tokenAmount: { amount: t.amount.toString(), decimals: t.decimals, uiAmount: Number(uiString(t.amount, t.decimals)), uiAmountString: uiString(t.amount, t.decimals) } },
            },
          },
        };
      }
    }
    if (cfg?.encoding === "base58") return { ...base, data: [base58.encode(a.data), "base58"] };
    return { ...base, data: [b64(a.data), "base64"] };
  }

  function txJson(t: LandedTx, encoding: string) {
    const meta: Record<string, unknown> = {
      err: t.err,
      status: t.err === null ? { Ok: null } : { Err: t.err },
      fee: t.fee,
      preBalances: t.preBalances,
      postBalances: t.postBalances,
      innerInstructions: [],
      logMessages: t.logs,
      preTokenBalances: t.preTokenBalances,
      postTokenBalances: t.postTokenBalances,
      rewards: [],
      computeUnitsConsumed: t.computeUnits,
    };
    let transaction: unknown;
    if (encoding === "jsonParsed") {
      // Parsed encoding lists the loaded addresses in accountKeys (source "lookupTable") and omits meta.loadedAddresses.
      const ixs = t.instructions.map((ix) => ({ programId: t.keys[ix.programIdIndex].pubkey, accounts: ix.accounts.map((i) => t.keys[i].pubkey), data: ix.data, stackHeight: null }));
      const vtx = VersionedTransaction.deserialize(t.raw);
      transaction = {
        signatures: vtx.signatures.map((s) => base58.encode(s)),
        message: {
          accountKeys: t.keys,
          recentBlockhash: t.recentBlockhash,
          instructions: ixs,
          ...(t.version === 0 ? { addressTableLookups: vtx.message.addressTableLookups.map((l) => ({ accountKey: l.accountKey.toBase58(), writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) } : {}),
        },
      };
    } else {
      meta.loadedAddresses = t.loaded;
      if (encoding === "base64") transaction = [b64(t.raw), "base64"];
      else {
        const vtx = VersionedTransaction.deserialize(t.raw);
        const h = vtx.message.header;
        transaction = {
          signatures: vtx.signatures.map((s) => base58.encode(s)),
          message: {
            header: h,
            accountKeys: vtx.message.staticAccountKeys.map((k) => k.toBase58()),
            recentBlockhash: t.recentBlockhash,
            instructions: t.instructions.map((ix) => ({ ...ix, stackHeight: null })),
            ...(t.version === 0 ? { addressTableLookups: vtx.message.addressTableLookups.map((l) => ({ accountKey: l.accountKey.toBase58(), writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) } : {}),
          },
        };
      }
    }
    return { slot: t.slot, blockTime: t.blockTime, version: t.version, transaction, meta };
  }

  let faults: SolanaRpcFaults = {};
  let rand = seeded(1);
  const calls = new Map<string, number>();

  function call(method: string, params: unknown[]): unknown {
    const p = params ?? [];
    switch (method) {
      case "getHealth":
        return "ok";
      case "getVersion":
        return { "solana-core": "2.1.21", "feature-set": 1416569292 };
      case "getGenesisHash":
        return MAINNET_GENESIS_HASH;
      case "getSlot": {
        const c = commitmentOf(p[0]);
        minContext(p[0], c);
        return slotAt(c);
      }
      case "getBlockHeight": {
        const c = commitmentOf(p[0]);
        minContext(p[0], c);
        return blockAt(c).height;
      }
      case "getEpochInfo": {
        const c = commitmentOf(p[0]);
        return { absoluteSlot: slotAt(c), blockHeight: blockAt(c).height, epoch: Math.floor(slotAt(c) / 432000), slotIndex: slotAt(c) % 432000, slotsInEpoch: 432000, transactionCount: txs.size };
      }
      case "getLatestBlockhash": {
        const c = commitmentOf(p[0]);
        minContext(p[0], c);
        const b = blockAt(c);
        return { context: ctx(c), value: { blockhash: b.blockhash, lastValidBlockHeight: b.height + validity } };
      }
      case "isBlockhashValid": {
        const c = commitmentOf(p[1]);
        return { context: ctx(c), value: blockhashValid(String(p[0])) };
      }
      case "getBlockTime": {
        const b = blocks.get(Number(p[0]));
        if (!b || b.slot > slotAt("confirmed")) throw new RpcFail(-32004, `Block not available for slot ${p[0]}`);
        return b.time;
      }
      case "getBlocks": {
        const start = Number(p[0]);
        const cfgAt = typeof p[1] === "object" ? 1 : 2;
        const c = commitmentOf(p[cfgAt]);
        if (c === "processed") throw new RpcFail(-32602, "Method does not support commitment below `confirmed`");
        const end = Math.min(cfgAt === 2 && p[1] !== undefined ? Number(p[1]) : start + 500_000, slotAt(c));
        if (end - start > 500_000) throw new RpcFail(-32602, "Slot range too large; max 500000");
        const out: number[] = [];
        for (let x = start; x <= end; x++) if (blocks.has(x)) out.push(x);
        return out;
      }
      case "getBlock": {
        const s = Number(p[0]);
        const c = commitmentOf(p[1]);
        if (s > slotAt(c)) throw new RpcFail(-32004, `Block not available for slot ${s}`);
        const b = blocks.get(s);
        if (!b) throw new RpcFail(-32007, `Slot ${s} was skipped, or missing due to ledger jump to recent snapshot`);
        const head = { blockhash: b.blockhash, previousBlockhash: blocks.get(b.parentSlot)?.blockhash ?? b.blockhash, parentSlot: b.parentSlot, blockHeight: b.height, blockTime: b.time };
        const cfg = (p[1] ?? {}) as { encoding?: string; transactionDetails?: string; rewards?: boolean; maxSupportedTransactionVersion?: number };
        const details = cfg.transactionDetails ?? "full";
        const rewards = cfg.rewards === false ? {} : { rewards: [] };
        if (details === "none") return { ...head, ...rewards };
        if (details === "signatures") return { ...head, ...rewards, signatures: b.signatures };
        if (details !== "full" && details !== "accounts") throw new RpcFail(-32602, `Invalid params: unknown variant \`${details}\``);
        const landed = b.signatures.map((sig) => txs.get(sig)!);
        if (cfg.maxSupportedTransactionVersion === undefined && landed.some((t) => t.version === 0)) {
          throw new RpcFail(-32015, "Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: \"maxSupportedTransactionVersion\": 0");
        }
        const transactions = landed.map((t) => {
          const { transaction, meta, version } = txJson(t, cfg.encoding ?? "json");
          if (details === "full") return { transaction, meta, version };
          // "accounts": signatures and account keys only, plus balance metadata.
          const keys = t.keys.map((k) => ({ pubkey: k.pubkey, signer: k.signer, writable: k.writable, source: k.source ?? "transaction" }));
          return { transaction: { signatures: [t.signature], accountKeys: keys }, meta: { err: meta.err, status: meta.status, fee: meta.fee, preBalances: meta.preBalances, postBalances: meta.postBalances, preTokenBalances: meta.preTokenBalances, postTokenBalances: meta.postTokenBalances }, version };
        });
        return { ...head, ...rewards, transactions };
      }
      case "getMinimumBalanceForRentExemption":
        return Number(svm.minimumBalanceForRentExemption(BigInt(Number(p[0] ?? 0))));
      case "getFeeForMessage": {
        const c = commitmentOf(p[1]);
        const bytes = Buffer.from(String(p[0]), "base64");
        const n = bytes[0] & 0x80 ? bytes[1] : bytes[0]; // versioned messages start with a prefix byte
        return { context: ctx(c), value: n * FEE_PER_SIGNATURE };
      }
      case "getBalance": {
        const c = commitmentOf(p[1]);
        minContext(p[1], c);
        return { context: ctx(c), value: Number(svm.getBalance(new PublicKey(String(p[0]))) ?? 0n) };
      }
      case "getAccountInfo": {
        const c = commitmentOf(p[1]);
        minContext(p[1], c);
        return { context: ctx(c), value: accountJson(String(p[0]), p[1] as { encoding?: string }) };
      }
      case "getMultipleAccounts": {
        const c = commitmentOf(p[1]);
        return { context: ctx(c), value: (p[0] as string[]).map((a) => accountJson(a, p[1] as { encoding?: string })) };
      }
      case "getTokenAccountBalance": {
        const c = commitmentOf(p[1]);
        minContext(p[1], c);
        const t = tokenAccount(String(p[0]));
        if (!t) throw new RpcFail(-32602, "Invalid param: could not find account");
        return { context: ctx(c), value: { amount: t.amount.toString(), decimals: t.decimals, uiAmount: Number(uiString(t.amount, t.decimals)), uiAmountString: uiString(t.amount, t.decimals) } };
      }
      case "getSignaturesForAddress": {
        const cfg = (p[1] ?? {}) as { before?: string; until?: string; limit?: number; commitment?: string };
        const c = commitmentOf(cfg);
        if (c === "processed") throw new RpcFail(-32602, "Method does not support commitment below `confirmed`");
        minContext(cfg, c);
        const limit = cfg.limit ?? 1000;
        if (limit < 1 || limit > 1000) throw new RpcFail(-32602, "Invalid limit; max 1000");
        const list = (byAddress.get(String(p[0])) ?? []).filter((s) => visible(txs.get(s)!, c));
        const out: unknown[] = [];
        let i = list.length - 1;
        if (cfg.before) {
          const at = list.indexOf(cfg.before);
          if (at < 0) return [];
          i = at - 1;
        }
        for (; i >= 0 && out.length < limit; i--) {
          if (cfg.until && list[i] === cfg.until) break;
          const t = txs.get(list[i])!;
          out.push({ signature: t.signature, slot: t.slot, err: t.err, memo: null, blockTime: t.blockTime, confirmationStatus: t.slot <= slotAt("finalized") ? "finalized" : "confirmed" });
        }
        return out;
      }
      case "getTransaction": {
        const cfg = (p[1] ?? {}) as { encoding?: string; maxSupportedTransactionVersion?: number; commitment?: string };
        const c = commitmentOf(cfg);
        if (c === "processed") throw new RpcFail(-32602, "Method does not support commitment below `confirmed`");
        const t = txs.get(String(p[0]));
        if (!t || !visible(t, c)) return null;
        if (t.version === 0 && cfg.maxSupportedTransactionVersion === undefined) {
          throw new RpcFail(-32015, "Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: \"maxSupportedTransactionVersion\": 0");
        }
        return txJson(t, cfg.encoding ?? "json");
      }
      case "getSignatureStatuses": {
        const sigs = (p[0] as string[]) ?? [];
        if (sigs.length > 256) throw new RpcFail(-32602, "Too many inputs provided; max 256");
        return {
          context: ctx("processed"),
          value: sigs.map((s) => {
            const t = txs.get(s);
            if (!t) return null;
            const fin = t.slot <= slotAt("finalized");
            const conf = t.slot <= slotAt("confirmed");
            return { slot: t.slot, confirmations: fin ? null : slot - t.slot, err: t.err, status: t.err === null ? { Ok: null } : { Err: t.err }, confirmationStatus: fin ? "finalized" : conf ? "confirmed" : "processed" };
          }),
        };
      }
      case "sendTransaction": {
        const cfg = (p[1] ?? {}) as { encoding?: string; skipPreflight?: boolean };
        if (faults.failNextSends && faults.failNextSends > 0) {
          faults.failNextSends--;
          throw new RpcFail(-32005, "Node is behind by 42 slots", { numSlotsBehind: 42 });
        }
        let raw: Uint8Array;
        try {
          raw = cfg.encoding === "base64" ? Buffer.from(String(p[0]), "base64") : base58.decode(String(p[0]));
          VersionedTransaction.deserialize(raw);
        } catch {
          throw new RpcFail(-32602, "invalid transaction: failed to deserialize");
        }
        if (faults.dropNextSends && faults.dropNextSends > 0) {
          faults.dropNextSends--;
          return base58.encode(VersionedTransaction.deserialize(raw).signatures[0]);
        }
        // Signatures are checked before anything else, as the node's sanitize step does.
        const vtx = VersionedTransaction.deserialize(raw);
        const sim = svm.simulateTransaction(vtx) as unknown as { err?: () => unknown };
        if (typeof sim.err === "function" && sim.err() === 11) throw new RpcFail(-32003, "Transaction signature verification failure");
        return execute(raw, !cfg.skipPreflight);
      }
      case "requestAirdrop": {
        svm.airdrop(new PublicKey(String(p[0])), BigInt(Number(p[1])));
        return base58.encode(createHash("sha256").update(`airdrop:${Math.random()}`).digest().subarray(0, 32));
      }
      default:
        throw new RpcFail(-32601, "Method not found");
    }
  }

  const answer = (c: { id?: unknown; method?: string; params?: unknown[] }) => {
    try {
      return { jsonrpc: "2.0", id: c.id ?? null, result: call(String(c.method), c.params ?? []) };
    } catch (e) {
      if (e instanceof RpcFail) return { jsonrpc: "2.0", id: c.id ?? null, error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
      return { jsonrpc: "2.0", id: c.id ?? null, error: { code: -32603, message: `Internal error: ${(e as Error).message}` } };
    }
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      let body: unknown;
      try {
        body = await req.json();
      } catch {
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      }
      const batch = Array.isArray(body);
      const list = (batch ? body : [body]) as Array<{ id?: unknown; method?: string; params?: unknown[] }>;
      for (const c of list) calls.set(String(c?.method), (calls.get(String(c?.method)) ?? 0) + 1);
      if (faults.down) return new Response("service unavailable", { status: 503 });
      if (faults.next429 && faults.next429 > 0) {
        faults.next429--;
        return new Response('{"jsonrpc":"2.0","error":{"code":429,"message":"Too many requests for a specific RPC call"}}', { status: 429, headers: { "content-type": "application/json" } });
      }
      if (faults.rate429 && rand() < faults.rate429) {
        return new Response('{"jsonrpc":"2.0","error":{"code":429,"message":"Too many requests for a specific RPC call"}}', { status: 429, headers: { "content-type": "application/json" } });
      }
      const answers = list.map(answer);
      return Response.json(batch ? answers : answers[0]);
    },
  });

  const tickers = new Set<ReturnType<typeof setInterval>>();
  return {
    url: `http://127.0.0.1:${server.port}`,
    svm,
    mintAuthority,
    faucet,
    slot: (c: Commitment = "processed") => slotAt(c),
    blockHeight: (c: Commitment = "processed") => blockAt(c).height,
    advance,
    skipSlots(n) {
      slot += n;
      svm.warpToSlot(BigInt(slot));
    },
    finalizeAll() {
      advance(finalizedLag);
    },
    startTicker(ms) {
      const t = setInterval(() => advance(1), ms);
      tickers.add(t);
      return () => {
        clearInterval(t);
        tickers.delete(t);
      };
    },
    airdrop(address, lamports) {
      if (!(svm.airdrop(new PublicKey(address), lamports) instanceof TransactionMetadata)) throw new Error(`airdrop to ${address} failed`);
    },
    lamports: (address) => svm.getBalance(new PublicKey(address)) ?? 0n,
    tokenBalance(owner, mint = USDC_MINT) {
      const ata = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true);
      return tokenAccount(ata.toBase58())?.amount ?? 0n;
    },
    mint(owner, amount, mintAddress = USDC_MINT) {
      const mint = new PublicKey(mintAddress);
      const o = new PublicKey(owner);
      const ata = getAssociatedTokenAddressSync(mint, o, true);
      return helperTx(
        [
          createAssociatedTokenAccountIdempotentInstruction(faucet.publicKey, ata, o, mint),
          createMintToCheckedInstruction(mint, ata, mintAuthority.publicKey, amount, 6),
        ],
        [mintAuthority],
      );
    },
    land,
    landed: (s) => txs.get(s) ?? null,
    calls,
    totalCalls: () => [...calls.values()].reduce((a, b) => a + b, 0),
    resetCounts: () => calls.clear(),
    setFaults(f) {
      faults = { ...f };
      rand = seeded(f.seed ?? 1);
    },
    async stop() {
      for (const t of tickers) clearInterval(t);
      await server.stop(true);
    },
  };
}
