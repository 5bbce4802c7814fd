// Event counters (DESIGN 14): HTTP requests, transitions and callback deliveries,
// bumped with one call from the code paths where they happen. A leaf module, so
// domain services can count without depending on src/ops/ (which reads them).
import { Counter, Histogram, Registry } from "./prom";

/** Process-wide: every gateway in the process bumps and serves the same counters. */
export const events = new Registry();

const httpRequests = new Counter({ name: "stablegate_http_requests_total", help: "HTTP requests by route template and status", labelNames: ["route", "status"], registers: [events] });
const httpDuration = new Histogram({
  name: "stablegate_http_request_duration_seconds",
  help: "HTTP request duration by route template",
  labelNames: ["route"],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [events],
});
const payinTransitions = new Counter({ name: "stablegate_payin_transitions_total", help: "pay-in orders entering a status (creation included)", labelNames: ["chain", "token", "status"], registers: [events] });
const payoutTransitions = new Counter({ name: "stablegate_payout_transitions_total", help: "payout orders entering a status (creation included)", labelNames: ["chain", "token", "status"], registers: [events] });
const callbackDeliveries = new Counter({ name: "stablegate_callback_deliveries_total", help: "callback delivery attempts by outcome", labelNames: ["outcome"], registers: [events] });

/** Route label for requests no route matched: raw paths never become labels. */
export const UNMATCHED_ROUTE = "unmatched";

export function observeHttp(route: string, status: number, seconds: number): void {
  httpRequests.inc({ route, status: String(status) });
  httpDuration.observe({ route }, seconds);
}

export function countTransition(kind: "payin" | "payout", chain: string, token: string, status: string): void {
  (kind === "payin" ? payinTransitions : payoutTransitions).inc({ chain, token, status });
}

/** outcome: delivered | retry | failed (gave up). */
export function countDelivery(outcome: "delivered" | "retry" | "failed"): void {
  callbackDeliveries.inc({ outcome });
}

/** Native base units the gateway's transactions burned, by "chain\u0000kind" (exact; ops/metrics.ts serves it as stablegate_fees_native_total). */
export const feeTotals = new Map<string, bigint>();

/** A transaction's recorded cost (after its transfer_costs row committed). */
export function countFee(chain: string, kind: string, baseUnits: bigint): void {
  const k = `${chain}\u0000${kind}`;
  feeTotals.set(k, (feeTotals.get(k) ?? 0n) + baseUnits);
}

const sweepFound = new Counter({
  name: "stablegate_sweep_found_total",
  help: "transfers the block scan missed and the sweep (the second detection path, DESIGN 25) recorded",
  labelNames: ["chain"],
  registers: [events],
});

/** A transfer the sweep recorded (after its write committed). */
export function countSweepFound(chain: string): void {
  sweepFound.inc({ chain });
}

// Measured detection (DESIGN 25): observed after the commit that records each fact (payin/detection.ts,
// callbacks/worker.ts); the stored times (detection_times) feed the dashboard's p50/p95 and the detection_slow alert.
const LATENCY_BUCKETS = [1, 2, 5, 10, 15, 30, 45, 60, 120, 300, 600, 1800, 3600, 7200];
const detection = new Histogram({ name: "stablegate_detection_seconds", help: "credited transfers: block time to first seen by the gateway", labelNames: ["chain"], buckets: LATENCY_BUCKETS, registers: [events] });
const completion = new Histogram({ name: "stablegate_completion_seconds", help: "credited transfers: block time to the order completed", labelNames: ["chain"], buckets: LATENCY_BUCKETS, registers: [events] });
const callbackDelay = new Histogram({
  name: "stablegate_callback_delay_seconds",
  help: "callbacks: the status change that wrote them to the merchant's 2xx",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600],
  registers: [events],
});

/** Seconds between two ms times, never negative (a block stamped a little in the future). */
const span = (fromMs: number, toMs: number) => Math.max(0, toMs - fromMs) / 1000;

export function observeDetection(chain: string, blockTime: number, seenAt: number): void {
  detection.observe({ chain }, span(blockTime, seenAt));
}

export function observeCompletion(chain: string, blockTime: number, completedAt: number): void {
  completion.observe({ chain }, span(blockTime, completedAt));
}

export function observeCallbackDelay(changedAt: number, deliveredAt: number): void {
  callbackDelay.observe(span(changedAt, deliveredAt));
}

// A promise that rejected with nobody awaiting it (src/lib/unhandled.ts): logged and counted, the process keeps running.
const unhandledRejections = new Counter({ name: "stablegate_unhandled_rejections_total", help: "promises that rejected with nobody awaiting them (a bug; logged at error level)", registers: [events] });

export function countUnhandledRejection(): void {
  unhandledRejections.inc();
}
