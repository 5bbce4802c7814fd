// /openapi pay-in handlers (spec 4.1-4.4): parse -> service -> view. Paths and docs: merchant-api.ts.
import { keyInForce } from "../../merchants/service";
import type { Handler, MerchantApiDeps } from "../merchant-api";
import { signed, signedWrite } from "../signed";
import { parse } from "../../lib/validate";
import { invalid } from "../../errors";
import { textProblem } from "../../lib/text";
import { BindingDetailQuery, CreateBindingBody, CreatePayinBody, PayinTxHashBody } from "../../payin/schemas";
import { checkPayinTxHash, takeTxHashTurn } from "../../payin/tx-hash";
import { bindKeyOf, createPayinOrder, getPayinOrder } from "../../payin/service";
import { bindingDetail, bindingView, findBinding, upsertBinding } from "../../payin/bindings";
import { payinView, viewDeps } from "../../payin/views";

/** Handlers of the pay-in rows of the route table (merchant-api.ts). */
export const payinHandlers = {
  createPayinOrder: ({ ctx, auth }: MerchantApiDeps): Handler => {
    const views = viewDeps(ctx);
    return ({ request }) =>
      signedWrite(auth, request, async ({ merchant, key, body }) => {
        const input = parse(CreatePayinBody, body);
        return payinView(views, await createPayinOrder(ctx, merchant.id, await keyInForce(ctx.db, merchant.id, key.id), input));
      });
  },
  getPayinOrder: ({ ctx, auth }: MerchantApiDeps): Handler => {
    const views = viewDeps(ctx);
    return ({ request, params }) =>
      signed(auth, request, async ({ merchant }) => {
        const o = await getPayinOrder(ctx.db, merchant.id, params.orderNo!);
        return payinView(views, o, await bindKeyOf(ctx.db, o));
      });
  },
  submitPayinTxHash: ({ ctx, auth }: MerchantApiDeps): Handler => {
    const views = viewDeps(ctx);
    return ({ request, params }) =>
      signed(auth, request, async ({ merchant, body }) => {
        const o = await getPayinOrder(ctx.db, merchant.id, params.orderNo!);
        const { txHash } = parse(PayinTxHashBody, body);
        takeTxHashTurn(ctx, o.orderNo, `merchant:${merchant.id}`);
        const a = await checkPayinTxHash(ctx, o, txHash);
        return { result: a.result, message: a.message, order: payinView(views, a.order, await bindKeyOf(ctx.db, a.order)) };
      });
  },
  createExclusiveBinding: ({ ctx, auth }: MerchantApiDeps): Handler => ({ request }) =>
    signedWrite(auth, request, async ({ merchant, body }) => {
      const input = parse(CreateBindingBody, body);
      return await bindingView(ctx.db, ctx.publicUrl, await upsertBinding(ctx, merchant.id, input));
    }),
  getExclusiveBinding: ({ ctx, auth }: MerchantApiDeps): Handler => ({ request }) =>
    signed(auth, request, async ({ merchant, query }) => {
      const q = queryObject(query);
      const input = parse(BindingDetailQuery, q, "query");
      const b = await findBinding(ctx, merchant.id, { ...input, bindKey: bindKeyParam(request) });
      return await bindingDetail(ctx, ctx.publicUrl, b, input.recentLimit ? Number(input.recentLimit) : 10);
    }),
};

/**
 * Query pairs to an object; a repeated key is a 10001 (every parameter here is single-valued).
 * Empty values are skipped: the canonical query (spec 5.2) leaves them unsigned, so they count as absent.
 */
function queryObject(pairs: Array<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) {
    if (v === "") continue;
    if (k in out) throw invalid({ [k]: "given more than once" });
    out[k] = v;
  }
  return out;
}

/**
 * The bindKey path segment, decoded strictly: the router turns invalid
 * percent-encoded UTF-8 (an encoded lone surrogate, a stray %FF) into U+FFFD,
 * which would find another merchant user's binding. Those are 10001 here.
 */
function bindKeyParam(request: Request): string {
  const path = new URL(request.url).pathname;
  const raw = path.slice(path.lastIndexOf("/") + 1);
  let key: string;
  try {
    key = decodeURIComponent(raw);
  } catch {
    throw invalid({ bindKey: "must be percent-encoded UTF-8 (well-formed Unicode)" });
  }
  const p = textProblem(key, 128);
  if (p) throw invalid({ bindKey: p });
  return key;
}
