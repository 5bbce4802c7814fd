/** @jsxImportSource @kitajs/html */
// Look up a transaction (DESIGN 25), operator and merchant: any hash on any enabled chain, what
// the chain says (block, finality, every token transfer) and what the gateway knows of each
// transfer to its addresses (credited to which order, unmatched, unknown), with "Import" for an
// unknown one (payin/tx-lookup.ts: through the scan's funnel, idempotent, audited).
import { Elysia } from "elysia";
import { action, actorOf, type BackofficeDeps, page, redirect, str, type Viewer } from "../guard";
import { Csrf, DataTable, Notice } from "../views/common";
import { Layout } from "../views/layout";
import { ChainRef } from "../views/explorer";
import { locale, tr, trf, trm } from "../i18n";
import { errorText } from "../../i18n/catalog";
import { importTransfer, lookUpTransaction, type LookedUpTransfer, type TxLookupReport } from "../../payin/tx-lookup";
import { OperatorError } from "../../payin/operator-error";
import { fromBaseUnits } from "../../lib/money";
import type { TokenInfo } from "../../chains/types";
import type { DisplayCtx } from "../format";

const STATE_TEXT: Record<TxLookupReport["lookup"]["state"], string> = {
  malformed: "This is not a transaction hash on that chain.",
  not_found: "No node of this chain knows this transaction (yet).",
  pending: "Known to the network, in no block yet.",
  included: "In a block.",
};

const KNOWN_TEXT: Record<LookedUpTransfer["known"], string> = {
  unknown: "unknown to the gateway",
  credited: "credited",
  unmatched: "unmatched (kept for review)",
  other: "recorded",
};

function amountText(tokens: readonly TokenInfo[], t: LookedUpTransfer): string {
  const token = tokens.find((x) => x.symbol === t.token);
  return token ? `${fromBaseUnits(t.amount, token.decimals, 0)} ${token.symbol}` : trf("{units} base units of {contract}", { units: t.amount.toString(), contract: t.contract });
}

interface LookupProps {
  v: Viewer;
  /** The enabled chains (the form's choices). */
  chains: string[];
  display: DisplayCtx;
  /** The looked-up chain's configured tokens (amounts in their decimals). */
  tokens: readonly TokenInfo[];
  chain: string;
  hash: string;
  report?: TxLookupReport;
  error?: string;
  notice?: string;
}

