// The CLI contract of DESIGN 2. Machine-readable output goes to stdout; logs to stderr.
// Each command loads its modules when it runs (dynamic imports below): `stablegate merchant list`
// never loads the HTTP server, the chains' adapters or the backup tools (docs/testing.md "Suite
// time": a command's start was 0.3-0.45 CPU-s of module loading, and the CLI suites run hundreds).
import { resolve } from "node:path";
import { parseArgs } from "./args";
import type { loadConfig } from "../config/load";
import type { createContext } from "../app/context";
import type { Logger } from "../lib/logger";
import { VERSION } from "../version";
import { CliUsageError, helpPointer, printTable } from "./common";
import { checkCommandLine, isCommand, VALUE_FLAGS } from "./commands";
import type { InitResult } from "../app/data-folder";
import type { Ask } from "./wallet";
import { commandHelp, fullHelp } from "./usage";
import { ALERTS_USAGE, AUDIT_USAGE, BACKUP_USAGE, DENYLIST_USAGE, DEPOSIT_USAGE, ENERGY_USAGE, MOVE_USAGE, ORDER_USAGE, RESTORE_USAGE, USER_USAGE, WALLET_USAGE } from "./help-text";

/** The full usage text (the commands' own lines from help-text.ts: no command module is loaded for it). */
function usageText(): string {
  return `stablegate ${VERSION}
usage: stablegate <command> [--config PATH] [--data DIR]
  init                               create the data folder: database, master key, wallet seed
  serve [--demo] [--port N]          migrate, then serve HTTP and run all jobs until SIGTERM/SIGINT
  migrate                            apply pending migrations and exit
  merchant create --name N [--json]  create a merchant and print its UID and API key
  merchant list [--json]
  merchant disable UID | merchant enable UID
  merchant set UID [--default-notify-url URL] [--ip-allowlist CIDR,...] [--epusdt-token T] [--epay-key K]
                                     merchant settings ("" clears; a default URL releases held callbacks;
                                     --epusdt-token/--epay-key turn on the shop-plugin endpoints)
  key rotate UID [--json]            issue a new API key (the old one keeps verifying its orders' callbacks)
${WALLET_USAGE}
${ENERGY_USAGE}
  callbacks list [--failed|--held] [--json] recent callbacks (--failed: gave up; --held: waiting for a callback URL)
  callbacks resend EVENT_ID          deliver a failed callback again (same eventId and payload)
${USER_USAGE}
${ORDER_USAGE}
${DEPOSIT_USAGE}
${DENYLIST_USAGE}
${AUDIT_USAGE}
  ${ALERTS_USAGE}
  ${BACKUP_USAGE}
${RESTORE_USAGE}
${MOVE_USAGE}
  --version`;
}

/** One command's help (usage.ts), or null for a name that is no command. */
function helpOf(cmd: string): string | null {
  return commandHelp(cmd, usageText());
}

/** Shown for an unknown command: the shape, not the whole help. */
const SHORT_USAGE = "usage: stablegate <command> [options] [--config PATH]   (stablegate help lists the commands)";

/** One line from stdin (the terminal or a pipe); the prompt goes to stderr. */
const askStdin: Ask = async (prompt) => {
  process.stderr.write(prompt);
  for await (const line of console) return line;
  return null;
};

