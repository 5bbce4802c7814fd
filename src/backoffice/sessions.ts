// Server-side sessions and sign-in (DESIGN 12). The cookie carries a random
// token; the table keeps its SHA-256, so a database copy cannot sign in.
// Sessions end after `backoffice.session_idle` without a request or
// `backoffice.session_max` after sign-in, measured with the injected clock.
import { createHash, randomBytes } from "node:crypto";
import { writeTx } from "../db/client";
import { newId } from "../lib/ids";
import { clearLoginFailures, findUser, userById, type UserDeps, type UserRow } from "./users";
import { failuresSince, fullSessions, insertLoginFailure, insertSession, patchSession, revokeSessionRow, sessionByTokenHash, type SessionRow } from "./store";
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

// Attempts whose secret is being checked right now, per database, by username and by address.
// They are reserved synchronously, before the asynchronous argon2 check, and count toward the
// limits like failures: parallel guesses cannot all pass the check "fewer than 5 so far".
const inFlightByDb = new WeakMap<object, Map<string, number>>();
function inFlight(deps: UserDeps): Map<string, number> {
  let m = inFlightByDb.get(deps.db);
  if (!m) inFlightByDb.set(deps.db, (m = new Map()));
  return m;
}
const userKey = (username: string) => `u:${username}`;
const ipKey = (ip: string) => `a:${ip}`;

/**
 * Who is locked out, or null: 5 failures (or attempts still being checked) of this username in the
 * window lock it, 50 from this client address lock the address, each until the oldest failure is
 * 15 minutes old.
 */
export async function lockOf(deps: UserDeps, username: string, client: AttemptClient): Promise<LockReason | null> {
  return lockFrom(deps, username, client, await storedFailures(deps, username, client));
}

/** The failures recorded in the window, by username and by address (read before the lock check). */
async function storedFailures(deps: UserDeps, username: string, client: AttemptClient): Promise<{ user: number; ip: number }> {
  const since = deps.now() - LOCKOUT.windowMs;
  const ip = throttledIp(client);
  return { user: await failuresSince(deps.db, { username }, since), ip: ip === null ? 0 : await failuresSince(deps.db, { ip }, since) };
}

/** The lock check proper: stored failures plus the attempts in flight (synchronous, so it and the reservation are one step). */
function lockFrom(deps: UserDeps, username: string, client: AttemptClient, stored: { user: number; ip: number }): LockReason | null {
  const pending = inFlight(deps);
  if (stored.user + (pending.get(userKey(username)) ?? 0) >= LOCKOUT.failures) return "locked";
  const ip = throttledIp(client);
  if (ip === null) return null;
  return stored.ip + (pending.get(ipKey(ip)) ?? 0) >= LOCKOUT.ipFailures ? "address_locked" : null;
}

/**
 * One sign-in, second-factor or re-authentication attempt (DESIGN 10: they share one per-user
 * limit). The attempt is reserved before `check` runs, so at most 5 secrets of a user are ever
 * checked per window, however many requests arrive at once. A failure is recorded; the caller
 * clears the count once the user is fully through (a right password alone, with a second factor
 * still owed, must not reset it).
 */
export async function attempt(deps: UserDeps, username: string, client: AttemptClient, check: () => boolean | Promise<boolean>): Promise<"ok" | "invalid" | LockReason> {
  // The stored count is read first; the check and the reservation then run with no await
  // between them, so parallel attempts cannot all pass "fewer than 5 so far".
  const locked = lockFrom(deps, username, client, await storedFailures(deps, username, client));
  if (locked) return locked;
  const pending = inFlight(deps);
  const ip = throttledIp(client);
  const keys = ip === null ? [userKey(username)] : [userKey(username), ipKey(ip)];
  for (const k of keys) pending.set(k, (pending.get(k) ?? 0) + 1);
  let ok = false;
  try {
    ok = await check();
  } finally {
    // The failure is stored before the reservation is released: it never counts nowhere.
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const k of keys) {
        const left = (pending.get(k) ?? 1) - 1;
        if (left > 0) pending.set(k, left);
        else pending.delete(k);
      }
    };
    try {
      // In its own transaction; the reservation goes right after the INSERT, with no await between.
      if (!ok)
        await writeTx(deps.db, async (tx) => {
          await insertLoginFailure(tx, { username, ip: client.ip, at: deps.now() });
          release();
        });
    } finally {
      release();
    }
  }
  if (!ok) return await lockOf(deps, username, client) ?? "invalid";
  return "ok";
}

const clearFailures = async (deps: UserDeps, username: string) => await writeTx(deps.db, async (tx) => await clearLoginFailures(tx, username));

async function newSession(deps: UserDeps, user: UserRow, stage: "totp" | "full", meta: { ip: string | null; userAgent: string | null }) {
  const token = randomBytes(32).toString("base64url");
  const now = deps.now();
  const session = await writeTx(deps.db, async (tx) => await insertSession(tx, {
    id: newId("SS"),
    tokenHash: sha256(token),
    userId: user.id,
    stage,
    csrfToken: randomBytes(24).toString("base64url"),
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 200) ?? null,
    createdAt: now,
    lastSeenAt: now,
    reauthAt: now,
  }));
  return { token, session };
}

/** A merchant user whose merchant is disabled cannot sign in (DESIGN 10: disabling signs them out). */
async function merchantActive(deps: UserDeps, user: UserRow): Promise<boolean> {
  if (user.merchantId === null) return true;
  return (await findMerchantById(deps.db, user.merchantId))?.status === "active";
}

/** Step one: username and password. With TOTP enrolled the session waits for the code. */
export async function signIn(deps: UserDeps, input: { username: string; password: string; ip: string | null; direct?: boolean; userAgent: string | null }): Promise<SignInResult> {
  const username = input.username.trim().slice(0, 64);
  const user = await findUser(deps.db, username);
  const r = await attempt(deps, username, input, async () => {
    const ok = await Bun.password.verify(input.password.slice(0, 256), user?.passwordHash ?? dummy());
    return !!user && ok && user.status === "active" && await merchantActive(deps, user);
  });
  if (r !== "ok") return { ok: false, reason: r };
  const fresh = (await userById(deps.db, user!.id))!;
  const stage = userTotpSecret(deps, fresh) ? "totp" : "full";
  const { token, session } = await newSession(deps, fresh, stage, input);
  // A right password alone does not clear the count while a second factor is still owed.
  if (stage === "full") await clearFailures(deps, username);
  return { ok: true, token, session, user: fresh };
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
