// Server-side sessions and sign-in (DESIGN 12). The cookie carries a random
// token; the table keeps its SHA-256, so a database copy cannot sign in.
// Sessions end after `backoffice.session_idle` without a request or
// `backoffice.session_max` after sign-in, measured with the injected clock.
import { createHash, randomBytes } from "node:crypto";
import { writeTx } from "../db/client";
import { newId } from "../lib/ids";
import { clearLoginFailures, findUser, userById, type UserDeps, type UserRow } from "./users";
import { deleteLoginFailure, failuresSince, fullSessions, insertLoginFailure, insertSession, serializeLoginAttempts, patchSession, revokeSessionRow, sessionByTokenHash, type SessionRow } from "./store";
import { findMerchantById } from "../merchants/service";
import { userTotpSecret, verifySecondFactor } from "./totp";

export type { SessionRow } from "./store";

export interface SessionPolicy {
  idleMs: number;
  maxMs: number;
}

// Per username (DESIGN 12), and per client address so one address cannot spray many
// usernames; the address limit is high enough that a few people behind one NAT never meet it.
export const LOCKOUT = { failures: 5, ipFailures: 50, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };
/** Money and key actions need a password or code entered this recently. */
export const REAUTH_MS = 5 * 60_000;
/** lastSeenAt is written at most this often (a page view is not worth a write each time). */
const TOUCH_MS = 30_000;

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

// A hash to verify against when the username is unknown, so timing does not tell names apart.
let dummyHash: string | undefined;
const dummy = () => (dummyHash ??= Bun.password.hashSync(randomBytes(16).toString("hex"), { algorithm: "argon2id" }));

export type SignInResult =
  | { ok: true; token: string; session: SessionRow; user: UserRow }
  | { ok: false; reason: "invalid" | "locked" | "address_locked" };

export type LockReason = "locked" | "address_locked";

/**
 * Where an attempt comes from. `ip` is the client address (null: unknown); `direct` says it is the
 * socket peer itself rather than a value a trusted proxy forwarded (DESIGN 10).
 */
export interface AttemptClient {
  ip: string | null;
  direct?: boolean;
}

const isLoopback = (ip: string) => ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127.");

/**
 * The address an attempt is throttled by, or null. Only a loopback *socket peer* is left out: it is
 * the host itself or a reverse proxy missing from server.trusted_proxies, and counting it would let
 * one guesser lock every operator out. A loopback-looking value forwarded by a trusted proxy
 * (127.0.0.2, ::1) is whatever the client sent through it, so it is counted like any address.
 */
function throttledIp(c: AttemptClient): string | null {
  if (c.ip === null) return null;
  return c.direct && isLoopback(c.ip) ? null : c.ip;
}

const userKey = (username: string) => `u:${username}`;
const ipKey = (ip: string) => `a:${ip}`;

/**
 * Who is locked out, or null: 5 failures of this username in the window (attempts still being
 * checked included: each is a failure row until it succeeds) lock it, 50 from this client address
 * lock the address, each until the oldest failure is 15 minutes old.
 */
export async function lockOf(deps: UserDeps, username: string, client: AttemptClient): Promise<LockReason | null> {
  return lockFrom(client, await storedFailures(deps.db, deps.now(), username, client));
}

/** The failures recorded in the window (reserved attempts included), by username and by address. */
async function storedFailures(db: UserDeps["db"], now: number, username: string, client: AttemptClient): Promise<{ user: number; ip: number }> {
  const since = now - LOCKOUT.windowMs;
  const ip = throttledIp(client);
  return { user: await failuresSince(db, { username }, since), ip: ip === null ? 0 : await failuresSince(db, { ip }, since) };
}

function lockFrom(client: AttemptClient, stored: { user: number; ip: number }): LockReason | null {
  if (stored.user >= LOCKOUT.failures) return "locked";
  return throttledIp(client) !== null && stored.ip >= LOCKOUT.ipFailures ? "address_locked" : null;
}

