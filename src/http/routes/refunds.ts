// /openapi refund handlers (DESIGN 20): parse -> service -> view. Paths and docs: merchant-api.ts.
import { keyInForce } from "../../merchants/service";
import type { Handler, MerchantApiDeps } from "../merchant-api";
import { signed } from "../signed";
import { parse } from "../../lib/validate";
import { CreateRefundBody } from "../../payout/refund-schemas";
import { createRefund, listRefunds, refundByRef } from "../../payout/refunds";
import { refundView } from "../../payout/refund-views";

export const refundHandlers = {
  createRefund: ({ ctx, auth, executor }: MerchantApiDeps): Handler => ({ request, params }) =>
    signed(auth, request, async ({ merchant, key, body }) => {
      const input = parse(CreateRefundBody, body);
      const { refund, payout } = await createRefund(ctx, merchant.id, params.orderNo!, input, { source: "api", apiKeyId: await keyInForce(ctx.db, merchant.id, key.id) });
      // As a payout: the first automatic submission runs before answering (the status may be beyond submitted).
      if (!payout) return refundView(refund);
      await executor.attempt(payout.id);
      return refundView((await refundByRef(ctx.db, refund.refundRef))!);
    }),
  listRefunds: ({ ctx, auth }: MerchantApiDeps): Handler => ({ request, params }) =>
    signed(auth, request, async ({ merchant }) => ({ refunds: (await listRefunds(ctx, merchant.id, params.orderNo!)).map(refundView) })),
};