export async function main(argv: string[], io: { ask?: Ask } = {}): Promise<number> {
  const { positional, flags, unknown } = parseArgs(argv, VALUE_FLAGS);
  const [cmd, sub, arg] = positional;
  if (!cmd) {
    const only = Object.keys(flags);
    if (flags.version && only.length === 1 && !unknown.length) {
      console.log(VERSION);
      return 0;
    }
    if (flags.help && only.length === 1 && !unknown.length) {
      console.log(helpOf("help"));
      return 0;
    }
    console.error(`${only.length || unknown.length ? `no command given (options: ${[...only.map((f) => "--" + f), ...unknown].join(" ")})` : "no command given"}\n${SHORT_USAGE}`);
    return 2;
  }
  if (!isCommand(cmd)) {
    console.error(`unknown command: ${cmd}\n${SHORT_USAGE}`);
    return 2;
  }
  if (flags.help) {
    console.log(helpOf(cmd) ?? SHORT_USAGE);
    return 0;
  }
  try {
    checkCommandLine(positional, flags, unknown);
  } catch (e) {
    if (!(e instanceof CliUsageError)) throw e;
    console.error(`${e.message}\n${helpOf(cmd) ?? SHORT_USAGE}`);
    return 2;
  }
  if (cmd === "help") {
    const text = sub ? helpOf(sub) : fullHelp(usageText());
    if (text === null) {
      console.error(`unknown command: ${sub}\n${SHORT_USAGE}`);
      return 2;
    }
    console.log(text);
    return 0;
  }
  let loadedPath: string | null = null;
  try {
    const { loadConfig, resolveConfigPath, runOverrides } = await import("../config/load");
    const loaded = loadConfig(resolveConfigPath(typeof flags.config === "string" ? flags.config : undefined), runOverrides(flags));
    loadedPath = loaded.config.database.url ? null : loaded.config.database.path;
    // Moving to PostgreSQL names both databases on its command line; the config's is not used.
    if (cmd === "migrate-to-postgres") return await (await import("./move")).moveCommand(flags);
    // PostgreSQL (DESIGN 22): init, migrate, backup and restore --from have their own path; the
    // rest run through the stores as on SQLite.
    if (loaded.config.database.url) {
      if (cmd === "init") {
        printInit(await (await import("../app/postgres")).initPostgres(loaded), loaded.source);
        return 0;
      }
      const { answeredHere, postgresCommand } = await import("./postgres");
      if (answeredHere(cmd, positional.slice(1), flags)) return await postgresCommand(cmd, loaded, positional.slice(1), flags);
    }
    if (cmd === "init") {
      printInit(await (await import("../app/data-folder")).initDataFolder(loaded), loaded.source);
      return 0;
    }
    const { systemClock } = await import("../lib/clock");
    const deps = async () => {
      const { db, cipher } = await (await import("../app/context")).openStore(loaded);
      return { db, cipher, now: () => systemClock.now() };
    };
    const operatorCtx = async () => {
      const [{ createContext }, { makeChains }, { silentLogger }] = await Promise.all([import("../app/context"), import("../chains/factory"), import("../lib/logger")]);
      return await createContext({ loaded, makeChains, logger: silentLogger });
    };
    switch (cmd) {
      case "serve":
        return await serve(loaded, flags.demo === true);
      case "migrate": {
        await deps();
        console.log(`migrated ${loaded.config.database.path}`);
        return 0;
      }
      case "merchant": {
        const [{ createMerchant, listMerchants, setMerchantStatus }, { CLI_ACTOR }] = await Promise.all([import("../merchants/service"), import("../audit/log")]);
        if (sub === "create") {
          if (typeof flags.name !== "string") throw new CliUsageError("merchant create needs --name N");
          const { merchant, apiKey } = await createMerchant(await deps(), { name: flags.name }, CLI_ACTOR);
          if (flags.json) console.log(JSON.stringify({ merchantUid: merchant.uid, apiKey }));
          else console.log(`merchant ${merchant.uid} (${merchant.name})\napi key: ${apiKey}\n(store the key now: it is not shown again)`);
          return 0;
        }
        if (sub === "list") {
          const rows = (await listMerchants((await deps()).db)).map((m) => ({ merchantUid: m.uid, name: m.name, status: m.status, createdAt: new Date(m.createdAt).toISOString() }));
          if (flags.json) console.log(JSON.stringify(rows));
          else printTable(["merchant", "status", "name"], rows.map((r) => [r.merchantUid, r.status, r.name]), "no merchants");
          return 0;
        }
        if (sub === "disable" || sub === "enable") {
          if (!arg) throw new CliUsageError(`merchant ${sub} needs a UID`);
          const m = await setMerchantStatus(await deps(), arg, sub === "disable" ? "disabled" : "active", CLI_ACTOR);
          console.log(`${m.uid} ${m.status}`);
          return 0;
        }
        if (sub === "set") {
          const [{ merchantSet }, { releaseHeldCallbacks }] = await Promise.all([import("./merchant"), import("../callbacks/store")]);
          return await merchantSet({ db: (await deps()).db, cipher: (await deps()).cipher, now: systemClock.now, allowPrivateTargets: loaded.config.callbacks.allow_private_targets, releaseHeldCallbacks }, arg, flags);
        }
        throw new CliUsageError(`unknown merchant command: ${sub ?? "(none)"}`);
      }
      case "key": {
        if (sub !== "rotate" || !arg) throw new CliUsageError("usage: key rotate UID [--json]");
        const [{ rotateKey }, { parseDuration }, { CLI_ACTOR }] = await Promise.all([import("../merchants/service"), import("../lib/duration"), import("../audit/log")]);
        const r = await rotateKey(await deps(), arg, parseDuration(loaded.config.auth.rotation_grace), CLI_ACTOR);
        if (flags.json) console.log(JSON.stringify(r));
        else console.log(`merchant ${r.merchantUid}\nnew api key: ${r.apiKey}\n(the previous key signs requests for ${loaded.config.auth.rotation_grace} more)`);
        return 0;
      }
      case "callbacks": {
        const [{ describeCallback, listCallbacks, resendCallback }, { plainError }, { CLI_ACTOR }] = await Promise.all([import("../callbacks/resend"), import("../callbacks/plain-error"), import("../audit/log")]);
        if (sub === "list") {
          const rows = (await listCallbacks((await deps()).db, { state: flags.failed ? "failed" : flags.held ? "held" : undefined, limit: 1000 })).map(describeCallback);
          if (flags.json) console.log(JSON.stringify(rows));
          else
            printTable(
              ["event", "state", "order", "status", "attempts", "last error"],
              rows.map((r) => [r.eventId, r.state === "failed" ? "gave up" : r.state, r.orderNo, r.orderStatus, r.attempts, plainError(r.lastError)]),
              flags.failed ? "no callback gave up" : flags.held ? "no callback is held" : "no callbacks",
            );
          return 0;
        }
        if (sub === "resend") {
          if (!arg) throw new CliUsageError("callbacks resend needs an EVENT_ID");
          const r = await resendCallback((await deps()).db, arg, systemClock.now(), {}, CLI_ACTOR);
          if (flags.json) console.log(JSON.stringify(describeCallback(r)));
          else console.log(`${r.id} queued for delivery`);
          return 0;
        }
        throw new CliUsageError(`unknown callbacks command: ${sub ?? "(none)"}`);
      }
      case "user":
        return await (await import("./users")).userCommand(await deps(), sub, arg, flags);
      case "order":
        return await (await import("./order")).orderCommand(operatorCtx, positional.slice(1), flags);
      case "deposit":
        return await (await import("./deposit")).depositCommand(operatorCtx, positional.slice(1), flags);
      case "denylist":
        return await (await import("./denylist")).denylistCommand(operatorCtx, positional.slice(1), flags);
      case "audit":
        return await (await import("./audit")).auditCommand(async () => (await deps()).db, positional.slice(1), flags);
      case "wallet":
        return await (await import("./wallet")).walletCommand(loaded, sub, flags, io.ask ?? askStdin);
      case "energy":
        return await (await import("./energy")).energyCommand(loaded, sub, flags);
      case "alerts":
        return await (await import("./alerts")).alertsCommand(async () => (await deps()).db, sub, flags);
      case "backup":
        // The database must be there (never a backup of a stranger); --verify reads only FILE.
        if (typeof flags.verify !== "string") (await import("../app/data-folder")).requireDatabase(loaded);
        return await (await import("./backup")).backupCommand(loaded.config.database.path, flags);
      case "restore":
        return await (await import("./restore")).restoreCommand(loaded, async () => (await deps()).db, positional.slice(1), flags);
      default:
        throw new CliUsageError(`unknown command: ${cmd}`);
    }
  } catch (e) {
    return await failure(cmd, e, loadedPath);
  }
}