/**
 * Counts the failures and, below both limits, reserves the attempt as a failure row, in one
 * transaction that the attempts of this username and address take in turn (a database-side
 * rule: it holds across gateways on one PostgreSQL too). The row is deleted if the secret is right.
 */
async function reserveAttempt(deps: UserDeps, username: string, client: AttemptClient): Promise<{ id: number } | LockReason> {
  const now = deps.now();
  const ip = throttledIp(client);
  return await writeTx(deps.db, async (tx) => {
    await serializeLoginAttempts(tx, ip === null ? [userKey(username)] : [userKey(username), ipKey(ip)]);
    const locked = lockFrom(client, await storedFailures(tx, now, username, client));
    if (locked) return locked;
    return { id: await insertLoginFailure(tx, { username, ip: client.ip, at: now }) };
  });
}

/**
 * One sign-in, second-factor or re-authentication attempt (DESIGN 10: they share one per-user
 * limit). The attempt is reserved before `check` runs, so at most 5 secrets of a user are ever
 * checked per window, however many requests arrive at once, on however many gateways. A failure
 * stays recorded (a crash during the check too: it counts as one); the caller clears the count
 * once the user is fully through (a right password alone, with a second factor still owed, must
 * not reset it).
 */
export async function attempt(deps: UserDeps, username: string, client: AttemptClient, check: () => boolean | Promise<boolean>): Promise<"ok" | "invalid" | LockReason> {
  const reserved = await reserveAttempt(deps, username, client);
  if (typeof reserved === "string") return reserved;
  if (!(await check())) return await lockOf(deps, username, client) ?? "invalid";
  await writeTx(deps.db, async (tx) => await deleteLoginFailure(tx, reserved.id));
  return "ok";
}

const clearFailures = async (deps: UserDeps, username: string) => await writeTx(deps.db, async (tx) => await clearLoginFailures(tx, username));

/**
 * The session of a sign-in whose password was checked against `verified` (the user row read
 * before the check): created in one transaction with a fresh read of the user, and refused (null)
 * when the password changed meanwhile (a reset revokes every session; one verified against the old
 * hash must not be created after it), or the user or its merchant was disabled. With TOTP enrolled
 * the session waits for the code; a right password alone does not clear the failures then.
 */
async function newSession(deps: UserDeps, verified: UserRow, meta: { ip: string | null; userAgent: string | null }): Promise<{ token: string; session: SessionRow; user: UserRow } | null> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const user = await userById(tx, verified.id);
    if (!user || user.passwordHash !== verified.passwordHash || user.status !== "active" || !(await merchantActive(tx, user))) return null;
    const stage = userTotpSecret(deps, user) ? "totp" : "full";
    const session = await insertSession(tx, {
      id: newId("SS"),
      tokenHash: sha256(token),
      userId: user.id,
      stage,
      csrfToken,
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 200) ?? null,
      createdAt: now,
      lastSeenAt: now,
      reauthAt: now,
    });
    if (stage === "full") await clearLoginFailures(tx, user.username);
    return { token, session, user };
  });
}

/** A merchant user whose merchant is disabled cannot sign in (DESIGN 10: disabling signs them out). */
async function merchantActive(db: UserDeps["db"], user: UserRow): Promise<boolean> {
  if (user.merchantId === null) return true;
  return (await findMerchantById(db, user.merchantId))?.status === "active";
}

/** Step one: username and password. With TOTP enrolled the session waits for the code. */
export async function signIn(deps: UserDeps, input: { username: string; password: string; ip: string | null; direct?: boolean; userAgent: string | null }): Promise<SignInResult> {
  const username = input.username.trim().slice(0, 64);
  const user = await findUser(deps.db, username);
  const r = await attempt(deps, username, input, async () => {
    const ok = await Bun.password.verify(input.password.slice(0, 256), user?.passwordHash ?? dummy());
    return !!user && ok && user.status === "active" && await merchantActive(deps.db, user);
  });
  if (r !== "ok") return { ok: false, reason: r };
  const created = await newSession(deps, user!, input);
  if (!created) return { ok: false, reason: "invalid" };
  return { ok: true, ...created };
}

