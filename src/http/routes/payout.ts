// /openapi payout handlers (spec 4.5-4.7): parse -> service -> view. Paths and docs: merchant-api.ts.
import { keyInForce } from "../../merchants/service";
import type { Handler, MerchantApiDeps } from "../merchant-api";
import { signed } from "../signed";
import { parse } from "../../lib/validate";
import { CreatePayoutBody, SubmitPayoutBody } from "../../payout/schemas";
import { createPayout, getPayout, requestSubmit } from "../../payout/service";
import { payoutView } from "../../payout/views";
import { AppError } from "../../errors";
import type { ChainCode } from "../../chains/types";

/** Handlers of the payout rows of the route table (merchant-api.ts). */
export const payoutHandlers = {
  createPayoutOrder: ({ ctx, auth, executor }: MerchantApiDeps): Handler => ({ request }) =>
    signed(auth, request, async ({ merchant, key, body }) => {
      const input = parse(CreatePayoutBody, body);
      const { order, created } = await createPayout(ctx, merchant.id, await keyInForce(ctx.db, merchant.id, key.id), input);
      // The first automatic submission runs before answering (spec 3.2: the status may be beyond submitted).
      return payoutView(created ? await executor.attempt(order.id) : order);
    }),
  getPayoutOrder: ({ ctx, auth }: MerchantApiDeps): Handler => ({ request, params }) =>
    signed(auth, request, async ({ merchant }) => payoutView(await getPayout(ctx.db, merchant.id, params.orderNo!))),
  submitPayoutOrder: ({ ctx, auth, executor }: MerchantApiDeps): Handler => ({ request, params }) =>
    signed(auth, request, async ({ merchant, body }) => {
      const input = parse(SubmitPayoutBody, body ?? {});
      const order = await requestSubmit(ctx, merchant.id, params.orderNo!, input.remark);
      // Disabled since the order was made: nothing can sign or send it (the executor would throw, a 500).
      if (!ctx.chains.has(order.chain as ChainCode)) throw new AppError(31001, { chainCode: order.chain }, "Chain not enabled on this gateway");
      return payoutView(await executor.attempt(order.id));
    }),
};
