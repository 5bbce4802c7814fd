// Serves the hosted pages with in-memory sample orders, one per state, to look
// at them in a browser while working on them: bun scripts/preview-checkout.ts [port]
import { Elysia } from "elysia";
import { MemoryCheckout, sampleDeposit, sampleOrder } from "../src/testing/checkout-memory";
import { checkoutRoutes } from "../src/checkout/routes";
import { PAYIN_STATUSES } from "../src/checkout/types";

const store = new MemoryCheckout();
const links: string[] = [];
for (const status of PAYIN_STATUSES) {
  const paid = status !== "waiting_payment" && status !== "expired" && status !== "cancelled";
  store.addOrder(`preview_${status}`, sampleOrder({
    status,
    paidAmount: paid ? "12.345600" : null,
    confirmations: status === "confirming" ? 2 : paid ? 3 : 0,
    txHash: paid ? "9f".repeat(32) : null,
    completedAt: status === "completed" ? new Date().toISOString() : null,
  }));
  links.push(`/checkout/preview_${status}`);
}
store.deposits.set("preview_deposit", sampleDeposit({
  label: "Player 42",
  recentDeposits: [{ amount: "25.000000", status: "completed", txHash: "0x01", createdAt: new Date().toISOString() }],
}));
links.push("/deposit/preview_deposit");

const port = Number(process.argv[2] ?? 8090);
const app = new Elysia().use(checkoutRoutes(store.deps())).listen({ hostname: "127.0.0.1", port });
for (const l of links) console.log(`http://127.0.0.1:${app.server!.port}${l}`);
