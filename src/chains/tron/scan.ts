// Reading TRON: per block, /wallet/getblockbynum (id, time, parent, tx ids) and, only for blocks
// with transactions, /wallet/gettransactioninfobyblocknum (the logs); Transfer logs of the
// configured token contracts are matched locally against the watch set, so the calls per block
// never depend on how many addresses are watched. Finality: solidified (/walletsolidity/getnowblock).
import type { ChainHead, IncomingTransfer, ScanResult, TokenInfo, WatchSet } from "../types";
import { tronFromHex } from "./address";
import { TRANSFER_TOPIC } from "./tx";
import { asBase58, numberOf, toRef, type NodeBlock, type NodeTxInfo, type TronNode } from "./node";
import type { TronSentTx } from "./types";

/** The head block and the solidified one (final). */
export async function readHead(node: TronNode): Promise<ChainHead> {
  const [latest, solid] = await Promise.all([node.nowBlock(false), node.nowBlock(true)]);
  const l = numberOf(latest);
  const s = numberOf(solid);
  return { latest: l, final: s < l ? s : l, time: Number(latest.block_header!.raw_data.timestamp) };
}

export async function blockHashAt(node: TronNode, n: bigint): Promise<string | null> {
  const b = await node.getBlock(n);
  return b ? b.blockID! : null;
}

/** Token transfers to watched addresses in blocks [from, to]; the blocks must chain (parent hashes), else a reorg is under the scan. */
export async function scanTransfers(node: TronNode, from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
  if (from > to) throw new RangeError(`scan range is empty: ${from} > ${to}`);
  if (watch.size === 0 || node.tokens.length === 0) {
    const tip = await node.getBlock(to);
    if (!tip) throw new Error(`TRON block ${to} does not exist yet`);
    return { transfers: [], tip: toRef(tip) };
  }
  const blocks = await fetchBlocks(node, from, to);
  for (let i = 1; i < blocks.length; i++) {
    if (blocks[i].block.block_header!.raw_data.parentHash !== blocks[i - 1].block.blockID) {
      throw new Error(`TRON block ${from + BigInt(i)} does not follow block ${from + BigInt(i - 1)} (reorg during the scan); scan again`);
    }
  }
  const transfers: IncomingTransfer[] = [];
  for (const { block, infos } of blocks) transfers.push(...transfersInBlock(block, infos, node.byContract20, watch));
  return { transfers, tip: toRef(blocks[blocks.length - 1].block) };
}

/** The Transfer logs of configured tokens in one block's successful transactions, to a watched address. */
function transfersInBlock(block: NodeBlock, infos: NodeTxInfo[], byContract20: ReadonlyMap<string, TokenInfo>, watch: WatchSet): IncomingTransfer[] {
  const transfers: IncomingTransfer[] = [];
  const ref = toRef(block);
  // Infos in the block's transaction order, so positions are stable.
  const order = new Map((block.transactions ?? []).map((t, i) => [t.txID, i]));
  const sorted = [...infos].sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  for (const info of sorted) {
    if (info.result === "FAILED") continue;
    (info.log ?? []).forEach((l, logIndex) => {
      const t = byContract20.get(String(l.address ?? "").toLowerCase().replace(/^(0x|41(?=[0-9a-f]{40}$))/, ""));
      const topics = l.topics ?? [];
      if (!t || topics.length !== 3 || topics[0].toLowerCase().replace(/^0x/, "") !== TRANSFER_TOPIC) return;
      const toAddr = tronFromHex(topics[2].slice(-40));
      if (!watch.has(toAddr)) return;
      const data = String(l.data ?? "").replace(/^0x/, "");
      transfers.push({
        chain: "TRON",
        token: t.symbol,
        txHash: info.id,
        logIndex,
        blockNumber: ref.number,
        blockHash: ref.hash,
        blockTime: ref.time,
        from: tronFromHex(topics[1].slice(-40)),
        to: toAddr,
        amount: data ? BigInt("0x" + data) : 0n,
      });
    });
  }
  return transfers;
}

/** Blocks [from, to] with their infos, `scanConcurrency` at a time, in order. */
function fetchBlocks(node: TronNode, from: bigint, to: bigint): Promise<Array<{ block: NodeBlock; infos: NodeTxInfo[] }>> {
  return node.eachBlock(from, to, async (block, n) => {
    let infos: NodeTxInfo[] = [];
    const txs = block.transactions ?? [];
    if (txs.length > 0) {
      const got = await node.rpc.post<NodeTxInfo[] | Record<string, unknown>>("wallet/gettransactioninfobyblocknum", { num: Number(n) });
      infos = Array.isArray(got) ? got : [];
      const ids = new Set(txs.map((t) => t.txID));
      // Infos of another fork's block (a reorg between the two calls) would not match.
      if (infos.length !== txs.length || infos.some((x) => !ids.has(x.id))) {
        throw new Error(`TRON block ${n} changed during the scan (reorg); scan again`);
      }
    }
    return { block, infos };
  });
}

/** Transactions any of `owners` signed in blocks [from, latest], and that latest: one block read each (restore reconcile only). */
export async function transactionsFrom(node: TronNode, owners: ReadonlySet<string>, from: bigint): Promise<{ txs: TronSentTx[]; to: bigint }> {
  const latest = numberOf(await node.nowBlock(false));
  const found = await node.eachBlock(from, latest, async (b, n) => {
    const sent: TronSentTx[] = [];
    for (const t of b.transactions ?? []) {
      const c = t.raw_data?.contract?.[0];
      const v = c?.parameter?.value ?? {};
      const owner = asBase58(v.owner_address);
      if (!owner || !owners.has(owner)) continue;
      const one: TronSentTx = { owner, txHash: t.txID, blockNumber: n };
      if (c?.type === "TransferContract") Object.assign(one, { to: asBase58(v.to_address), asset: "TRX", amount: BigInt(String(v.amount ?? 0)) });
      const data = typeof v.data === "string" ? v.data : "";
      const tok = node.tokens.find((k) => asBase58(v.contract_address) === k.contract);
      if (c?.type === "TriggerSmartContract" && tok && data.startsWith("a9059cbb") && data.length >= 136) {
        Object.assign(one, { to: tronFromHex(data.slice(32, 72)), asset: tok.symbol, amount: BigInt("0x" + data.slice(72, 136)) });
      }
      sent.push(one);
    }
    return sent;
  });
  return { txs: found.flat(), to: latest };
}
