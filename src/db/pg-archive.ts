// What a PostgreSQL backup (a pg_dump custom-format archive) holds, read without restoring it:
// the migrations it applied (with checksums), the sealed values the master key must open, the
// row count of every table and its newest orders. `backup` checks every archive it writes with
// this, `backup --verify` prints it, `restore` refuses on it before touching any database.
import { pgMigrations } from "../../migrations/pg";
import { MigrationError, pendingAfter } from "./migrate";
import { isPgArchive, PgToolError, readArchiveData } from "./pg-tools";

/** Not a usable PostgreSQL backup; the message says why. */
export class BadPgArchive extends Error {
  override name = "BadPgArchive";
}

export interface PgArchiveSummary {
  migrations: string[];
  rows: Map<string, number>;
  newestPayin: { orderNo: string; createdAt: number } | null;
  newestPayout: { orderNo: string; createdAt: number } | null;
  /** What the master key must open: [what, sealed value]. */
  sealed: (readonly [string, string])[];
  /** settings.generation in the backup. */
  generation: string | null;
  cursors: { chain: string; block: number }[];
}

const READ = new Set(["schema_migrations", "settings", "api_keys", "payin_orders", "payout_orders", "chain_cursors"]);

/** Reads and checks the archive at `path`; throws BadPgArchive with the reason. */
export async function inspectPgArchive(path: string): Promise<PgArchiveSummary> {
  if (!isPgArchive(path)) throw new BadPgArchive("not a pg_dump custom-format archive (no PGDMP header)");
  const applied: { name: string; checksum: string }[] = [];
  const settings = new Map<string, string | null>();
  let apiKey: string | null = null;
  const newest: Record<string, { id: bigint; orderNo: string; createdAt: number } | undefined> = {};
  const cursors: { chain: string; block: number }[] = [];
  let rows: Map<string, number>;
  try {
    rows = await readArchiveData(path, READ, (table, r) => {
      if (table === "schema_migrations") applied.push({ name: r.name!, checksum: r.checksum! });
      else if (table === "settings") settings.set(r.key!, r.value);
      else if (table === "api_keys") apiKey ??= r.secret_enc ?? null;
      else if (table === "chain_cursors" && r.block_number !== null) cursors.push({ chain: r.chain!, block: Number(r.block_number) });
      else if (table === "payin_orders" || table === "payout_orders") {
        const id = BigInt(r.id!);
        if (!newest[table] || id > newest[table]!.id) newest[table] = { id, orderNo: r.order_no!, createdAt: Number(r.created_at) };
      }
    });
  } catch (e) {
    if (e instanceof PgToolError) throw new BadPgArchive(e.message);
    throw e;
  }
  if (!rows.has("schema_migrations") || !rows.has("settings")) throw new BadPgArchive("not a stablegate backup: it has no schema_migrations or settings table");
  applied.sort((a, b) => a.name.localeCompare(b.name));
  try {
    pendingAfter(applied, pgMigrations, "pg");
  } catch (e) {
    if (e instanceof MigrationError) throw new BadPgArchive(`not a backup this stablegate can restore: ${e.message}`);
    throw e;
  }
  if (!applied.length) throw new BadPgArchive("not a stablegate backup: no migration record");
  const sealed = ([["wallet seed", settings.get("wallet_seed")], ["master key check", settings.get("master_key_check")], ["API keys", apiKey]] as const).flatMap(([what, v]) => (v ? [[what, v] as const] : []));
  const pick = (t: string) => (newest[t] ? { orderNo: newest[t]!.orderNo, createdAt: newest[t]!.createdAt } : null);
  return { migrations: applied.map((m) => m.name), rows, newestPayin: pick("payin_orders"), newestPayout: pick("payout_orders"), sealed, generation: settings.get("generation") ?? null, cursors: cursors.sort((a, b) => a.chain.localeCompare(b.chain)) };
}
