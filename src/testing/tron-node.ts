// A protocol-faithful fake of the TRON full-node HTTP API on 127.0.0.1 (no java-tron is
// installable here). Unmodified tronweb builds, signs and broadcasts against it
// (tron-node.e2e.test.ts). Serves the /wallet and /walletsolidity calls the gateway and
// tronweb use, in java-tron's JSON shapes (visible=false: 41-hex addresses; TRON logs:
// 20-byte hex, no 0x), mines blocks on demand, on a timer or after each broadcast,
// solidifies `solidLag` blocks behind the head, reorganises unsolidified blocks, and
// injects TronGrid's rate limiting (HTTP 403/429, optionally a suspension) and outages.
import { seededRandom } from "./rpc-proxy";
import { hex41, TronChain, TronRejectedParse, TxRejected, type Block, type ChainState, type TronChainOptions, type TxJson } from "./tron-chain";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TronWeb } = require("tronweb") as { TronWeb: any };

export interface TronFaults {
  /** Fraction of requests answered HTTP 429. */
  rate429?: number;
  /** Every `every429`-th request (the 3rd, 6th… with 3) is answered HTTP 429. */
  every429?: number;
  /** Seconds sent as Retry-After with the every429 answers. */
  retryAfter?: number;
  /** gettransactioninfobyblocknum answers without logs (a node that drops them: the block scan sees no transfer). */
  hideLogs?: boolean;
  /** Fraction of requests answered HTTP 403 (TronGrid's "key exceeds the frequency limit"). */
  rate403?: number;
  /** After an injected 403/429, every request gets the same status for this long (TronGrid: ~30 s). */
  suspendMs?: number;
  /** Every request answers HTTP 503. */
  down?: boolean;
  /** Requests without this TRON-PRO-API-KEY header get HTTP 401. */
  requireApiKey?: string;
  /** Seed of the fault dice. Default 1. */
  seed?: number;
}

export interface TronNodeOptions extends TronChainOptions {
  /** Mine one block after each accepted broadcast (like anvil's automine). Default false. */
  autoMine?: boolean;
  /** Mine a block every this many ms (0 = only on demand). Default 0. */
  blockTimeMs?: number;
  faults?: TronFaults;
  /** Serve an existing chain (a second endpoint in front of the same chain, for failover tests). */
  chain?: TronChain;
}

export interface TronNode {
  url: string;
  chain: TronChain;
  /** Requests per path ("wallet/getblockbynum"), faults included. */
  calls: Map<string, number>;
  /** TRON-PRO-API-KEY values seen. */
  apiKeys: Set<string>;
  injected: { http403: number; http429: number; down: number; unauthorized: number };
  totalCalls(): number;
  resetCounts(): void;
  setFaults(f: TronFaults): void;
  setAutoMine(on: boolean): void;
  mine(n?: number): Block;
  reorg(depth: number, opts?: { keepTxs?: boolean }): void;
  /** A tronweb instance on this node (the chain's own client library). */
  tronWeb(privateKeyHex?: string): any;
  stop(): Promise<void>;
}

const utf8Hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
const num = (v: bigint) => Number(v);

function blockJson(b: Block, detail = true): Record<string, unknown> {
  const header = {
    raw_data: {
      number: b.number,
      txTrieRoot: "0".repeat(64),
      witness_address: "41" + "11".repeat(20),
      parentHash: b.parentHash,
      version: 31,
      timestamp: b.timestamp,
    },
    witness_signature: "00".repeat(65),
  };
  const out: Record<string, unknown> = { blockID: b.blockID, block_header: header };
  if (detail && b.txs.length) out.transactions = b.txs.map((t) => ({ ret: [{ contractRet: t.contractRet }], ...t.tx }));
  return out;
}

