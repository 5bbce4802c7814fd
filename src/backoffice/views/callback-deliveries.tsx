/** @jsxImportSource @kitajs/html */
// An order's (or invoice's) callbacks: each event with its state in words, its target, every
// delivery attempt (time, HTTP status, latency, response excerpt, the error in plain words) and
// "Resend" for a delivered or failed one. The words for a state and a target are shared with the
// callbacks page (pages/callbacks.tsx).
import { plainErrorOf } from "../../callbacks/plain-error";
import { textOf } from "../../i18n/catalog";
import type { callbackAttempts, callbacks } from "../../db/schema";
import type { BackofficeDeps, Viewer } from "../guard";
import { ActionButton, TableWrap, Time } from "./common";
import { locale, tr, trf, trm } from "../i18n";

/** A delivery error in plain words (src/callbacks/plain-error.ts), in the page's language, by its code. */
export function plainErrorText(error: string | null | undefined, httpStatus?: number | null): string | null {
  const p = plainErrorOf(error, httpStatus);
  return p === null ? null : textOf(locale(), p.code, p.params);
}

export interface CallbackWithAttempts {
  callback: typeof callbacks.$inferSelect;
  attempts: (typeof callbackAttempts.$inferSelect)[];
}

/** Deliveries at most per event: the first and one per retry delay (DESIGN 7). */
export const maxDeliveries = (d: BackofficeDeps) => 1 + d.ctx.ms.retryDelays.length;

const iso = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

/** What the state words need of an event. */
export interface EventFacts {
  state: string;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  lastStatus: number | null;
  /** The earlier unfinished event of the same order this one waits behind. */
  waitingBehind: string | null;
}

/** The badge (queued, retrying, sending, delivered, gave up, held) and a sentence saying why. */
export function eventState(e: EventFacts, now: number, maxDeliveries: number): { badge: string; css: string; words: string } {
  switch (e.state) {
    case "held":
      return { badge: tr("held"), css: "pending", words: tr("No callback URL: it goes out once the merchant sets a default callback URL.") };
    case "delivering":
      return { badge: tr("sending"), css: "pending", words: tr("Being sent now.") };
    case "delivered":
      return {
        badge: tr("delivered"),
        css: "delivered",
        words: trf(e.attempts === 1 ? "Delivered{http} after {n} attempt." : "Delivered{http} after {n} attempts.", { http: e.lastStatus ? ` (HTTP ${e.lastStatus})` : "", n: e.attempts }),
      };
    case "failed":
      return { badge: tr("gave up"), css: "failed", words: trf(e.attempts === 1 ? 'Gave up after {n} attempt. "Resend" queues it again with the same eventId.' : 'Gave up after {n} attempts. "Resend" queues it again with the same eventId.', { n: e.attempts }) };
    default: {
      if (e.waitingBehind) return { badge: tr(e.attempts ? "retrying" : "queued"), css: "pending", words: trf("Waiting behind an earlier event of this order ({id}): an order's events go out in order.", { id: e.waitingBehind }) };
      if (e.attempts > 0)
        return {
          badge: tr("retrying"),
          css: "pending",
          words: trf("Retrying at {at} UTC (attempt {n} of {max}).", { at: iso(e.nextAttemptAt), n: e.attempts + 1, max: maxDeliveries }),
        };
      return { badge: tr("queued"), css: "pending", words: e.nextAttemptAt > now ? trf("Queued: due at {at} UTC.", { at: iso(e.nextAttemptAt) }) : tr("Queued: goes out as soon as a delivery slot is free.") };
    }
  }
}

/**
 * Where an event goes (or went): the URL its last attempt was sent to, else its own notifyUrl,
 * else the merchant's default callback URL; "no target" only for an event that has none.
 */
export function eventTarget(p: { state: string; url: string | null; attemptUrl: string | null; defaultUrl?: string | null }): { url: string | null; note: string } {
  if (p.attemptUrl) return { url: p.attemptUrl, note: p.url ? "" : tr("the merchant's default callback URL") };
  if (p.url) return { url: p.url, note: "" };
  if (p.state === "held" || p.defaultUrl === null) return { url: null, note: tr("no target: held until a default callback URL is set") };
  return { url: p.defaultUrl ?? null, note: tr("the merchant's default callback URL") };
}

export function EventStateBadge(p: { s: { badge: string; css: string } }): JSX.Element {
  return (
    <span class={`badge s-${p.s.css}`} safe>
      {p.s.badge}
    </span>
  );
}

