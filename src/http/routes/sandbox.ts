// /sandbox endpoints (DESIGN 8), unsigned, only while some chain runs in sandbox mode.
import { Elysia } from "elysia";
import { Type as T } from "@sinclair/typebox";
import type { Config } from "../../config/schema";
import { SandboxChain } from "../../chains/sandbox/chain";
import { AppError, invalid } from "../../errors";
import { readJsonBody } from "../../auth/verify";
import { json, failure } from "../respond";
import { parse } from "../../lib/validate";
import { chainAndToken } from "../../orders/rules";
import { toBaseUnits } from "../../lib/money";
import { chainModule } from "../../chains/registry";
import type { ChainAdapter, ChainCode } from "../../chains/types";
import { mapSeq } from "../../lib/async-seq";

const TransferBody = T.Object({
  chainCode: T.String(),
  tokenSymbol: T.String(),
  toAddress: T.String({ minLength: 1 }),
  amount: T.String({ pattern: "^\\d+(\\.\\d+)?$", errorMessage: "must be a decimal string" }),
  fromAddress: T.Optional(T.String({ minLength: 1 })),
});
const BlocksBody = T.Object({ chainCode: T.String(), count: T.Integer({ minimum: 1, maximum: 100000, errorMessage: "must be an integer from 1 to 100000" }) });
const ReorgBody = T.Object({ chainCode: T.String(), depth: T.Integer({ minimum: 1, maximum: 100000, errorMessage: "must be an integer from 1 to 100000" }) });
const FaultsBody = T.Object({ chainCode: T.String(), failNextBroadcasts: T.Integer({ minimum: 0, maximum: 1000, errorMessage: "must be an integer from 0 to 1000" }) });

/** What the sandbox routes read: the enabled chains and the body size limit. */
export interface SandboxRouteCtx {
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  config: Pick<Config, "server">;
}

export interface SandboxHooks {
  /** Let the chain's watcher see the change before answering. */
  afterChange(chain: ChainCode): Promise<void>;
}

export function sandboxChain(ctx: Pick<SandboxRouteCtx, "chains">, chainCode: unknown): SandboxChain {
  const c = ctx.chains.get(chainCode as ChainCode);
  if (!c) throw new AppError(31001, { chainCode }, "Chain not supported or not enabled");
  if (!(c instanceof SandboxChain)) throw invalid({ chainCode: "chain is not in sandbox mode" });
  return c;
}

export function sandboxRoutes(ctx: SandboxRouteCtx, hooks: SandboxHooks) {
  const handle = async (request: Request, fn: (body: unknown) => Promise<unknown>) => {
    try {
      const body = await readJsonBody(request, ctx.config.server.max_body_bytes);
      return json(await fn(body), 200, request);
    } catch (e) {
      if (e instanceof AppError) return failure(e, request);
      throw e;
    }
  };
  return new Elysia({ prefix: "/sandbox" })
    .post(
      "/transfers",
      ({ request }) =>
        handle(request, async (raw) => {
          const b = parse(TransferBody, raw);
          const chain = sandboxChain(ctx, b.chainCode);
          // The chain's native coin (TRX, BNB, SOL: to fund the gas or energy wallet), or one of its tokens.
          const token = b.tokenSymbol === chain.native ? { symbol: chain.native, decimals: chainModule(chain.chain).native.decimals } : chainAndToken(ctx, b.chainCode, b.tokenSymbol).token;
          if (!chain.isValidAddress(b.toAddress)) throw invalid({ toAddress: `not a valid ${chain.chain} address` });
          if (b.fromAddress !== undefined && !chain.isValidAddress(b.fromAddress)) throw invalid({ fromAddress: `not a valid ${chain.chain} address` });
          let units: bigint;
          try {
            units = toBaseUnits(b.amount, token.decimals);
          } catch {
            throw invalid({ amount: `at most ${token.decimals} fractional digits` });
          }
          if (units <= 0n) throw invalid({ amount: "must be greater than 0" });
          const r = await chain.transfer({ token: token.symbol, to: chain.normalizeAddress(b.toAddress), amount: units, from: b.fromAddress && chain.normalizeAddress(b.fromAddress) });
          await hooks.afterChange(chain.chain);
          return r;
        }),
      { parse: "none" },
    )
    .post(
      "/blocks",
      ({ request }) =>
        handle(request, async (raw) => {
          const b = parse(BlocksBody, raw);
          const chain = sandboxChain(ctx, b.chainCode);
          const blockNumber = await chain.mine(b.count);
          await hooks.afterChange(chain.chain);
          return { blockNumber };
        }),
      { parse: "none" },
    )
    .post(
      "/reorg",
      ({ request }) =>
        handle(request, async (raw) => {
          const b = parse(ReorgBody, raw);
          const chain = sandboxChain(ctx, b.chainCode);
          const blockNumber = await chain.reorg(b.depth);
          await hooks.afterChange(chain.chain);
          return { blockNumber };
        }),
      { parse: "none" },
    )
    .post(
      "/faults",
      ({ request }) =>
        handle(request, async (raw) => {
          const b = parse(FaultsBody, raw);
          const chain = sandboxChain(ctx, b.chainCode);
          await chain.setFaults(b.failNextBroadcasts);
          return { chainCode: chain.chain, failNextBroadcasts: b.failNextBroadcasts };
        }),
      { parse: "none" },
    )
    .get("/chains", async ({ request }) =>
      json(
        await mapSeq([...ctx.chains.values()].filter((c): c is SandboxChain => c instanceof SandboxChain), async (c) => ({ chainCode: c.chain, blockNumber: await c.height(), confirmations: c.requiredConfirmations })),
        200,
        request,
      ),
    );
}
