/** @jsxImportSource @kitajs/html */
// The last test callbacks of a merchant with their delivery (developer settings, and the
// operator's merchant page after onboarding).
import type { Db } from "../../db/client";
import { NoDefaultCallbackUrl, recentTestCallbacks, sendTestCallback, TestCallbackLimit } from "../../callbacks/test-event";
import { StatusBadge, TableWrap, Time } from "./common";

export function TestCallbacks(p: { db: Db; merchantId: number }): JSX.Element {
  const tests = recentTestCallbacks(p.db, p.merchantId);
  return (
    <TableWrap label="Test callbacks">
      <table>
        <thead>
          <tr>
            <th scope="col">Sent</th>
            <th scope="col">URL</th>
            <th scope="col">Delivery</th>
            <th scope="col">HTTP status</th>
            <th scope="col">Latency</th>
            <th scope="col">Response</th>
          </tr>
        </thead>
        <tbody>
          {tests.length === 0 ? (
            <tr>
              <td colspan="6">No test callback sent yet.</td>
            </tr>
          ) : (
            tests.map((t) => {
              const last = t.attemptRows[t.attemptRows.length - 1];
              return (
                <tr data-testid="test-callback">
                  <td data-label="Sent">
                    <Time ms={t.createdAt} />
                  </td>
                  <td class="mono wrap" data-label="URL" safe>
                    {t.url ?? ""}
                  </td>
                  <td data-label="Delivery">
                    <StatusBadge status={t.state} />
                  </td>
                  <td data-label="HTTP status" safe>
                    {last?.httpStatus === null || last?.httpStatus === undefined ? "—" : String(last.httpStatus)}
                  </td>
                  <td data-label="Latency" safe>
                    {last?.durationMs === null || last?.durationMs === undefined ? "—" : `${last.durationMs} ms`}
                  </td>
                  <td class="mono wrap" data-label="Response" safe>
                    {(last?.error ?? last?.responseBody ?? "").slice(0, 200)}
                  </td>
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </TableWrap>
  );
}

/**
 * Queues a test callback for a merchant (developer settings, the operator's merchant page): null when
 * queued, else the plain-words refusal and its status (DESIGN 10: at most 5 a minute per merchant).
 */
export function queueTestCallback(deps: { db: Db; now: () => number; kick(): void }, merchantId: number): { error: string; status: number } | null {
  try {
    sendTestCallback(deps, merchantId);
  } catch (e) {
    if (e instanceof NoDefaultCallbackUrl) return { error: "Set a default callback URL first: the test callback goes there.", status: 200 };
    if (e instanceof TestCallbackLimit) return { error: "At most 5 test callbacks a minute. Try again shortly.", status: 429 };
    throw e;
  }
  deps.kick();
  return null;
}