/**
 * What a command that threw prints, and its exit status. Each check loads its error class's
 * module only when the checks before it did not match (a command's own modules are loaded already).
 */
async function failure(cmd: string, e: unknown, loadedPath: string | null): Promise<number> {
  // A runtime error: one short message and where the command's usage is (issue 30), never the help itself.
  const usageError = async () => {
    if (e instanceof CliUsageError || e instanceof (await import("../merchants/service")).MerchantNotFound) return true;
    const { CallbackBusy, CallbackNotFound } = await import("../callbacks/resend");
    return e instanceof CallbackNotFound || e instanceof CallbackBusy;
  };
  if (e instanceof (await import("../db/engine")).NotOnPostgres) {
    console.error(`error: ${cmd}: ${e.message}`);
    return 1;
  }
  const { AnotherInstance, busyMessage, isBusy } = await import("../db/instance-lock");
  if (e instanceof AnotherInstance) {
    console.error(e.message);
    return 1;
  }
  // A lock another process held past busy_timeout (every connection waits that long first).
  if (isBusy(e) && loadedPath) {
    console.error(`error: ${busyMessage(loadedPath, (await import("../db/client")).BUSY_TIMEOUT_MS)}`);
    return 1;
  }
  if (await usageError()) {
    console.error(`${(e as Error).message}\n${helpPointer(cmd)}`);
    return 2;
  }
  if (e instanceof (await import("../config/load")).ConfigError) {
    console.error(e.message);
    return 2;
  }
  if (e instanceof (await import("../app/data-folder")).DataFolderError || e instanceof (await import("./wallet")).WrongKeyFile) {
    console.error(`error: ${(e as Error).message}`);
    return 1;
  }
  console.error(`error: ${(e as Error).message}\n${helpPointer(cmd)}`);
  return 1;
}