/** Step two: the code (or a recovery code) moves the session to "full"; failures count toward the lockout. */
export async function completeSecondFactor(deps: UserDeps, session: SessionRow, code: string, client: AttemptClient): Promise<"ok" | "invalid" | LockReason> {
  const user = await userById(deps.db, session.userId);
  if (!user || session.stage !== "totp") return "invalid";
  const r = await attempt(deps, user.username, client, async () => await verifySecondFactor(deps, user, code));
  if (r === "locked" || r === "address_locked") {
    await revokeSession(deps, session.id);
    return r;
  }
  if (r === "invalid") return r;
  const now = deps.now();
  await writeTx(deps.db, async (tx) => await patchSession(tx, session.id, { stage: "full", reauthAt: now, lastSeenAt: now }));
  await clearFailures(deps, user.username);
  return "ok";
}

/** The live session of a cookie token, or null (unknown, revoked, idle too long, too old, user disabled). */
export async function loadSession(deps: UserDeps, policy: SessionPolicy, token: string | undefined): Promise<{ session: SessionRow; user: UserRow } | null> {
  if (!token || token.length > 100) return null;
  const row = await sessionByTokenHash(deps.db, sha256(token));
  if (!row) return null;
  const { session: s, user: u } = row;
  const now = deps.now();
  if (s.revokedAt !== null || u.status !== "active") return null;
  if (now - s.lastSeenAt > policy.idleMs || now - s.createdAt > policy.maxMs) {
    await revokeSession(deps, s.id);
    return null;
  }
  if (now - s.lastSeenAt > TOUCH_MS) {
    await writeTx(deps.db, async (tx) => await patchSession(tx, s.id, { lastSeenAt: now }));
    s.lastSeenAt = now;
  }
  return { session: s, user: u };
}

export async function revokeSession(deps: UserDeps, sessionId: string, scope: { userId?: number } = {}): Promise<boolean> {
  return await writeTx(deps.db, async (tx) => await revokeSessionRow(tx, sessionId, deps.now(), scope.userId));
}

/** The user's live sessions, newest first (the security page lists them with "Sign out"). */
export async function activeSessions(deps: UserDeps, policy: SessionPolicy, userId: number): Promise<SessionRow[]> {
  const now = deps.now();
  return (await fullSessions(deps.db, userId)).filter((s) => now - s.lastSeenAt <= policy.idleMs && now - s.createdAt <= policy.maxMs);
}

/**
 * Re-authentication for money and key actions: the password, or the TOTP code when enrolled. It is
 * an attempt like a sign-in: it counts toward the user's limit and is refused while locked.
 */
export async function reauthenticate(
  deps: UserDeps,
  session: SessionRow,
  user: UserRow,
  secret: string,
  client: AttemptClient,
  opts: { passwordOnly?: boolean } = {},
): Promise<"ok" | "invalid" | LockReason> {
  if (!secret) return "invalid";
  const r = await attempt(deps, user.username, client, async () => {
    if (await Bun.password.verify(secret.slice(0, 256), user.passwordHash)) return true;
    return !opts.passwordOnly && userTotpSecret(deps, user) !== null && await verifySecondFactor(deps, user, secret);
  });
  if (r === "ok") {
    await writeTx(deps.db, async (tx) => await patchSession(tx, session.id, { reauthAt: deps.now() }));
    await clearFailures(deps, user.username);
  }
  return r;
}

export function needsReauth(deps: UserDeps, session: SessionRow): boolean {
  return deps.now() - session.reauthAt > REAUTH_MS;
}
