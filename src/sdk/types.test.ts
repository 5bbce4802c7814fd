// Type-level test (checked by `tsc --noEmit`, which `make test` runs first):
// the SDK's standalone types describe exactly what the gateway's schemas do.
import { expect, test } from "bun:test";
import type { Static } from "@sinclair/typebox";
import type * as payin from "../payin/schemas";
import type * as payout from "../payout/schemas";
import type * as sdk from "./types";
import type * as invoice from "../invoices/schemas";
import type * as refund from "../payout/refund-schemas";

type Keys<T> = keyof T & string;
/** Compiles only when A and B have the same member names. */
type SameKeys<A, B> = [Exclude<Keys<A>, Keys<B>>, Exclude<Keys<B>, Keys<A>>] extends [never, never] ? true : { onlyLeft: Exclude<Keys<A>, Keys<B>>; onlyRight: Exclude<Keys<B>, Keys<A>> };
/** Every SDK value is something the server type allows (SDK types are the narrower ones). */
type Narrower<A, B> = A extends B ? true : false;

const checks = {
  createPayin: true as SameKeys<sdk.CreatePayinOrderInput, Static<typeof payin.CreatePayinBody>>,
  payinOrder: true as SameKeys<sdk.PayinOrder, Static<typeof payin.PayinOrderView>>,
  payinOrderValues: true as Narrower<sdk.PayinOrder, Static<typeof payin.PayinOrderView>>,
  createBinding: true as SameKeys<sdk.CreateExclusiveBindingInput, Static<typeof payin.CreateBindingBody>>,
  binding: true as SameKeys<sdk.ExclusiveBinding, Static<typeof payin.BindingView>>,
  bindingDetail: true as SameKeys<sdk.ExclusiveBindingDetail, Static<typeof payin.BindingDetailView>>,
  bindingDetailValues: true as Narrower<sdk.ExclusiveBindingDetail, Static<typeof payin.BindingDetailView>>,
  createPayout: true as SameKeys<sdk.CreatePayoutOrderInput, Static<typeof payout.CreatePayoutBody>>,
  payoutOrder: true as SameKeys<sdk.PayoutOrder, Static<typeof payout.PayoutOrderView>>,
  payoutOrderValues: true as Narrower<sdk.PayoutOrder, Static<typeof payout.PayoutOrderView>>,
  submit: true as SameKeys<sdk.SubmitPayoutOrderInput, Static<typeof payout.SubmitPayoutBody>>,
  payinCallback: true as SameKeys<sdk.PayinCallback, Static<typeof payin.PayinCallbackPayload>>,
  payoutCallback: true as SameKeys<sdk.PayoutCallback, Static<typeof payout.PayoutCallbackPayload>>,
  createInvoice: true as SameKeys<sdk.CreateInvoiceInput, Static<typeof invoice.CreateInvoiceBody>>,
  invoice: true as SameKeys<sdk.Invoice, Static<typeof invoice.InvoiceView>>,
  invoiceValues: true as Narrower<sdk.Invoice, Static<typeof invoice.InvoiceView>>,
  invoiceCallback: true as SameKeys<sdk.InvoiceCallback, Static<typeof invoice.InvoiceCallbackPayload>>,
  createRefund: true as SameKeys<sdk.CreateRefundInput, Static<typeof refund.CreateRefundBody>>,
  refund: true as SameKeys<sdk.Refund, Static<typeof refund.RefundView>>,
  refundValues: true as Narrower<sdk.Refund, Static<typeof refund.RefundView>>,
  submitTxHash: true as SameKeys<sdk.SubmitPayinTxHashInput, Static<typeof payin.PayinTxHashBody>>,
  txHashCheck: true as SameKeys<sdk.PayinTxHashCheck, Static<typeof payin.PayinTxHashView>>,
  refundCallback: true as SameKeys<sdk.RefundCallback, Static<typeof refund.RefundCallbackPayload>>,
};

test("SDK types match the gateway's schemas (compile-time; see tsc)", () => {
  expect(Object.values(checks).every((v) => v === true)).toBe(true);
});
