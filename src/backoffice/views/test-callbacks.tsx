/** @jsxImportSource @kitajs/html */
// The last test callbacks of a merchant with their delivery (developer settings, and the
// operator's merchant page after onboarding).
import type { Db } from "../../db/client";
import { NoDefaultCallbackUrl, recentTestCallbacks, sendTestCallback, TestCallbackLimit } from "../../callbacks/test-event";
import { DataTable, StatusBadge, Time } from "./common";
import { tr } from "../i18n";
import { plainErrorText } from "./callback-deliveries";

/** A merchant's last test callbacks, as its page's loader read them (recentTestCallbacks). */
export type TestCallbackRow = Awaited<ReturnType<typeof recentTestCallbacks>>[number];

export function TestCallbacks(p: { rows: TestCallbackRow[] }): JSX.Element {
  return (
    <DataTable
      label={tr("Test callbacks")}
      head={[tr("Sent"), tr("URL"), tr("Delivery"), tr("HTTP status"), tr("Latency"), tr("Response")]}
      rows={p.rows}
      empty={tr("No test callback sent yet.")}
      row={(t) => {
        const last = t.attemptRows[t.attemptRows.length - 1];
        // A failure in plain words, as the callbacks page says it; an answer as the target sent it.
        return (
          <tr data-testid="test-callback">
            <td>
              <Time ms={t.createdAt} />
            </td>
            <td class="mono wrap" safe>
              {t.url ?? ""}
            </td>
            <td>
              <StatusBadge status={t.state} />
            </td>
            <td safe>{last?.httpStatus === null || last?.httpStatus === undefined ? "—" : String(last.httpStatus)}</td>
            <td safe>{last?.durationMs === null || last?.durationMs === undefined ? "—" : `${last.durationMs} ms`}</td>
            <td class="mono wrap" safe>
              {(last?.error ? (plainErrorText(last.error, last.httpStatus) ?? last.error) : (last?.responseBody ?? "")).slice(0, 200)}
            </td>
          </tr>
        );
      }}
    />
  );
}

/**
 * Queues a test callback for a merchant (developer settings, the operator's merchant page): null when
 * queued, else the plain-words refusal and its status (DESIGN 10: at most 5 a minute per merchant).
 */
export async function queueTestCallback(deps: { db: Db; now: () => number; kick(): void }, merchantId: number): Promise<{ error: string; status: number } | null> {
  try {
    await sendTestCallback(deps, merchantId);
  } catch (e) {
    if (e instanceof NoDefaultCallbackUrl) return { error: tr("Set a default callback URL first: the test callback goes there."), status: 200 };
    if (e instanceof TestCallbackLimit) return { error: tr("At most 5 test callbacks a minute. Try again shortly."), status: 429 };
    throw e;
  }
  deps.kick();
  return null;
}