/** /wallet/getaccount: java-tron's Account message as JSON (zero fields left out, as protobuf-JSON does). */
function accountJson(chain: TronChain, state: ChainState, key: string): Record<string, unknown> {
  const a = state.accounts.get(key);
  if (!a) return {};
  const out: Record<string, unknown> = { address: key, create_time: a.createTime };
  if (a.balance > 0n) out.balance = num(a.balance);
  if (a.freeNetUsed > 0) out.free_net_usage = a.freeNetUsed;
  const usage = chain.usageAt(a, chain.now());
  const resource: Record<string, unknown> = { energy_window_size: 28800, energy_window_optimized: true };
  if (usage > 0n) resource.energy_usage = num(usage);
  if (a.latestConsumeTime > 0) resource.latest_consume_time_for_energy = a.latestConsumeTime;
  if (a.delegatedOut > 0n) resource.delegated_frozenV2_balance_for_energy = num(a.delegatedOut);
  if (a.acquired > 0n) resource.acquired_delegated_frozenV2_balance_for_energy = num(a.acquired);
  out.account_resource = resource;
  out.frozenV2 = [{}, { type: "ENERGY", ...(a.frozenEnergy > 0n ? { amount: num(a.frozenEnergy) } : {}) }, { type: "TRON_POWER" }];
  if (a.unfrozen.length) out.unfrozenV2 = a.unfrozen.map((u) => ({ type: "ENERGY", unfreeze_amount: num(u.amount), unfreeze_expire_time: u.expire }));
  return out;
}

/** Node-built Stake 2.0 transactions: endpoint → contract type and the value fields it copies. */
const STAKE_ENDPOINTS: Record<string, { type: string; fields: Array<{ k: string; kind: "addr" | "int" | "resource" | "bool" }> }> = {
  freezebalancev2: { type: "FreezeBalanceV2Contract", fields: [{ k: "owner_address", kind: "addr" }, { k: "frozen_balance", kind: "int" }, { k: "resource", kind: "resource" }] },
  unfreezebalancev2: { type: "UnfreezeBalanceV2Contract", fields: [{ k: "owner_address", kind: "addr" }, { k: "unfreeze_balance", kind: "int" }, { k: "resource", kind: "resource" }] },
  withdrawexpireunfreeze: { type: "WithdrawExpireUnfreezeContract", fields: [{ k: "owner_address", kind: "addr" }] },
  delegateresource: {
    type: "DelegateResourceContract",
    fields: [{ k: "owner_address", kind: "addr" }, { k: "resource", kind: "resource" }, { k: "balance", kind: "int" }, { k: "receiver_address", kind: "addr" }, { k: "lock", kind: "bool" }, { k: "lock_period", kind: "int" }],
  },
  undelegateresource: {
    type: "UnDelegateResourceContract",
    fields: [{ k: "owner_address", kind: "addr" }, { k: "resource", kind: "resource" }, { k: "balance", kind: "int" }, { k: "receiver_address", kind: "addr" }],
  },
};

/** An address argument as the API takes it: 41-hex, or base58 with visible=true. */
function addrArg(v: unknown, visible: boolean): string {
  const s = String(v ?? "");
  if (visible || s.startsWith("T")) return hex41(s);
  return s.toLowerCase().replace(/^0x/, "");
}

