// An in-memory stand-in for the gateway behind the hosted pages, for tests and
// for previewing the pages. A simulated payment is detected at once and then
// gains one confirmation per status lookup, but only as many steps as the
// caller allows, so a test can stop at each state to look at it.
import { chainModules } from "../chains/registry";
import type { ChainCode } from "../chains/types";
import type { CheckoutDeps, CheckoutOrderView, DepositView, PayinStatus } from "../checkout/types";

export class MemoryCheckout {
  readonly orders = new Map<string, CheckoutOrderView>();
  readonly deposits = new Map<string, DepositView>();
  readonly sandboxChains = new Set<ChainCode>(chainModules().map((m) => m.code));
  /** Confirmation steps still allowed; Infinity lets a payment run to completion. */
  stepsAllowed = Number.POSITIVE_INFINITY;
  simulateCalls = 0;
  now: () => number = () => Date.now();

  addOrder(token: string, order: CheckoutOrderView): CheckoutOrderView {
    this.orders.set(token, { ...order });
    return this.orders.get(token)!;
  }

  setStatus(token: string, status: PayinStatus): void {
    const o = this.orders.get(token);
    if (o) o.status = status;
  }

  allow(steps: number): void {
    this.stepsAllowed = steps;
  }

  findOrder(token: string): CheckoutOrderView | null {
    const o = this.orders.get(token);
    if (!o) return null;
    if ((o.status === "detected" || o.status === "confirming") && this.stepsAllowed > 0) {
      this.stepsAllowed--;
      o.confirmations++;
      if (o.confirmations >= o.requiredConfirmations) {
        o.status = "completed";
        o.completedAt = new Date(this.now()).toISOString();
      } else {
        o.status = "confirming";
      }
    }
    return { ...o };
  }

  async simulatePayment(token: string): Promise<void> {
    const o = this.orders.get(token);
    if (!o) throw new Error("no such order");
    this.simulateCalls++;
    o.status = "detected";
    o.paidAmount = o.amount;
    o.confirmations = 1;
    o.txHash = `${"ab".repeat(31)}${String(this.simulateCalls).padStart(2, "0")}`;
  }

  deps(options: { pollIntervalMs?: number; simulate?: boolean } = {}): CheckoutDeps {
    return {
      findOrder: async (t) => this.findOrder(t),
      findDeposit: async (t) => {
        const d = this.deposits.get(t);
        return d ? { ...d, recentDeposits: d.recentDeposits.map((r) => ({ ...r })) } : null;
      },
      simulatePayment: options.simulate === false ? undefined : (t) => this.simulatePayment(t),
      sandbox: (chain) => this.sandboxChains.has(chain),
      now: () => this.now(),
      pollIntervalMs: options.pollIntervalMs,
    };
  }
}

/** A TRON USDT order waiting for payment, 30 minutes to go. */
export function sampleOrder(overrides: Partial<CheckoutOrderView> = {}, now = Date.now()): CheckoutOrderView {
  const address = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";
  return {
    merchantName: "Acme Coffee Roasters",
    orderNo: "PI2025061012000000000001",
    merchantOrderNo: "ACME-10042",
    chainCode: "TRON",
    tokenSymbol: "USDT",
    amount: "12.345600",
    paidAmount: null,
    address,
    paymentUri: `tron:${address}?amount=12.3456&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`,
    status: "waiting_payment",
    expireAt: new Date(now + 30 * 60_000).toISOString(),
    confirmations: 0,
    requiredConfirmations: 3,
    txHash: null,
    createdAt: new Date(now).toISOString(),
    completedAt: null,
    ...overrides,
  };
}

export function sampleDeposit(overrides: Partial<DepositView> = {}): DepositView {
  const address = "0x52908400098527886E0F7030069857D2E4169EE7";
  return {
    merchantName: "Acme Coffee Roasters",
    chainCode: "BSC",
    tokenSymbol: "USDC",
    address,
    paymentUri: `ethereum:0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d@56/transfer?address=${address}`,
    label: null,
    recentDeposits: [],
    ...overrides,
  };
}
