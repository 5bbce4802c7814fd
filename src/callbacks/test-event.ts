// "Send test callback" (developer settings): a signed test event to the
// merchant's default callback URL, written to the ordinary outbox so it is
// delivered, retried and recorded like any order callback.
import { type Db, writeTx } from "../db/client";
import { enqueueCallback } from "./outbox";
import { callbackAttemptsOf, type CallbackRow, recentTestCallbackRows } from "./store";
import { currentKey, findMerchantById } from "../merchants/service";
import { newId } from "../lib/ids";
import { mapSeq } from "../lib/async-seq";

export class NoDefaultCallbackUrl extends Error {
  constructor() {
    super("set a default callback URL first");
  }
}

/** DESIGN 10: "Send test callback" at most this often per merchant (each event is retried on its schedule). */
export const TEST_CALLBACK_LIMIT = { perWindow: 5, windowMs: 60_000 };

export class TestCallbackLimit extends Error {
  constructor() {
    super(`at most ${TEST_CALLBACK_LIMIT.perWindow} test callbacks a minute; try again shortly`);
  }
}

// Sliding window per merchant, in memory (one process serves everything, DESIGN 16): the times of
// the last sends, per database. Synchronous, so parallel clicks cannot pass together.
const sentAt = new WeakMap<object, Map<number, number[]>>();
function takeTestSlot(db: Db, merchantId: number, now: number): void {
  let byMerchant = sentAt.get(db);
  if (!byMerchant) sentAt.set(db, (byMerchant = new Map()));
  const recent = (byMerchant.get(merchantId) ?? []).filter((t) => t > now - TEST_CALLBACK_LIMIT.windowMs);
  if (recent.length >= TEST_CALLBACK_LIMIT.perWindow) throw new TestCallbackLimit();
  recent.push(now);
  byMerchant.set(merchantId, recent);
}

/** Queues the test event; returns its eventId. Signed with the merchant's current key. */
export async function sendTestCallback(deps: { db: Db; now: () => number }, merchantId: number): Promise<string> {
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const m = await findMerchantById(tx, merchantId);
    if (!m) throw new Error(`no merchant ${merchantId}`);
    if (!m.defaultCallbackUrl) throw new NoDefaultCallbackUrl();
    takeTestSlot(deps.db, merchantId, now);
    const key = await currentKey(tx, merchantId);
    if (!key) throw new Error(`merchant ${m.uid} has no current API key`);
    // Its own "order number" so per-order delivery ordering never holds it behind real orders.
    const orderNo = newId("TEST");
    return await enqueueCallback(tx, {
      merchantId,
      kind: "test",
      orderNo,
      status: "test",
      apiKeyId: key.id,
      url: m.defaultCallbackUrl,
      payload: { merchantUid: m.uid, businessType: "test", orderNo, status: "test", message: "stablegate test callback: verify the signature, then answer 2xx" },
      now,
    });
  });
}

/** The merchant's latest test events with their delivery attempts (newest first). */
export async function recentTestCallbacks(db: Db, merchantId: number, limit = 5): Promise<Array<CallbackRow & { attemptRows: Awaited<ReturnType<typeof callbackAttemptsOf>> }>> {
  return await mapSeq((await recentTestCallbackRows(db, merchantId, limit)), async (r) => ({ ...r, attemptRows: await callbackAttemptsOf(db, r.id) }));
}
