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
export async function issueSetupToken(deps: UserDeps): Promise<string | null> {
  if (await hasOperator(deps.db)) return null;
  const token = randomBytes(24).toString("base64url");
  const value = JSON.stringify({ hash: sha256(token), expiresAt: deps.now() + SETUP_TTL_MS });
  const now = deps.now();
  await writeTx(deps.db, async (tx) => await putSetting(tx, KEY, value, now));
  return token;
}

export async function setupTokenValid(deps: UserDeps, token: string): Promise<boolean> {
  if (await hasOperator(deps.db)) return false;
  const value = await getSetting(deps.db, KEY);
  if (value === undefined) return false;
  const { hash, expiresAt } = JSON.parse(value) as { hash: string; expiresAt: number };
  const a = Buffer.from(sha256(token));
  return deps.now() < expiresAt && timingSafeEqual(a, Buffer.from(hash));
}

/** Creates the first operator and burns the token (one use). */
export async function completeSetup(deps: UserDeps, token: string, username: string, password: string, meta: { ip: string | null }) {
  return await writeTx(deps.db, async (tx) => {
    if (!await setupTokenValid({ ...deps, db: tx }, token)) return null;
    await deleteSetting(tx, KEY);
    // Someone may have been guessing this name (e.g. "admin") before it existed: its owner starts unlocked.
    await clearLoginFailures(tx, username.trim());
    return (await createUser({ ...deps, db: tx }, { username, role: "operator", password }, { actor: username, role: "operator", ip: meta.ip })).user;
  });
}
