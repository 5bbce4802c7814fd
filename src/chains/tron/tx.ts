// TRON transactions built and signed locally, without tronweb (its 350 ms load and its
// network calls stay out of the gateway): the protobuf of `Transaction.raw` for the two
// contract types the gateway sends (TriggerSmartContract for TRC20 transfers,
// TransferContract for TRX top-ups), txID = sha256(raw bytes), signature = 65 bytes
// r‖s‖v over the txID. The JSON shape is what /wallet/broadcasttransaction takes and
// what tronweb builds; tx.test.ts checks both against tronweb's own encoder.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js";
import { tronFromHex, tronToHex20 } from "./address";

/** keccak256("transfer(address,uint256)")[0..4]. */
export const TRANSFER_SELECTOR = "a9059cbb";
/** ERC-20/TRC20 Transfer(address,address,uint256) topic, without 0x as TRON logs show it. */
export const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** 21-byte hex ("41" + 20 bytes), the form the HTTP API uses with visible=false. */
export const toHex41 = (addr: string) => "41" + tronToHex20(addr).slice(2);

const u256 = (v: bigint) => {
  if (v < 0n || v >= 1n << 256n) throw new RangeError("uint256 out of range");
  return v.toString(16).padStart(64, "0");
};
/** ABI word of an address: 12 zero bytes + the 20-byte form. */
export const addressWord = (addr: string) => tronToHex20(addr).slice(2).padStart(64, "0");

export const transferData = (to: string, amount: bigint) => TRANSFER_SELECTOR + addressWord(to) + u256(amount);

// --- minimal protobuf writer (only what Transaction.raw needs) ---
function varint(v: bigint): Uint8Array {
  if (v < 0n) throw new RangeError("negative varint");
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return new Uint8Array(out);
}
const key = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
const lenField = (field: number, bytes: Uint8Array) => (bytes.length === 0 ? new Uint8Array() : concatBytes(key(field, 2), varint(BigInt(bytes.length)), bytes));
const intField = (field: number, v: bigint) => (v === 0n ? new Uint8Array() : concatBytes(key(field, 0), varint(v)));
const utf8 = (s: string) => new TextEncoder().encode(s);

export type TronContractJson =
  | {
      type: "TriggerSmartContract";
      parameter: {
        value: { data: string; owner_address: string; contract_address: string };
        type_url: "type.googleapis.com/protocol.TriggerSmartContract";
      };
    }
  | {
      type: "TransferContract";
      parameter: {
        value: { amount: number; owner_address: string; to_address: string };
        type_url: "type.googleapis.com/protocol.TransferContract";
      };
    }
  | StakeContractJson;

/** Stake 2.0 contracts (ENERGY only): field numbers of java-tron's balance_contract.proto. */
export type StakeContractJson =
  | { type: "FreezeBalanceV2Contract"; parameter: { value: { owner_address: string; frozen_balance: number; resource: "ENERGY" }; type_url: "type.googleapis.com/protocol.FreezeBalanceV2Contract" } }
  | { type: "UnfreezeBalanceV2Contract"; parameter: { value: { owner_address: string; unfreeze_balance: number; resource: "ENERGY" }; type_url: "type.googleapis.com/protocol.UnfreezeBalanceV2Contract" } }
  | { type: "DelegateResourceContract"; parameter: { value: { owner_address: string; resource: "ENERGY"; balance: number; receiver_address: string }; type_url: "type.googleapis.com/protocol.DelegateResourceContract" } }
  | { type: "UnDelegateResourceContract"; parameter: { value: { owner_address: string; resource: "ENERGY"; balance: number; receiver_address: string }; type_url: "type.googleapis.com/protocol.UnDelegateResourceContract" } };

export type StakeKind = "freeze" | "unfreeze" | "delegate" | "undelegate";
const STAKE_TYPES = {
  freeze: ["FreezeBalanceV2Contract", 54n],
  unfreeze: ["UnfreezeBalanceV2Contract", 55n],
  delegate: ["DelegateResourceContract", 57n],
  undelegate: ["UnDelegateResourceContract", 58n],
} as const;
/** ResourceCode.ENERGY. */
const ENERGY_CODE = 1n;

export interface TronRawData {
  contract: TronContractJson[];
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  fee_limit?: number;
  timestamp: number;
}

export interface TronSignedTx {
  visible: false;
  txID: string;
  raw_data: TronRawData;
  raw_data_hex: string;
  signature: string[];
}

function contractBytes(c: TronContractJson): Uint8Array {
  let value: Uint8Array;
  let typeNo: bigint;
  if (c.type === "FreezeBalanceV2Contract" || c.type === "UnfreezeBalanceV2Contract") {
    const v = c.parameter.value;
    typeNo = c.type === "FreezeBalanceV2Contract" ? 54n : 55n;
    const amount = "frozen_balance" in v ? v.frozen_balance : v.unfreeze_balance;
    value = concatBytes(lenField(1, hexToBytes(v.owner_address)), intField(2, BigInt(amount)), intField(3, ENERGY_CODE));
  } else if (c.type === "DelegateResourceContract" || c.type === "UnDelegateResourceContract") {
    const v = c.parameter.value;
    typeNo = c.type === "DelegateResourceContract" ? 57n : 58n;
    value = concatBytes(lenField(1, hexToBytes(v.owner_address)), intField(2, ENERGY_CODE), intField(3, BigInt(v.balance)), lenField(4, hexToBytes(v.receiver_address)));
  } else if (c.type === "TriggerSmartContract") {
    const v = c.parameter.value;
    typeNo = 31n;
    value = concatBytes(lenField(1, hexToBytes(v.owner_address)), lenField(2, hexToBytes(v.contract_address)), lenField(4, hexToBytes(v.data)));
  } else {
    const v = c.parameter.value;
    typeNo = 1n;
    value = concatBytes(lenField(1, hexToBytes(v.owner_address)), lenField(2, hexToBytes(v.to_address)), intField(3, BigInt(v.amount)));
  }
  const any = concatBytes(lenField(1, utf8(c.parameter.type_url)), lenField(2, value));
  return concatBytes(intField(1, typeNo), lenField(2, any));
}

