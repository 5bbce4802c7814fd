// The master key encrypts API keys and the wallet seed at rest.
// Env STABLEGATE_MASTER_KEY wins; otherwise a 0600 key file next to the database, which only
// `stablegate init` creates (src/app/data-folder.ts): no other command makes a key.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { dirname, join } from "node:path";

export function masterKeyPath(dbPath: string): string {
  return join(dirname(dbPath), "master.key");
}

/** The database exists but its key does not: restoring the key is the only way on. */
export class MasterKeyMissing extends Error {
  constructor(file: string) {
    super(
      `no master key: STABLEGATE_MASTER_KEY is not set and ${file} does not exist. Restore the master key this database ` +
        "was made with (from where you keep it, apart from the backups); a new key cannot open it.",
    );
  }
}

/** 32 bytes from hex/base64 of 32 bytes, else the SHA-256 of the passphrase given. */
export function keyFromString(s: string): Buffer {
  const t = s.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, "hex");
  const b = Buffer.from(t, "base64");
  if (b.length === 32 && /^[A-Za-z0-9+/_-]+=*$/.test(t)) return b;
  return createHash("sha256").update(t, "utf8").digest();
}

export function loadMasterKey(dbPath: string, env = process.env): Buffer {
  if (env.STABLEGATE_MASTER_KEY) return keyFromString(env.STABLEGATE_MASTER_KEY);
  if (dbPath === ":memory:") return createHash("sha256").update("in-memory test key").digest();
  const file = masterKeyPath(dbPath);
  if (!existsSync(file)) throw new MasterKeyMissing(file);
  return keyFromString(readFileSync(file, "utf8"));
}

/** A new random key in a new 0600 file (refuses to replace one). `stablegate init` only. */
export function createMasterKeyFile(dbPath: string): { key: Buffer; file: string } {
  const file = masterKeyPath(dbPath);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, key.toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return { key, file };
}