function printInit(r: InitResult, source: string, serving = false) {
  const cfg = source === "embedded default" ? "" : ` --config ${source}`;
  const lines = [
    r.completed ? `completed ${r.database}: a wallet seed was added (the database had none)` : `initialised the data folder for ${r.database}`,
    `  master key:  ${r.masterKeyFile ? `${resolve(r.masterKeyFile)} (new, mode 0600)` : "from STABLEGATE_MASTER_KEY (no key file written)"}`,
    `  wallet seed: ${r.seed.imported ? "imported from STABLEGATE_WALLET_MNEMONIC" : `new, ${r.seed.words} words`}, stored encrypted in the database`,
    "Keep a copy of the master key apart from the backups: no backup opens without it.",
    `Write the wallet seed down offline now: stablegate wallet export-mnemonic${cfg}`,
    ...(serving ? [] : [`Then start the gateway: stablegate serve${cfg}`]),
  ];
  console.log(lines.join("\n"));
}

async function serve(configured: ReturnType<typeof loadConfig>, demo: boolean): Promise<number> {
  const [{ withDemoRates, ensureDemoMerchant, ensureDemoUsers, setupLink, DEMO_RATES }, { seedDemoData }, { databasePresent, initDataFolder }, { acquireInstanceLock }, { createContext }, { startGateway }, { makeChains }, { closeDb }, { failPoint }, { isSandboxGateway }, { logUnhandledRejectionsTo }] = await Promise.all([
    import("./demo"),
    import("./demo-data"),
    import("../app/data-folder"),
    import("../db/instance-lock"),
    import("../app/context"),
    import("../app/server"),
    import("../chains/factory"),
    import("../db/client"),
    import("../lib/crash"),
    import("../ops/readiness"),
    import("../lib/unhandled"),
  ]);
  const rates = demo ? withDemoRates(configured) : { loaded: configured, added: false };
  const loaded = rates.loaded;
  if (demo && loaded.config.database.url) throw new CliUsageError("serve --demo makes a data folder for SQLite; on PostgreSQL run `stablegate init` and `stablegate serve`");
  // `make run` on an empty folder makes its data folder (the same refusals as init).
  if (demo && !databasePresent(loaded.config.database.path)) printInit(await initDataFolder(loaded), loaded.source, true);
  // One gateway per database (DESIGN 16), locked before migrations so a second binary (an
  // upgrade started beside the running one) changes nothing. A missing database is refused by
  // createContext (only init makes one), so nothing is locked or created for it.
  const dbPath = loaded.config.database.path;
  // Not on PostgreSQL: any number of gateways share one database there.
  const lock = !loaded.config.database.url && dbPath !== ":memory:" && databasePresent(dbPath) ? acquireInstanceLock(dbPath) : null;
  let ctx: Awaited<ReturnType<typeof createContext>> | undefined;
  let gw: Awaited<ReturnType<typeof startGateway>> | undefined;
  try {
    ctx = await createContext({ loaded, makeChains });
    gw = await startGateway(ctx);
    const demoCreds = demo ? await ensureDemoMerchant(ctx) : null;
    failPoint("serve.started");
    printBanner(gw.url, ctx.publicUrl, demoCreds, isSandboxGateway(ctx));
    if (demoCreds) printDemoData(ctx.publicUrl, await seedDemoData(ctx, gw.runtime, demoCreds.merchantUid));
    await printBackofficeAccess(ctx, demo, { ensureDemoUsers, setupLink });
    if (rates.added) console.log(`  demo rates:      1 USDT = ${Object.entries(DEMO_RATES).map(([c, r]) => `${r} ${c}`).join(", ")} (fixed, for trying shop plugins; set [rates] for real ones)`);
  } catch (e) {
    // No half-started gateway: the listener closes and the caller exits non-zero.
    await gw?.stop().catch(() => undefined);
    if (ctx) await closeDb(ctx.db).catch(() => undefined);
    lock?.release();
    throw e;
  }
  const running = gw;
  const started = ctx;
  // A rejection nobody caught (src/main.ts installed the handler) is logged with the gateway's logger.
  logUnhandledRejectionsTo(started.logger);
  await new Promise<void>((resolve) => {
    const stop = async (sig: string) => {
      started.logger.info("shutting down", { signal: sig });
      // Last resort: whatever still hangs, the process is gone within 5 s (SQLite commits are atomic).
      const lastResort = setTimeout(() => {
        started.logger.error("shutdown took too long; exiting", {});
        process.exit(1);
      }, 4500);
      lastResort.unref();
      // A step that fails is logged and the next still runs: the database is closed and the
      // instance lock released whatever stopping the gateway threw; the exit status says it failed.
      const failed = [
        await shutdownStep(started.logger, "stopping the gateway", async () => await running.stop()),
        await shutdownStep(started.logger, "closing the database", async () => await closeDb(started.db)),
        await shutdownStep(started.logger, "releasing the instance lock", async () => lock?.release()),
      ].includes(false);
      clearTimeout(lastResort);
      if (failed) process.exit(1);
      // The orderly part is done: what may still hold the event loop open (a callback delivery or an
      // RPC call abandoned at the deadline) is redone after a restart, so it is no reason to linger
      // or to report a failure.
      setTimeout(() => process.exit(0), 250).unref();
      resolve();
    };
    // Never a rejection left to the runtime (Bun exits on one): whatever escapes is logged, exit 1.
    const onSignal = (sig: string) => () =>
      void stop(sig).catch((e: unknown) => {
        started.logger.error("shutdown failed", { signal: sig, error: String((e as Error)?.stack ?? e) });
        process.exit(1);
      });
    process.once("SIGTERM", onSignal("SIGTERM"));
    process.once("SIGINT", onSignal("SIGINT"));
  });
  return 0;
}

