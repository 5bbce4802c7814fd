// The one-time setup link of DESIGN 12: a plain `serve` with no operator yet
// prints /backoffice/setup/<token>, valid one hour, that creates the first one.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { writeTx } from "../db/client";
import { clearLoginFailures, createUser, hasOperator, type UserDeps } from "./users";
import { deleteSetting, getSetting, putSetting } from "./store";

const KEY = "backoffice_setup";
export const SETUP_TTL_MS = 60 * 60_000;

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** A fresh token when there is no operator (replacing any earlier one), else null. */
export function issueSetupToken(deps: UserDeps): string | null {
  if (hasOperator(deps.db)) return null;
  const token = randomBytes(24).toString("base64url");
  const value = JSON.stringify({ hash: sha256(token), expiresAt: deps.now() + SETUP_TTL_MS });
  const now = deps.now();
  putSetting(deps.db, KEY, value, now);
  return token;
}

export function setupTokenValid(deps: UserDeps, token: string): boolean {
  if (hasOperator(deps.db)) return false;
  const value = getSetting(deps.db, KEY);
  if (value === undefined) return false;
  const { hash, expiresAt } = JSON.parse(value) as { hash: string; expiresAt: number };
  const a = Buffer.from(sha256(token));
  return deps.now() < expiresAt && timingSafeEqual(a, Buffer.from(hash));
}

/** Creates the first operator and burns the token (one use). */
export function completeSetup(deps: UserDeps, token: string, username: string, password: string, meta: { ip: string | null }) {
  return writeTx(deps.db, (tx) => {
    if (!setupTokenValid({ ...deps, db: tx }, token)) return null;
    deleteSetting(tx, KEY);
    // Someone may have been guessing this name (e.g. "admin") before it existed: its owner starts unlocked.
    clearLoginFailures(tx, username.trim());
    return createUser({ ...deps, db: tx }, { username, role: "operator", password }, { actor: username, role: "operator", ip: meta.ip }).user;
  });
}
