// The TON sweep's bounds against the real USDT jetton on @ton/sandbox behind the toncenter v3
// test server (DESIGN 25): it reports what the scan reports for the same blocks (same key, block
// hash and time), only in masterchain blocks (after, upTo] and not before `since`, skips what
// the gateway knows, flags a look-alike jetton as the scan does, and pages the owner's history.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Address } from "@ton/core";
import { TonNode } from "../../testing/ton-node";
import { TonRpc } from "./rpc";
import { tonScanner, type CounterfeitNotice } from "./scan";
import { tonSweep } from "./sweep";
import { randomTonAddress } from "./address";
import { tonChain } from "./index";
import type { SweepQuery } from "../types";

let node: TonNode;
beforeAll(async () => {
  node = await TonNode.start();
});
afterAll(() => node?.stop());

describe("TON sweep", () => {
  const owner = randomTonAddress();
  const payer = Address.parse(randomTonAddress());
  const counterfeits: CounterfeitNotice[] = [];
  const make = (pageLimit?: number) => {
    const scanner = tonScanner({ rpc: new TonRpc({ urls: [node.url] }), tokens: tonChain.defaults.tokens, confirmations: 1, onCounterfeit: (n) => counterfeits.push(n) });
    return { scanner, sweep: tonSweep({ rpc: new TonRpc({ urls: [node.url] }), blockRef: scanner.blockRef, transferOf: scanner.transferOf, pageLimit }) };
  };
  const query = (q: Partial<SweepQuery>): SweepQuery => ({ address: owner, after: null, since: 0, upTo: BigInt(node.height), known: async () => false, ...q });
  let paid: bigint[] = [];

  test("a payment is reported as the scan reports it, only within (after, upTo] and since `since`", async () => {
    await node.mint(payer, 10n ** 12n);
    node.mine(1);
    const before = BigInt(node.height);
    for (const amount of [1_000_001n, 2_000_002n, 3_000_003n]) paid.push(BigInt((await node.payJetton(payer, Address.parse(owner), amount, { comment: `o-${amount}` })).seqno));
    node.mine(1);
    const { scanner, sweep } = make();
    const scanned = (await scanner.scan(before + 1n, BigInt(node.height), { has: (a) => a === owner, size: 1, addresses: () => [owner] })).transfers;
    expect(scanned.length).toBe(3);
    expect(await sweep(query({}))).toEqual([...scanned].reverse());
    expect((await sweep(query({ upTo: paid[1]! }))).map((t) => t.amount)).toEqual([2_000_002n, 1_000_001n]);
    expect((await sweep(query({ after: paid[0]! }))).map((t) => t.amount)).toEqual([3_000_003n, 2_000_002n]);
    expect(await sweep(query({ after: paid[2]! }))).toEqual([]);
    const lastTime = scanned[2]!.blockTime;
    expect(await sweep(query({ since: lastTime + 60_000 }))).toEqual([]);
  });

  test("what the gateway knows is skipped without reading its block", async () => {
    const { sweep } = make();
    node.calls.clear();
    const all = await sweep(query({}));
    const known = new Set(all.map((t) => t.txHash));
    node.calls.clear();
    expect(await sweep(query({ known: async (h) => known.has(h) }))).toEqual([]);
    // The owner's page, the cursor's block (cached thereafter), nothing per known transaction.
    expect(node.calls.get("transactions")).toBe(1);
    expect(node.calls.get("blocks") ?? 0).toBe(0);
  });

  test("pages of the owner's history: a small page still finds every payment within MAX_PAGES", async () => {
    const { sweep } = make(2);
    expect((await sweep(query({}))).map((t) => t.amount)).toEqual([3_000_003n, 2_000_002n, 1_000_001n]);
  });

  test("a look-alike jetton is reported flagged, as the scan flags it", async () => {
    const fake = await node.deployFakeMaster();
    await node.mintFake(fake, payer, 5_000n);
    const b = await node.payJetton(payer, Address.parse(owner), 5_000n, { master: fake });
    const { sweep } = make();
    const found = await sweep(query({ after: paid[2]! }));
    expect(found).toEqual([expect.objectContaining({ txHash: TonNode.notificationTx(b, Address.parse(owner)), amount: 5_000n, counterfeit: true })]);
    expect(counterfeits.map((c) => c.amount)).toEqual([5_000n]);
  });
});
