// Back-office probes of the growth bench (pages, search, filters, CSV export, dashboard):
// append rows here; scripts/bench-growth.ts runs them after ENGINE_PROBES on both databases.
// Sign in with backofficeSignIn(env.gw.url, env.meta.operator) (src/testing/backoffice-client.ts),
// once per env (cache it on a WeakMap keyed by env). A probe returning a number (rows written,
// e.g. a CSV export) is reported per row.
import type { Probe } from "./probes";

export const BACKOFFICE_PROBES: Probe[] = [];
