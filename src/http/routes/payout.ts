// /openapi payout routes (spec 4.5-4.7). Handlers: parse -> service -> view.
import { Elysia } from "elysia";
import { keyInForce } from "../../merchants/service";
import type { AuthDeps } from "../../auth/verify";
import { signed } from "../signed";
import { parse } from "../../lib/validate";
import { CreatePayoutBody, SubmitPayoutBody } from "../../payout/schemas";
import { createPayout, getPayout, requestSubmit, type PayoutCtx } from "../../payout/service";
import type { PayoutExecutor } from "../../payout/executor";
import { payoutView } from "../../payout/views";
import { AppError } from "../../errors";
import type { ChainCode } from "../../chains/types";

export function payoutRoutes(ctx: PayoutCtx, auth: AuthDeps, executor: PayoutExecutor) {
  return new Elysia({ prefix: "/openapi/payout" })
    .post(
      "/orders",
      ({ request }) =>
        signed(auth, request, async ({ merchant, key, body }) => {
          const input = parse(CreatePayoutBody, body);
          const { order, created } = createPayout(ctx, merchant.id, keyInForce(ctx.db, merchant.id, key.id), input);
          // The first automatic submission runs before answering (spec 3.2: the status may be beyond submitted).
          return payoutView(created ? await executor.attempt(order.id) : order);
        }),
      { parse: "none" },
    )
    .get("/orders/:orderNo", ({ request, params }) => signed(auth, request, ({ merchant }) => payoutView(getPayout(ctx.db, merchant.id, params.orderNo))))
    .post(
      "/orders/:orderNo/submit",
      ({ request, params }) =>
        signed(auth, request, async ({ merchant, body }) => {
          const input = parse(SubmitPayoutBody, body ?? {});
          const order = requestSubmit(ctx, merchant.id, params.orderNo, input.remark);
          // Disabled since the order was made: nothing can sign or send it (the executor would throw, a 500).
          if (!ctx.chains.has(order.chain as ChainCode)) throw new AppError(31001, { chainCode: order.chain }, "Chain not enabled on this gateway");
          return payoutView(await executor.attempt(order.id));
        }),
      { parse: "none" },
    );
}