export async function startTronNode(opts: TronNodeOptions = {}): Promise<TronNode> {
  const chain = opts.chain ?? new TronChain(opts);
  let faults: TronFaults = { ...opts.faults };
  let rand = seededRandom(faults.seed ?? 1);
  let suspended: { until: number; status: number } | null = null;
  let counted = 0;
  let autoMine = opts.autoMine ?? false;
  const calls = new Map<string, number>();
  const apiKeys = new Set<string>();
  const injected = { http403: 0, http429: 0, down: 0, unauthorized: 0 };

  const refOf = (b: Block) => ({ ref_block_bytes: b.number.toString(16).padStart(4, "0").slice(-4), ref_block_hash: b.blockID.slice(16, 32) });

  /** A node-built transaction (triggersmartcontract / createtransaction), unsigned. */
  function build(contract: TxJson["raw_data"]["contract"][0], feeLimit?: number): TxJson {
    const head = chain.head;
    const raw: TxJson["raw_data"] = { contract: [contract], ...refOf(head), expiration: head.timestamp + 60_000, timestamp: chain.now() };
    if (feeLimit !== undefined) raw.fee_limit = feeLimit;
    const tx: TxJson = { visible: false, txID: "", raw_data: raw, raw_data_hex: "" };
    const ids = TronChain.txIdOf(tx);
    tx.txID = ids.txID;
    tx.raw_data_hex = ids.rawHex;
    return tx;
  }

  function triggerData(body: Record<string, any>): string {
    if (body.data) return String(body.data).replace(/^0x/, "");
    const sel = String(body.function_selector ?? "").replace(/\s+/g, "");
    if (!sel) return "";
    const hash = String(TronWeb.sha3(sel)).replace(/^0x/, "");
    return hash.slice(0, 8) + String(body.parameter ?? "");
  }

  function constantCall(body: Record<string, any>, solid: boolean) {
    const visible = body.visible === true;
    const contract = addrArg(body.contract_address, visible);
    const owner = body.owner_address ? addrArg(body.owner_address, visible) : "410000000000000000000000000000000000000000";
    if (contract !== chain.contractHex) {
      return { result: { code: "CONTRACT_VALIDATE_ERROR", message: utf8Hex("No contract or not a valid smart contract") } };
    }
    const state = (solid ? chain.solid : chain.head).state;
    const data = triggerData(body);
    const r = chain.call(state, owner, data);
    const tx = build({ parameter: { value: { data, owner_address: owner, contract_address: contract }, type_url: "type.googleapis.com/protocol.TriggerSmartContract" }, type: "TriggerSmartContract" });
    if (r.revert) {
      return { result: { code: "CONTRACT_EXE_ERROR", message: utf8Hex("REVERT opcode executed") }, energy_used: num(r.energy), constant_result: [""], transaction: { ret: [{ ret: "FAILED" }], ...tx } };
    }
    return { result: { result: true }, energy_used: num(r.energy), constant_result: [r.output], transaction: { ret: [{}], ...tx } };
  }

  function broadcast(body: TxJson) {
    try {
      const txid = chain.admit(body);
      if (autoMine) chain.mine(1);
      return { result: true, txid };
    } catch (e) {
      if (e instanceof TxRejected) {
        let txid = "";
        try {
          txid = TronChain.txIdOf(body).txID;
        } catch {}
        return { code: e.code, txid, message: utf8Hex(e.message) };
      }
      if (e instanceof TronRejectedParse) return { Error: `class org.tron.core.exception.BadItemException : ${e.message}` };
      throw e;
    }
  }

  function route(path: string, body: Record<string, any>): unknown {
    const solid = path.startsWith("walletsolidity/");
    const name = path.replace(/^wallet(solidity)?\//, "");
    const visible = body.visible === true;
    switch (name) {
      case "getnowblock":
        return blockJson(solid ? chain.solid : chain.head);
      case "getblock": {
        const idOrNum = body.id_or_num;
        const detail = body.detail === true || body.detail === "true";
        let b: Block | undefined = solid ? chain.solid : chain.head;
        if (idOrNum !== undefined && idOrNum !== "") {
          const s = String(idOrNum);
          b = /^\d+$/.test(s) ? chain.block(Number(s), solid) : chain.blocks.find((x) => x.blockID === s.toLowerCase() && (!solid || x.number <= chain.solidNumber));
        }
        return b ? blockJson(b, detail) : {};
      }
      case "getblockbynum": {
        const b = chain.block(Number(body.num), solid);
        return b ? blockJson(b) : {};
      }
      case "getblockbyid": {
        const b = chain.blocks.find((x) => x.blockID === String(body.value ?? "").toLowerCase() && (!solid || x.number <= chain.solidNumber));
        return b ? blockJson(b) : {};
      }
      case "gettransactioninfobyblocknum": {
        const b = chain.block(Number(body.num), solid);
        if (b && faults.hideLogs) return b.txs.map(({ info: { log: _log, ...rest } }) => rest);
        return b ? b.txs.map((t) => t.info) : [];
      }
      case "gettransactioninfobyid": {
        const f = chain.find(String(body.value ?? ""));
        if (!f || !("block" in f) || (solid && f.block.number > chain.solidNumber)) return {};
        return f.included.info;
      }
      case "gettransactionbyid": {
        const f = chain.find(String(body.value ?? ""));
        if (!f) return {};
        if ("pending" in f) return solid ? {} : f.pending;
        if (solid && f.block.number > chain.solidNumber) return {};
        return { ret: [{ contractRet: f.included.contractRet }], ...f.included.tx };
      }
      case "getaccount":
        return accountJson(chain, (solid ? chain.solid : chain.head).state, addrArg(body.address, visible));
      case "getaccountresource": {
        const a = chain.head.state.accounts.get(addrArg(body.address, visible));
        if (!a) return {};
        const limit = chain.energyLimit(a) + a.energy;
        const used = chain.usageAt(a, chain.now());
        const out: Record<string, unknown> = {
          freeNetUsed: a.freeNetUsed,
          freeNetLimit: chain.params.freeBandwidth,
          TotalNetLimit: 43_200_000_000,
          TotalNetWeight: 26_000_000_000,
          TotalEnergyLimit: num(chain.params.totalEnergyLimit),
          TotalEnergyWeight: num(chain.params.totalEnergyWeight),
        };
        if (used > 0n) out.EnergyUsed = num(used);
        if (limit > 0n) out.EnergyLimit = num(limit);
        if (a.frozenEnergy + a.delegatedOut > 0n) out.tronPowerLimit = num((a.frozenEnergy + a.delegatedOut) / 1_000_000n);
        return out;
      }
      case "getdelegatedresourcev2": {
        const from = addrArg(body.fromAddress, visible);
        const to = addrArg(body.toAddress, visible);
        const d = chain.head.state.delegations.get(`${from}:${to}`);
        return d ? { delegatedResource: [{ from, to, frozen_balance_for_energy: num(d) }] } : {};
      }
      case "getdelegatedresourceaccountindexv2": {
        const who = addrArg(body.value, visible);
        const toAccounts: string[] = [];
        const fromAccounts: string[] = [];
        for (const k of chain.head.state.delegations.keys()) {
          const [f, t] = k.split(":");
          if (f === who) toAccounts.push(t);
          if (t === who) fromAccounts.push(f);
        }
        return { account: who, ...(fromAccounts.length ? { fromAccounts } : {}), ...(toAccounts.length ? { toAccounts } : {}) };
      }
      case "getcandelegatedmaxsize": {
        if (Number(body.type ?? 0) !== 1) return {};
        const a = chain.head.state.accounts.get(addrArg(body.owner_address, visible));
        const max = a ? chain.delegable(a, chain.now()) : 0n;
        return max > 0n ? { max_size: num(max) } : {};
      }
      case "freezebalancev2":
      case "unfreezebalancev2":
      case "withdrawexpireunfreeze":
      case "delegateresource":
      case "undelegateresource": {
        if (solid) break;
        const spec = STAKE_ENDPOINTS[name];
        const value: Record<string, unknown> = {};
        for (const f of spec.fields) {
          const raw = body[f.k];
          if (raw === undefined || raw === null || raw === "") continue;
          if (f.kind === "addr") value[f.k] = addrArg(raw, visible);
          else if (f.kind === "int") value[f.k] = Number(raw);
          else if (f.kind === "bool") value[f.k] = raw === true || raw === "true";
          else value[f.k] = String(raw);
        }
        const owner = String(value.owner_address ?? "");
        if (!chain.head.state.accounts.has(owner)) return { Error: `class org.tron.core.exception.ContractValidateException : Account[${owner}] not exists` };
        const tx = build({ parameter: { value, type_url: `type.googleapis.com/protocol.${spec.type}` }, type: spec.type });
        // Validation as the node does it before answering (the result is not kept).
        try {
          chain.execute({ ...tx, signature: ["00".repeat(65)] }, structuredClone(chain.head.state), chain.head.number + 1, chain.now());
        } catch (e) {
          if (e instanceof TxRejected) return { Error: `class org.tron.core.exception.ContractValidateException : ${e.message}` };
          throw e;
        }
        return tx;
      }
      case "getchainparameters":
        return {
          chainParameter: [
            { key: "getMaintenanceTimeInterval", value: 21600000 },
            { key: "getTransactionFee", value: num(chain.params.transactionFee) },
            { key: "getCreateAccountFee", value: 100000 },
            { key: "getCreateNewAccountFeeInSystemContract", value: num(chain.params.createAccountFee) },
            { key: "getEnergyFee", value: num(chain.params.energyFee) },
            { key: "getMaxFeeLimit", value: num(chain.params.maxFeeLimit) },
            { key: "getAllowTvmTransferTrc10", value: 1 },
          ],
        };
      case "triggerconstantcontract":
        return constantCall(body, solid);
      case "estimateenergy": {
        const r = constantCall(body, solid) as Record<string, any>;
        return r.result?.result ? { result: { result: true }, energy_required: r.energy_used } : { result: r.result };
      }
      case "triggersmartcontract": {
        if (solid) break;
        const contract = addrArg(body.contract_address, visible);
        if (contract !== chain.contractHex) return { result: { code: "CONTRACT_VALIDATE_ERROR", message: utf8Hex("No contract or not a smart contract") } };
        const owner = addrArg(body.owner_address, visible);
        const value: Record<string, unknown> = { data: triggerData(body), owner_address: owner, contract_address: contract };
        if (Number(body.call_value ?? 0) > 0) value.call_value = Number(body.call_value);
        const tx = build({ parameter: { value, type_url: "type.googleapis.com/protocol.TriggerSmartContract" }, type: "TriggerSmartContract" }, Number(body.fee_limit ?? 0) || undefined);
        return { result: { result: true }, transaction: tx };
      }
      case "createtransaction": {
        if (solid) break;
        const owner = addrArg(body.owner_address, visible);
        const to = addrArg(body.to_address, visible);
        const amount = Number(body.amount ?? 0);
        const acc = chain.head.state.accounts.get(owner);
        if (!acc) return { Error: "class org.tron.core.exception.ContractValidateException : Validate TransferContract error, no OwnerAccount." };
        if (!(amount > 0)) return { Error: "class org.tron.core.exception.ContractValidateException : Validate TransferContract error, Amount must be greater than 0." };
        if (acc.balance < BigInt(amount)) return { Error: "class org.tron.core.exception.ContractValidateException : Validate TransferContract error, balance is not sufficient." };
        return build({ parameter: { value: { amount, owner_address: owner, to_address: to }, type_url: "type.googleapis.com/protocol.TransferContract" }, type: "TransferContract" });
      }
      case "broadcasttransaction":
        if (solid) break;
        return broadcast(body as unknown as TxJson);
      case "getnodeinfo":
        return { beginSyncNum: chain.head.number, block: `Num:${chain.head.number},ID:${chain.head.blockID}`, solidityBlock: `Num:${chain.solidNumber},ID:${chain.solid.blockID}` };
    }
    return null;
  }

  /**
   * TronGrid's GET /v1/accounts/{address}/transactions/trc20 (only_to, min_timestamp, limit,
   * fingerprint): the token's transfers to the address on the head chain, newest first.
   */
  function trc20History(address: string, q: Record<string, any>): unknown {
    const to = hex41(address);
    const min = Number(q.min_timestamp ?? 0);
    const all: Array<Record<string, unknown>> = [];
    for (const b of chain.blocks) {
      if (b.timestamp < min) continue;
      for (const t of b.txs) {
        if (t.info.result === "FAILED") continue;
        for (const l of t.info.log ?? []) {
          if (l.topics.length !== 3 || "41" + l.topics[2]!.slice(-40) !== to || "41" + l.address !== chain.contractHex) continue;
          all.push({
            transaction_id: t.info.id,
            token_info: { symbol: "USDT", address: chain.contract, decimals: chain.decimals, name: "Tether USD" },
            block_timestamp: b.timestamp,
            from: TronWeb.address.fromHex("41" + l.topics[1]!.slice(-40)),
            to: address,
            type: "Transfer",
            value: BigInt("0x" + l.data).toString(),
          });
        }
      }
    }
    all.reverse();
    const limit = Math.min(200, Number(q.limit ?? 20));
    const start = Number(q.fingerprint ?? 0);
    const page = all.slice(start, start + limit);
    const more = start + limit < all.length;
    return { data: page, success: true, meta: { at: Date.now(), page_size: page.length, ...(more ? { fingerprint: String(start + limit) } : {}) } };
  }

  function fault(req: Request): Response | null {
    const key = req.headers.get("tron-pro-api-key");
    if (key) apiKeys.add(key);
    if (faults.down) {
      injected.down++;
      return new Response("service unavailable", { status: 503 });
    }
    if (faults.requireApiKey !== undefined && key !== faults.requireApiKey) {
      injected.unauthorized++;
      return Response.json({ Error: "ApiKey not exists" }, { status: 401 });
    }
    if (faults.every429 && ++counted % faults.every429 === 0) {
      injected.http429++;
      return new Response("Too Many Requests", { status: 429, headers: faults.retryAfter ? { "retry-after": String(faults.retryAfter) } : {} });
    }
    const now = Date.now();
    if (suspended && suspended.until > now) {
      suspended.status === 403 ? injected.http403++ : injected.http429++;
      return limited(suspended.status);
    }
    const roll = rand();
    let edge = 0;
    for (const [status, rate] of [[429, faults.rate429], [403, faults.rate403]] as const) {
      if (roll < (edge += rate ?? 0)) {
        status === 403 ? injected.http403++ : injected.http429++;
        if (faults.suspendMs) suspended = { until: now + faults.suspendMs, status };
        return limited(status);
      }
    }
    return null;
  }
  const limited = (status: number) =>
    status === 403
      ? Response.json({ Error: "The key exceeds the frequency limit(15), and the query server will be suspended for 30s" }, { status: 403 })
      : new Response("Too Many Requests", { status: 429 });

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname.replace(/^\/+/, "");
      calls.set(path, (calls.get(path) ?? 0) + 1);
      const f = fault(req);
      if (f) return f;
      let body: Record<string, any> = {};
      if (req.method === "POST") {
        const text = await req.text();
        if (text.trim()) {
          try {
            body = JSON.parse(text);
          } catch {
            return Response.json({ Error: "class com.alibaba.fastjson.JSONException : invalid JSON" });
          }
        }
      } else {
        for (const [k, v] of url.searchParams) body[k] = v;
      }
      const history = /^v1\/accounts\/([1-9A-HJ-NP-Za-km-z]{34})\/transactions\/trc20$/.exec(path);
      const out = history ? trc20History(history[1]!, body) : route(path, body);
      if (out === null) return new Response("Not Found", { status: 404 });
      return Response.json(out);
    },
  });

  const timer = opts.blockTimeMs ? setInterval(() => chain.mine(1), opts.blockTimeMs) : null;
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    chain,
    calls,
    apiKeys,
    injected,
    totalCalls: () => [...calls.values()].reduce((a, b) => a + b, 0),
    resetCounts() {
      calls.clear();
      for (const k of Object.keys(injected) as Array<keyof typeof injected>) injected[k] = 0;
    },
    setFaults(f) {
      faults = { ...f };
      rand = seededRandom(f.seed ?? 1);
      suspended = null;
    },
    setAutoMine(on) {
      autoMine = on;
    },
    mine: (n = 1) => chain.mine(n),
    reorg: (depth, o) => chain.reorg(depth, o),
    tronWeb(privateKeyHex?: string) {
      return new TronWeb({ fullHost: url, ...(privateKeyHex ? { privateKey: privateKeyHex } : {}) });
    },
    async stop() {
      if (timer) clearInterval(timer);
      await server.stop(true);
    },
  };
}

