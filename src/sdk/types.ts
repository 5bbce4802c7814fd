// Request and result types of the merchant API, derived from the gateway's
// TypeBox schemas (the same ones that validate requests and describe
// /openapi.json). Type-only imports: nothing of the server is loaded at run time.
import type { Static } from "@sinclair/typebox";
import type { BindingDetailQuery, BindingDetailView, BindingView, CreateBindingBody, CreatePayinBody, PayinOrderView } from "../payin/schemas";
import type { CreatePayoutBody, PayoutOrderView, SubmitPayoutBody } from "../payout/schemas";

export type CreatePayinOrderInput = Static<typeof CreatePayinBody>;
export type PayinOrder = Static<typeof PayinOrderView>;
export type CreateExclusiveBindingInput = Static<typeof CreateBindingBody>;
export type ExclusiveBinding = Static<typeof BindingView>;
/** recentLimit may be given as a number; it is sent as a query string. */
export type GetExclusiveBindingOptions = Omit<Static<typeof BindingDetailQuery>, "recentLimit"> & { recentLimit?: number | string };
export type ExclusiveBindingDetail = Static<typeof BindingDetailView>;
export type CreatePayoutOrderInput = Static<typeof CreatePayoutBody>;
export type PayoutOrder = Static<typeof PayoutOrderView>;
export type SubmitPayoutOrderInput = Static<typeof SubmitPayoutBody>;
export type SubmitPayoutResult = PayoutOrder;

/** The failure body of every error (spec 7). */
export interface FailureBody {
  code: number;
  message: string;
  data: Record<string, unknown> | null;
  requestId: string | null;
}
