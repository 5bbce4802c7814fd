// The rows the chain stores' contract tests build on (a merchant, a gas address, a payout order),
// written on the test engine's database (src/testing/engine-rows.ts insertRows).
import type { Db } from "../db/client";
import { addresses, merchants, payoutOrders } from "../db/schema";
import { insertRows } from "./engine-rows";

export const FIXTURE_NOW = Date.parse("2026-11-29T09:00:00Z");

/** A merchant, a TRON/SOL address each, and `n` payout orders from the TRON one; their ids. */
export async function payoutFixture(db: Db, n = 2): Promise<{ merchantId: number; tronAddressId: string; solAddressId: string; payoutIds: number[] }> {
  const t = FIXTURE_NOW;
  const [m] = await insertRows(db, merchants, [{ uid: "M9000001", name: "Fixture shop", createdAt: t, updatedAt: t }]);
  const [tron, sol] = await insertRows(db, addresses, [
    { id: "addr-tron-1", chain: "TRON", kind: "gas", derivationIndex: 0, address: "TFixtureFromAddress1111111111111", createdAt: t },
    { id: "addr-sol-1", chain: "SOL", kind: "shared", derivationIndex: 0, address: "So1FixtureOwner11111111111111111111111111111", merchantId: m!.id, createdAt: t },
  ]);
  const orders = await insertRows(
    db,
    payoutOrders,
    Array.from({ length: n }, (_, i) => ({
      orderNo: `PO2026112909000000000000${i}`,
      merchantId: m!.id,
      merchantOrderNo: `po-${i}`,
      chain: "TRON",
      token: "USDT",
      decimals: 6,
      fromAddressId: tron!.id,
      fromAddress: tron!.address,
      toAddress: "TFixtureToAddress22222222222222222",
      amount: "1000000",
      deleteSourceAfterSuccess: false,
      apiKeyId: "key-1",
      status: "submitted" as const,
      createdAt: t,
      updatedAt: t,
    })),
  );
  return { merchantId: m!.id, tronAddressId: tron!.id, solAddressId: sol!.id, payoutIds: orders.map((o) => o.id) };
}
