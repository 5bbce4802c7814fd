/** @jsxImportSource @kitajs/html */
// An order's (or invoice's) callbacks: each event with its state and target, every delivery attempt
// (time, HTTP status, latency, response excerpt) and "Resend" for a delivered or failed one.
import type { callbackAttempts, callbacks } from "../../db/schema";
import type { Viewer } from "../guard";
import { ActionButton, StatusBadge, TableWrap, Time } from "./common";

export interface CallbackWithAttempts {
  callback: typeof callbacks.$inferSelect;
  attempts: (typeof callbackAttempts.$inferSelect)[];
}

export function CallbackDeliveries(p: { viewer: Viewer; callbacks: CallbackWithAttempts[]; back: string; empty: string }): JSX.Element {
  return (
    <>
      {p.callbacks.length ? (
        p.callbacks.map(({ callback: c, attempts }) => (
          <section class="card" aria-label={`Callback ${c.id}`}>
            <p>
              <span safe>{`Event ${c.id} · status ${c.status} · `}</span>
              <StatusBadge status={c.state} />
              <span class="mono" safe>{` ${c.url ?? "(no target: held until a default callback URL is set)"}`}</span>
            </p>
            {c.state === "failed" || c.state === "delivered" ? (
              <ActionButton viewer={p.viewer} action={`/backoffice/callbacks/${c.id}/resend`} fields={{ back: p.back }} label="Resend" ariaLabel={`Resend ${c.status} callback`} kind="secondary" />
            ) : (
              <></>
            )}
            <TableWrap label={`Delivery attempts of ${c.id}`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Attempt</th>
                    <th scope="col">Time</th>
                    <th scope="col">HTTP status</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Response</th>
                  </tr>
                </thead>
                <tbody>
                  {attempts.map((a, i) => (
                    <tr data-attempt>
                      <td safe>{String(i + 1)}</td>
                      <td>
                        <Time ms={a.startedAt} />
                      </td>
                      <td safe>{a.httpStatus === null ? "—" : String(a.httpStatus)}</td>
                      <td safe>{a.durationMs === null ? "—" : `${a.durationMs} ms`}</td>
                      <td class="mono wrap" safe>
                        {(a.error ? `${a.error} ` : "") + (a.responseBody ?? "").slice(0, 200)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </section>
        ))
      ) : (
        <p safe>{p.empty}</p>
      )}
    </>
  );
}