export function TargetText(p: { t: { url: string | null; note: string } }): JSX.Element {
  return (
    <>
      {p.t.url ? (
        <span class="mono" safe>
          {p.t.url}
        </span>
      ) : (
        <></>
      )}
      {p.t.note ? <span class="muted" safe>{p.t.url ? ` (${p.t.note})` : p.t.note}</span> : <></>}
    </>
  );
}

export function CallbackDeliveries(p: {
  viewer: Viewer;
  callbacks: CallbackWithAttempts[];
  back: string;
  empty: string;
  /** The clock now (ms) and the deliveries at most per event (maxDeliveries): the state words. */
  now: number;
  maxDeliveries: number;
  /** The merchant's default callback URL now (undefined: not known here). */
  defaultUrl?: string | null;
}): JSX.Element {
  // Events of one order go out in the order they were written: an unfinished earlier one holds the later ones.
  const open = (s: string) => s === "pending" || s === "delivering";
  const behind = (i: number) => (open(p.callbacks[i]!.callback.state) ? (p.callbacks.slice(0, i).find((x) => open(x.callback.state))?.callback.id ?? null) : null);
  return (
    <>
      {p.callbacks.length ? (
        p.callbacks.map(({ callback: c, attempts }, i) => {
          const last = attempts[attempts.length - 1];
          const s = eventState(
            { state: c.state, attempts: c.attempts, nextAttemptAt: c.nextAttemptAt, lastError: c.lastError, lastStatus: last?.httpStatus ?? null, waitingBehind: c.state === "pending" ? behind(i) : null },
            p.now,
            p.maxDeliveries,
          );
          const target = eventTarget({ state: c.state, url: c.url, attemptUrl: last?.url ?? null, defaultUrl: p.defaultUrl });
          const error = c.state === "delivered" ? null : plainErrorText(c.lastError, last?.httpStatus ?? null);
          return (
            <section class="card" aria-label={trf("Callback {id}", { id: c.id })}>
              <p>
                <span safe>{trf("Event {id} · status {status} · ", { id: c.id, status: c.status })}</span>
                <EventStateBadge s={s} /> <span safe>{s.words}</span>
              </p>
              <p>
                <span>{trm("Target: ")}</span>
                <TargetText t={target} />
              </p>
              {error ? <p safe>{trf("Last error: {error}", { error })}</p> : <></>}
              {c.state === "failed" || c.state === "delivered" ? (
                <ActionButton viewer={p.viewer} action={`/backoffice/callbacks/${c.id}/resend`} fields={{ back: p.back }} label="Resend" ariaLabel={trf("Resend {status} callback", { status: c.status })} kind="secondary" />
              ) : (
                <></>
              )}
              {attempts.length ? (
                <TableWrap label={trf("Delivery attempts of {id}", { id: c.id })}>
                  <table class="rowcards">
                    <thead>
                      <tr>
                        <th scope="col">{trm("Attempt")}</th>
                        <th scope="col">{trm("Time")}</th>
                        <th scope="col">{trm("HTTP status")}</th>
                        <th scope="col">{trm("Latency")}</th>
                        <th scope="col">{trm("Response")}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {attempts.map((a, i) => {
                        const words = plainErrorText(a.error, a.httpStatus);
                        return (
                          <tr data-attempt>
                            <td data-label={tr("Attempt")} safe>
                              {String(i + 1)}
                            </td>
                            <td data-label={tr("Time")}>
                              <Time ms={a.startedAt} />
                            </td>
                            <td data-label={tr("HTTP status")} safe>
                              {a.httpStatus === null ? "—" : String(a.httpStatus)}
                            </td>
                            <td data-label={tr("Latency")} safe>
                              {a.durationMs === null ? "—" : trf("{ms} ms", { ms: a.durationMs })}
                            </td>
                            <td class="wrap" data-label={tr("Response")}>
                              {words ? <span safe>{words}</span> : <></>}
                              {a.responseBody ? <span safe>{`${words ? " · " : ""}${a.responseBody.slice(0, 200)}`}</span> : <></>}
                            </td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </TableWrap>
              ) : (
                <p class="muted">{trm("No delivery attempt yet.")}</p>
              )}
            </section>
          );
        })
      ) : (
        <p safe>{tr(p.empty)}</p>
      )}
    </>
  );
}
