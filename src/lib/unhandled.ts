// A promise that rejects with nobody awaiting it ends a Bun process (exit 1): one `void p` that
// can fail (a store write on a full disk, a shutdown step) would take the gateway down with every
// request in flight. The binary (src/main.ts) installs one process-wide handler: the rejection is
// logged at error level through the logger (so masked: lib/logger.ts) and counted
// (`stablegate_unhandled_rejections_total`), and the process keeps running. It is still a bug
// (the code that made the promise never learns it failed): the known sites catch their own errors.
// Tests do not install it (a test's unhandled rejection must fail the test).
import { countUnhandledRejection } from "./event-metrics";
import type { Logger } from "./logger";

let logger: Logger | null = null;
let listener: ((reason: unknown) => void) | null = null;

/** Installs the handler (once per process); returns its removal. */
export function handleUnhandledRejections(log: Logger): () => void {
  logger = log;
  if (!listener) {
    listener = (reason) => reportUnhandledRejection(reason);
    process.on("unhandledRejection", listener);
  }
  return () => {
    if (listener) process.off("unhandledRejection", listener);
    listener = null;
    logger = null;
  };
}

/** Once the gateway's own logger exists (serve): the handler logs through it. Nothing where no handler is installed. */
export function logUnhandledRejectionsTo(log: Logger): void {
  if (listener) logger = log;
}

export function reportUnhandledRejection(reason: unknown): void {
  countUnhandledRejection();
  const error = reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
  logger?.error("unhandled promise rejection (a promise nobody awaited failed); the process keeps running", { error });
}
