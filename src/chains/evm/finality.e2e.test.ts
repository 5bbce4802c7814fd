// Finality per EVM profile (DESIGN 17): `confirmations`, or also the node's `safe` / `finalized`
// block, whichever is lower; a node that does not serve the configured tag stops start-up.
// anvil's `--slots-in-an-epoch 2` puts safe 2 and finalized 4 blocks behind latest.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEvmAdapter, type EvmFinality } from "./adapter";
import { POLYGON_PROFILE } from "../polygon";
import { startAnvil, type AnvilNode } from "../../testing/anvil";

let node: AnvilNode;
let refusing: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  node = await startAnvil({ chain: "POLYGON", slotsInAnEpoch: 2 });
  await node.mine(20);
  // A node without the finality tags: forwards everything to anvil but refuses "safe" and "finalized".
  refusing = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { id: number; method: string; params: unknown[] };
      if (body.method === "eth_getBlockByNumber" && ["safe", "finalized"].includes(body.params[0] as string)) {
        return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32602, message: "invalid block tag" } });
      }
      return fetch(node.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    },
  });
});
afterAll(async () => {
  void refusing?.stop(true);
  await node?.stop();
});

const adapter = (finality: EvmFinality | undefined, confirmations: number, url = node.url) =>
  createEvmAdapter(POLYGON_PROFILE, { rpcUrls: [url], tokens: [], confirmations, finality, backoffBaseMs: 5 });

describe("EVM finality", () => {
  test.each([
    [undefined, 3, 2n],
    ["confirmations", 3, 2n],
    ["safe", 1, 2n], // the tag is lower than 1 confirmation
    ["finalized", 1, 4n],
    ["finalized", 7, 6n], // confirmations are lower than the tag
  ] as const)("finality %p with %d confirmations: final trails latest by %p", async (finality, confirmations, behind) => {
    const a = adapter(finality, confirmations);
    await a.start();
    const h = await a.head();
    expect(h.latest - h.final).toBe(behind);
    await a.stop();
  });

  test("a node that does not serve the tag stops start-up; confirmations alone still start", async () => {
    await expect(adapter("finalized", 3, `http://127.0.0.1:${refusing.port}`).start()).rejects.toThrow('Polygon RPC does not serve the "finalized" block tag (chains.POLYGON.finality)');
    const plain = adapter("confirmations", 3, `http://127.0.0.1:${refusing.port}`);
    await plain.start();
    await plain.stop();
  });
});
