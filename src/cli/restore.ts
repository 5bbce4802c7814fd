// `restore --from FILE` and `restore ack CHAIN ADDRESS` (DESIGN 2, 16). The first runs with the
// gateway stopped and opens no store (it must not create a database or a master key); the second
// runs beside a serving gateway, which sends the released payouts at its next payout tick.
import type { LoadedConfig } from "../config/load";
import { CLI_ACTOR } from "../audit/log";
import type { Db } from "../db/client";
import { systemClock } from "../lib/clock";
import { acknowledgeUnrecorded, AckError, openUnrecorded } from "../restore/reconcile";
import { restoreFromFile, RestoreRefused, type RestoreSummary } from "../restore/restore";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { keyFromString } from "../secrets/master-key";
import { CliUsageError, type CliFlags, printTable } from "./common";
import { releaseHeldPayouts } from "../payout/store";

export { RESTORE_USAGE } from "./help-text";
import { RESTORE_USAGE } from "./help-text";

export { RESTORE_DETAILS } from "./help-text";

export async function restoreCommand(loaded: LoadedConfig, db: () => Promise<Db>, args: string[], flags: CliFlags): Promise<number> {
  const [sub, chain, address] = args;
  try {
    if (sub === undefined && typeof flags.from === "string") return await restore(loaded, flags.from);
    if (sub === "ack" && chain && address) {
      const r = await acknowledgeUnrecorded(await db(), { chain, address }, CLI_ACTOR, systemClock.now(), { releaseHeldPayouts });
      if (flags.json) console.log(JSON.stringify(r));
      else {
        console.log(`${r.chain} ${r.address}: ${r.acknowledged} unrecorded outgoing transfer${r.acknowledged === 1 ? "" : "s"} acknowledged`);
        console.log(r.released.length ? `released held payouts (sent at the gateway's next payout tick): ${r.released.join(", ")}` : "no payout was held on this source");
      }
      return 0;
    }
    if (sub === "list") {
      const rows = (await openUnrecorded(await db())).map((t) => ({
        chainCode: t.chain,
        address: t.address,
        txHash: t.txHash,
        nonce: t.nonce,
        blockNumber: t.blockNumber,
        toAddress: t.toAddress,
        asset: t.asset,
        amount: t.amount,
        foundAt: new Date(t.foundAt).toISOString(),
      }));
      if (flags.json) console.log(JSON.stringify(rows));
      else
        printTable(
          ["chain", "address", "transaction", "amount", "to"],
          rows.map((r) => [r.chainCode, r.address, r.txHash ?? `nonce ${r.nonce}`, `${r.asset ?? ""} ${r.amount ?? ""}`.trim(), r.toAddress ?? "?"]),
          "no unrecorded outgoing transfer waits for acknowledgement",
        );
      return 0;
    }
  } catch (e) {
    if (e instanceof AckError) throw new CliUsageError(e.message);
    if (e instanceof RestoreRefused) {
      console.error(`restore refused: ${e.message}`);
      return 1;
    }
    throw e;
  }
  throw new CliUsageError(`usage:\n${RESTORE_USAGE}`);
}

async function restore(loaded: LoadedConfig, from: string): Promise<number> {
  const dbPath = loaded.config.database.path;
  const r = await restoreFromFile({ from, dbPath, env: process.env, indexGap: loaded.config.restore.index_gap, now: systemClock.now() });
  printRestored(loaded, from, dbPath, r);
  return 0;
}

/** What a restore did, on either engine (`where`: the database path or the shown URL). */
export function printRestored(loaded: LoadedConfig, from: string, where: string, r: RestoreSummary): void {
  const indexGap = loaded.config.restore.index_gap;
  const newest = r.newestOrderAt === null ? "none" : new Date(r.newestOrderAt).toISOString();
  const pg = !!loaded.config.database.url;
  console.log(
    [
      `restored ${from} to ${where} (${pg ? "pg_dump archive read back whole" : "integrity ok"}, stablegate schema, the master key opens it${r.migrationsApplied ? `, ${r.migrationsApplied} migration(s) applied` : ""})`,
      `  it holds ${r.payins} pay-in orders and ${r.payouts} payouts; newest order created ${newest}`,
      `  scan cursors (the watchers rescan from here): ${r.cursors.map((c) => `${c.chain} ${c.block}`).join(", ") || "none"}`,
      r.asidePath ? `  the database that was in place is kept as ${r.asidePath}` : pg ? "  restored into an empty database; the database used before (if any) is untouched" : "  there was no database in place",
      `  reconcile: new addresses start ${indexGap} HD indexes further on; each payout source's chain is read before it sends again`,
      `  next: start the gateway, then watch \`stablegate restore list\` and the unrecorded_outgoing alert (docs/operations.md)`,
    ].join("\n"),
  );
}

/**
 * The master key a PostgreSQL gateway uses (DESIGN 22): STABLEGATE_MASTER_KEY, else master.key
 * beside the config file. Missing: the restore is refused, naming both.
 */
export function pgMasterKey(loaded: LoadedConfig, env: NodeJS.ProcessEnv): { key: Buffer; source: string } {
  if (env.STABLEGATE_MASTER_KEY) return { key: keyFromString(env.STABLEGATE_MASTER_KEY), source: "STABLEGATE_MASTER_KEY" };
  const file = loaded.source === "embedded default" ? null : join(dirname(loaded.source), "master.key");
  if (!file || !existsSync(file)) {
    throw new RestoreRefused(`no master key: set STABLEGATE_MASTER_KEY${file ? ` or put the master key the backup was made under at ${file}` : ""} and run restore again; nothing was changed`);
  }
  return { key: keyFromString(readFileSync(file, "utf8")), source: file };
}
