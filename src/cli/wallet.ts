// `wallet gas [--json]` and `wallet export-mnemonic` (DESIGN 2, 16), on either engine (DESIGN 22).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createContext, openStore } from "../app/context";
import { requireDatabase } from "../app/data-folder";
import { pgUrlOf } from "../app/postgres";
import { displayPgUrl } from "../db/client-pg";
import { closePg, openPgDb } from "../db/tx-pg";
import type { LoadedConfig } from "../config/load";
import { makeChains } from "../chains/factory";
import { openReadonlyDb, writeTx } from "../db/client";
import { silentLogger } from "../lib/logger";
import { systemClock } from "../lib/clock";
import { gasWallet } from "../wallet/addresses";
import { CLI_ACTOR, recordAudit } from "../audit/log";
import { Cipher } from "../secrets/cipher";
import { keyOpensDatabase } from "../secrets/key-check";
import { keyFromString } from "../secrets/master-key";
import { loadMnemonic } from "../wallet/seed";
import { CliUsageError, type CliFlags, printTable } from "./common";
import { mapSeq } from "../lib/async-seq";

export { WALLET_USAGE } from "./help-text";

/** Reads one answer (the master key file's path): a prompt on a terminal, a line on stdin otherwise. */
export type Ask = (prompt: string) => Promise<string | null>;

export class WrongKeyFile extends Error {}

export async function walletCommand(loaded: LoadedConfig, sub: string | undefined, flags: CliFlags, ask: Ask): Promise<number> {
  if (sub === "gas") {
    const ctx = await createContext({ loaded, makeChains, logger: silentLogger });
    const rows = await mapSeq([...ctx.chains.values()], async (a) => ({ chainCode: a.chain, mode: a.mode, address: (await writeTx(ctx.db, async (tx) => await gasWallet(tx, a, ctx.seed, systemClock.now()))).address }));
    if (flags.json) console.log(JSON.stringify(rows));
    else printTable(["chain", "mode", "gas wallet"], rows.map((r) => [r.chainCode, r.mode, r.address]), "no chain is enabled");
    return 0;
  }
  if (sub === "export-mnemonic") return exportMnemonic(loaded, ask);
  throw new CliUsageError(`unknown wallet command: ${sub ?? "(none)"}`);
}

/**
 * The seed in the operator's hands: whoever runs this must also name the master key file (having
 * shell access to the gateway is not enough to read the seed off a terminal left open). The key
 * in that file is checked against the database before anything is touched; then the export is
 * audited (actor cli) and the words are printed once, to stdout only (never logged).
 */
async function exportMnemonic(loaded: LoadedConfig, ask: Ask): Promise<number> {
  const url = pgUrlOf(loaded);
  if (!url) requireDatabase(loaded);
  const answer = (await ask("Path of the master key file of this database (to confirm you hold it): "))?.trim();
  if (!answer) throw new CliUsageError("wallet export-mnemonic: no master key file given (type its path)");
  let text: string;
  try {
    text = readFileSync(answer, "utf8");
  } catch (e) {
    throw new WrongKeyFile(`cannot read the master key file ${answer}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; nothing was shown`);
  }
  const database = url ? displayPgUrl(url) : resolve(loaded.config.database.path);
  if (!(await keyFileOpens(loaded, new Cipher(keyFromString(text)))))
    throw new WrongKeyFile(`wrong master key: the key in ${resolve(answer)} does not open ${database}; nothing was shown or changed`);
  const { db, cipher } = await openStore(loaded);
  const mnemonic = await loadMnemonic(db, cipher);
  if (mnemonic === null) throw new WrongKeyFile("this database has no wallet seed yet: run `stablegate init` first");
  const words = mnemonic.split(/\s+/).length;
  // Audited before it is shown: an export that is not on record never happens.
  await writeTx(db, async (tx) => await recordAudit(tx, { ...CLI_ACTOR, action: "wallet.export_mnemonic", target: "wallet:seed", after: { words } }));
  console.error(`The wallet seed (${words} words). Write it down offline; anyone with these words controls every gateway address. It is not shown again by this command.`);
  console.log(mnemonic);
  return 0;
}

/** Whether the typed key file's key opens the database, read before anything is opened for writing (no migration, no key check written). */
async function keyFileOpens(loaded: LoadedConfig, cipher: Cipher): Promise<boolean> {
  const url = pgUrlOf(loaded);
  const db = url ? openPgDb(url, 1) : openReadonlyDb(loaded.config.database.path);
  try {
    return await keyOpensDatabase(db, cipher);
  } finally {
    if (url) await closePg(db);
    else db.$client.close();
  }
}
