// /openapi invoice handlers (DESIGN 18): parse -> service -> view. Paths and docs: merchant-api.ts.
import { keyInForce } from "../../merchants/service";
import type { Handler, MerchantApiDeps } from "../merchant-api";
import { signed, signedWrite } from "../signed";
import { parse } from "../../lib/validate";
import { CreateInvoiceBody } from "../../invoices/schemas";
import { createInvoice, getInvoice } from "../../invoices/service";
import { currentPayin } from "../../payin/orders-store";
import { invoiceView } from "../../invoices/views";

export const invoiceHandlers = {
  createInvoice: ({ ctx, auth }: MerchantApiDeps): Handler => ({ request }) =>
    signedWrite(auth, request, async ({ merchant, key, body }) => {
      const input = parse(CreateInvoiceBody, body);
      const inv = await createInvoice(ctx, merchant.id, await keyInForce(ctx.db, merchant.id, key.id), input);
      return invoiceView(inv, await currentPayin(ctx.db, inv));
    }),
  getInvoice: ({ ctx, auth }: MerchantApiDeps): Handler => ({ request, params }) =>
    signed(auth, request, async ({ merchant }) => {
      const inv = await getInvoice(ctx.db, merchant.id, params.invoiceNo!);
      return invoiceView(inv, await currentPayin(ctx.db, inv));
    }),
};