function LookupPage(p: LookupProps): JSX.Element {
  const { v, report, chains } = p;
  const look = report?.lookup;
  return (
    <Layout title="Look up a transaction" viewer={v} path="/backoffice/lookup">
      <p class="muted" safe>
        {tr("Any transaction hash on any enabled chain: what the chain says, and what the gateway knows of each token transfer to its addresses.")}
      </p>
      <form method="get" action="/backoffice/lookup" class="filters">
        <label>
          {trm("Chain")}
          <select name="chain">
            {chains.map((c) => (
              <option value={c} selected={c === p.chain} safe>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label>
          {trm("Transaction hash")}
          <input name="hash" value={p.hash} required maxlength="200" autocomplete="off" spellcheck="false" class="mono" />
        </label>
        <button type="submit">{trm("Look up")}</button>
      </form>
      <Notice kind="error" text={p.error} />
      <Notice text={p.notice} />
      {look ? (
        <section aria-label={tr("What the chain says")} data-testid="lookup-result" data-state={look.state}>
          <h2>{trm("What the chain says")}</h2>
          <p safe>{tr(STATE_TEXT[look.state])}</p>
          {look.state === "included" ? (
            <>
              <p safe>
                {trf("Block {block}, {confirmations} confirmations, {final}; {success}.", {
                  block: look.blockNumber.toString(),
                  confirmations: String(look.confirmations),
                  final: look.final ? tr("final") : tr("not final yet"),
                  success: look.success ? tr("succeeded") : tr("failed on chain, it moved nothing"),
                })}
              </p>
              <p>
                <ChainRef ctx={p.display} chain={report!.chain} kind="tx" value={look.txHash} />
              </p>
              <h2>{trm("Token transfers")}</h2>
              <DataTable
                label="Token transfers"
                head={["Index", "Amount", "From", "To", "Gateway", { hidden: "Action" }]}
                rows={report!.transfers}
                empty="This transaction moves no token."
                row={(t) => (
                  <tr data-index={String(t.logIndex)} data-known={t.known}>
                    <td safe>{String(t.logIndex)}</td>
                    <td safe>{amountText(p.tokens, t)}</td>
                    <td class="mono" safe>
                      {t.from}
                    </td>
                    <td class="mono" safe>
                      {t.to}
                    </td>
                    <td>
                      {!t.gatewayAddress ? (
                        <span safe>{tr("not a gateway address")}</span>
                      ) : t.orderNo ? (
                        <a href={`/backoffice/orders/${encodeURIComponent(t.orderNo)}`} safe>
                          {trf("credited to {orderNo}", { orderNo: t.orderNo })}
                        </a>
                      ) : (
                        <span safe>{tr(KNOWN_TEXT[t.known]) + (t.unmatchedReason ? ` (${t.unmatchedReason})` : "")}</span>
                      )}
                    </td>
                    <td>
                      {t.importable ? (
                        <form method="post" action="/backoffice/lookup/import">
                          <Csrf viewer={v} />
                          <input type="hidden" name="chain" value={report!.chain} />
                          <input type="hidden" name="hash" value={look.txHash} />
                          <input type="hidden" name="logIndex" value={String(t.logIndex)} />
                          <button type="submit">{trm("Import")}</button>
                        </form>
                      ) : (
                        <></>
                      )}
                    </td>
                  </tr>
                )}
              />
            </>
          ) : (
            <></>
          )}
        </section>
      ) : (
        <></>
      )}
    </Layout>
  );
}

const scopeOf = (v: Viewer) => ({ merchantId: v.merchantId });

/** The page's props from the gateway (loaded in the route handler). */
function props(d: BackofficeDeps, v: Viewer, chain: string, hash: string, more: Partial<LookupProps> = {}): LookupProps {
  return { v, chains: [...d.ctx.chains.keys()], display: d.ctx, tokens: d.ctx.chains.get(chain as never)?.tokens ?? [], chain, hash, ...more };
}

export function lookupRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-lookup" })
    .get(
      "/backoffice/lookup",
      page(d, {}, async (v, { query }) => {
        const chain = (query.chain ?? "").slice(0, 16) || ([...d.ctx.chains.keys()][0] ?? "");
        const hash = (query.hash ?? "").trim().slice(0, 200);
        if (!hash) return LookupPage(props(d, v, chain, hash));
        try {
          const report = await lookUpTransaction(d.ctx, chain, hash, scopeOf(v));
          return LookupPage(props(d, v, chain, hash, { report, notice: query.done === "imported" ? "Imported: the transfer went through the same matching as a scanned one." : undefined }));
        } catch (e) {
          if (e instanceof OperatorError) return LookupPage(props(d, v, chain, hash, { error: errorText(locale(), e) }));
          return LookupPage(props(d, v, chain, hash, { error: "The chain could not be asked right now. Try again in a moment." }));
        }
      }),
    )
    .post(
      "/backoffice/lookup/import",
      action(d, { reauth: true }, async (v, { body }) => {
        const chain = str(body.chain).slice(0, 16);
        const hash = str(body.hash).trim().slice(0, 200);
        const logIndex = Number(str(body.logIndex));
        if (!Number.isInteger(logIndex) || logIndex < 0) return LookupPage(props(d, v, chain, hash, { error: "Choose a transfer to import." }));
        try {
          await importTransfer(d.ctx, chain, hash, logIndex, actorOf(v), scopeOf(v));
        } catch (e) {
          if (e instanceof OperatorError) return LookupPage(props(d, v, chain, hash, { error: errorText(locale(), e) }));
          throw e;
        }
        return redirect(`/backoffice/lookup?chain=${encodeURIComponent(chain)}&hash=${encodeURIComponent(hash)}&done=imported`);
      }),
    );
}
