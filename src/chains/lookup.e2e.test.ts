// lookupTx (DESIGN 25) on each chain's test node, one row per chain: a real token transfer read
// back by its hash (included, its token transfer to the payee, the block's finality as the
// chain's head says), an unknown hash not found, a malformed one refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startBscChain, startSolChain, startTonChain, startTronChain, type ChainFixture, type TonChainFixture } from "../testing/chain-fixture";
import type { ChainAdapter } from "./types";
import { base58 } from "@scure/base";
import { tonCore } from "./ton/address";

const ROWS: Array<{ chain: string; start(): Promise<ChainFixture>; unknown: string; toFinal: number; config?: Record<string, unknown>; also?(fx: ChainFixture, hash: string, adapter: ChainAdapter): Promise<void> }> = [
  { chain: "BSC", start: () => startBscChain(), unknown: "0x" + "ab".repeat(32), toFinal: 2 },
  { chain: "TRON", start: () => startTronChain({ solidLag: 2 }), unknown: "ab".repeat(32), toFinal: 3 },
  { chain: "SOL", start: () => startSolChain(), unknown: base58.encode(new Uint8Array(64).fill(0xab)), toFinal: 40 },
  {
    chain: "TON",
    start: () => startTonChain(),
    unknown: "ab".repeat(32),
    toFinal: 1,
    config: { enabled: true },
    // toncenter's base64 form of the same hash reads the same; a look-alike jetton's notification is listed with no token.
    also: async (fx, hash, adapter) => {
      const t = fx as TonChainFixture;
      // @ton/sandbox loads for this row only.
      const { TonNode } = await import("../testing/ton-node");
      expect(await adapter.lookupTx!(Buffer.from(hash, "hex").toString("base64url"))).toMatchObject({ state: "included", txHash: hash });
      const to = fx.receivers(1, "lookup-TON-fake")[0]!;
      const fake = await t.raw.deployFakeMaster();
      await t.raw.mintFake(fake, t.payer, 9_000n);
      const b = await t.raw.payJetton(t.payer, tonCore().Address.parse(to), 9_000n, { master: fake });
      const look = await adapter.lookupTx!(TonNode.notificationTx(b, tonCore().Address.parse(to))!);
      expect(look).toMatchObject({ state: "included", success: true, transfers: [{ token: null, to, amount: 9_000n }] });
      // The payer's own transaction (what a wallet's history shows) leads along the trace to the notification.
      const paid = await t.raw.payJetton(t.payer, tonCore().Address.parse(to), 7_000n);
      const payerTx = paid.txs[0]!.hash().toString("hex");
      expect(payerTx).not.toBe(TonNode.notificationTx(paid, tonCore().Address.parse(to)));
      const viaPayer = await adapter.lookupTx!(payerTx);
      expect(viaPayer).toMatchObject({ state: "included", txHash: TonNode.notificationTx(paid, tonCore().Address.parse(to))!, transfers: [{ token: "USDT", to, amount: 7_000n }] });

    },
  },
];

for (const row of ROWS) {
  describe(`${row.chain} lookupTx`, () => {
    let fx: ChainFixture;
    let gw: TestGateway;
    let adapter: ChainAdapter;
    beforeAll(async () => {
      fx = await row.start();
      gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { [row.chain]: { ...fx.gatewayConfig(1), ...row.config } } } });
      adapter = gw.ctx.chains.get(fx.chain)!;
    });
    afterAll(async () => {
      await gw?.stop();
      await fx?.stop();
    });

    test("a token transfer read back by its hash; unknown and malformed hashes", async () => {
      const to = fx.receivers(1, `lookup-${row.chain}`)[0]!;
      const hash = await fx.pay(to, 1_234_567n);
      await fx.advance(1);
      const look = await adapter.lookupTx!(hash);
      expect(look.state).toBe("included");
      if (look.state !== "included") return;
      expect(look.txHash).toBe(hash);
      expect(look.success).toBe(true);
      expect(look.transfers.filter((t) => t.to === to)).toEqual([expect.objectContaining({ token: fx.token, amount: 1_234_567n })]);
      await fx.advance(row.toFinal);
      expect(await adapter.lookupTx!(hash)).toMatchObject({ state: "included", final: true });
      expect((await adapter.lookupTx!(row.unknown)).state).toBe("not_found");
      expect((await adapter.lookupTx!("not a hash")).state).toBe("malformed");
      await row.also?.(fx, hash, adapter);
    });
  });
}
