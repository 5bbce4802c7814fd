// The payout routes land separately; tests of them switch on by themselves
// once src/payout/routes.ts exists (until then they are reported as skipped).
import { existsSync } from "node:fs";
import { join } from "node:path";

export const PAYOUT_ROUTES_LANDED = existsSync(join(import.meta.dir, "../payout/routes.ts"));
export const isPayoutPath = (path: string) => path.startsWith("/openapi/payout/");