/** Protobuf bytes of Transaction.raw, fields in number order as protobuf writers emit them. */
export function rawDataBytes(raw: TronRawData): Uint8Array {
  return concatBytes(
    lenField(1, hexToBytes(raw.ref_block_bytes)),
    lenField(4, hexToBytes(raw.ref_block_hash)),
    intField(8, BigInt(raw.expiration)),
    ...raw.contract.map((c) => lenField(11, contractBytes(c))),
    intField(14, BigInt(raw.timestamp)),
    intField(18, BigInt(raw.fee_limit ?? 0)),
  );
}

export const txIdOf = (raw: TronRawData) => bytesToHex(sha256(rawDataBytes(raw)));

/** TAPOS reference to a block: low 2 bytes of its number, bytes 8..16 of its id. */
export interface RefBlock {
  number: number;
  blockID: string;
}
export function refFields(ref: RefBlock) {
  return {
    ref_block_bytes: ref.number.toString(16).padStart(4, "0").slice(-4),
    ref_block_hash: ref.blockID.slice(16, 32),
  };
}

export function triggerRaw(o: { owner: string; contract: string; data: string; feeLimit: number; ref: RefBlock; expiration: number; timestamp: number }): TronRawData {
  return {
    contract: [
      {
        parameter: {
          value: { data: o.data, owner_address: toHex41(o.owner), contract_address: toHex41(o.contract) },
          type_url: "type.googleapis.com/protocol.TriggerSmartContract",
        },
        type: "TriggerSmartContract",
      },
    ],
    ...refFields(o.ref),
    expiration: o.expiration,
    fee_limit: o.feeLimit,
    timestamp: o.timestamp,
  };
}

export function transferTrxRaw(o: { owner: string; to: string; amount: bigint; ref: RefBlock; expiration: number; timestamp: number }): TronRawData {
  if (o.amount <= 0n || o.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("TRX amount out of range");
  return {
    contract: [
      {
        parameter: {
          value: { amount: Number(o.amount), owner_address: toHex41(o.owner), to_address: toHex41(o.to) },
          type_url: "type.googleapis.com/protocol.TransferContract",
        },
        type: "TransferContract",
      },
    ],
    ...refFields(o.ref),
    expiration: o.expiration,
    timestamp: o.timestamp,
  };
}

/** A Stake 2.0 transaction for ENERGY: stake (freeze), unstake (unfreeze), delegate or undelegate `amount` sun. */
export function stakeRaw(o: { kind: StakeKind; owner: string; amount: bigint; receiver?: string; ref: RefBlock; expiration: number; timestamp: number }): TronRawData {
  if (o.amount <= 0n || o.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("TRX amount out of range");
  const [type] = STAKE_TYPES[o.kind];
  const owner_address = toHex41(o.owner);
  const amount = Number(o.amount);
  let value: Record<string, unknown>;
  if (o.kind === "freeze") value = { owner_address, frozen_balance: amount, resource: "ENERGY" };
  else if (o.kind === "unfreeze") value = { owner_address, unfreeze_balance: amount, resource: "ENERGY" };
  else {
    if (!o.receiver) throw new Error(`${o.kind} needs a receiver`);
    value = { owner_address, resource: "ENERGY", balance: amount, receiver_address: toHex41(o.receiver) };
  }
  const contract = { parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type } as StakeContractJson;
  return { contract: [contract], ...refFields(o.ref), expiration: o.expiration, timestamp: o.timestamp };
}

/** Signs the txID with `privateKey` (recoverable, low-s, v = 27 + recovery as tronweb writes it). */
export function signRaw(raw: TronRawData, privateKey: Uint8Array): TronSignedTx {
  const bytes = rawDataBytes(raw);
  const id = sha256(bytes);
  const sig = secp256k1.sign(id, privateKey, { prehash: false, format: "recovered" });
  // noble's recovered format is recovery ‖ r ‖ s; TRON wants r ‖ s ‖ (27 + recovery).
  const rs = sig.subarray(1);
  const v = new Uint8Array([27 + sig[0]]);
  return { visible: false, txID: bytesToHex(id), raw_data: raw, raw_data_hex: bytesToHex(bytes), signature: [bytesToHex(concatBytes(rs, v))] };
}

/** The TRON address whose key made `signature` over `txID` (hex). */
export function recoverSigner(txID: string, signature: string): string {
  const sig = hexToBytes(signature.replace(/^0x/, ""));
  if (sig.length !== 65) throw new Error("signature must be 65 bytes");
  const rec = sig[64] >= 27 ? sig[64] - 27 : sig[64];
  const compact = concatBytes(new Uint8Array([rec]), sig.subarray(0, 64));
  const pub = secp256k1.recoverPublicKey(compact, hexToBytes(txID), { prehash: false });
  const point = secp256k1.Point.fromBytes(pub).toBytes(false);
  return addressOfPublicKey(point);
}

/** The TRON address of a secp256k1 private key. */
export function addressOfKey(privateKey: Uint8Array): string {
  return addressOfPublicKey(secp256k1.getPublicKey(privateKey, false));
}

function addressOfPublicKey(uncompressed: Uint8Array): string {
  // Same as address.ts: 0x41 ‖ keccak256(pub[1..])[12..].
  return tronFromHex(bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12)));
}