/** One step of the shutdown: false (logged) when it threw. */
async function shutdownStep(logger: Logger, what: string, step: () => Promise<unknown>): Promise<boolean> {
  try {
    await step();
    return true;
  } catch (e) {
    logger.error(`shutdown: ${what} failed`, { error: String((e as Error)?.stack ?? e) });
    return false;
  }
}

/** `serve --demo`: the demo users' passwords, once; without an operator: the one-time setup link. */
async function printBackofficeAccess(ctx: Awaited<ReturnType<typeof createContext>>, demo: boolean, d: Pick<typeof import("./demo"), "ensureDemoUsers" | "setupLink">) {
  const { ensureDemoUsers, setupLink } = d;
  const lines = [`  back office:     ${ctx.publicUrl}/backoffice`];
  const users = demo ? await ensureDemoUsers(ctx) : [];
  if (users.length) {
    lines.push("  Back-office users created (passwords shown once, store them now):");
    for (const u of users) lines.push(`    ${u.username.padEnd(6)} (${u.role})  password: ${u.password}`);
  }
  const link = await setupLink(ctx);
  if (link) lines.push("  No operator yet. Create the first one within 1 hour at:", `    ${link}`);
  console.log(lines.join("\n"));
}

/** What `serve --demo` made on its first start (DESIGN 18), and where to see it. */
function printDemoData(publicUrl: string, lines: string[]) {
  if (!lines.length) return;
  console.log(["", `  Demo invoices (see ${publicUrl}/backoffice/payment-links as demo):`, ...lines.map((l) => `    ${l}`)].join("\n"));
}

function printBanner(url: string, publicUrl: string, demo: { merchantUid: string; apiKey: string } | null, sandbox: boolean) {
  const lines = [`stablegate ${VERSION} is running`, `  health:          ${url}/healthz`, `  merchant API:    ${publicUrl}/openapi`, `  API reference:   ${publicUrl}/docs`];
  if (sandbox) lines.push(`  sandbox chains:  ${publicUrl}/sandbox (POST /sandbox/transfers, /sandbox/blocks, ...)`);
  if (demo) {
    lines.push("", "  Demo merchant created (shown once, store it now):", `    merchant UID:  ${demo.merchantUid}`, `    API key:       ${demo.apiKey}`);
  }
  console.log(lines.join("\n"));
}
