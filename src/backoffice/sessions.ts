// Server-side sessions and sign-in (DESIGN 12). The cookie carries a random
// token; the table keeps its SHA-256, so a database copy cannot sign in.
// Sessions end after `backoffice.session_idle` without a request or
// `backoffice.session_max` after sign-in, measured with the injected clock.
import { and, count, desc, eq, gt, isNull } from "drizzle-orm";
import { createHash, randomBytes } from "node:crypto";
import { writeTx } from "../db/client";
import { backofficeSessions, backofficeUsers, loginFailures } from "../db/schema";
import { newId } from "../lib/ids";
import { findUser, userById, type UserDeps, type UserRow } from "./users";
import { userTotpSecret, verifySecondFactor } from "./totp";

export type SessionRow = typeof backofficeSessions.$inferSelect;

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

const isLoopback = (ip: string) => ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127.");

/**
 * Who is locked out, or null: 5 failures of this username in the window lock it, 50 failures
 * from this (non-loopback) client address lock the address, each until the oldest failure is
 * 15 minutes old.
 */
export function lockOf(deps: UserDeps, username: string, ip: string | null): "locked" | "address_locked" | null {
  const since = deps.now() - LOCKOUT.windowMs;
  const n = deps.db.select({ n: count() }).from(loginFailures).where(and(eq(loginFailures.username, username), gt(loginFailures.at, since))).get()?.n ?? 0;
  if (n >= LOCKOUT.failures) return "locked";
  // A loopback client is the host itself, or a reverse proxy left out of server.trusted_proxies:
  // counting it would let one guesser lock every operator out, so only the username limit applies.
  if (ip === null || isLoopback(ip)) return null;
  const m = deps.db.select({ n: count() }).from(loginFailures).where(and(eq(loginFailures.ip, ip), gt(loginFailures.at, since))).get()?.n ?? 0;
  return m >= LOCKOUT.ipFailures ? "address_locked" : null;
}

function recordFailure(deps: UserDeps, username: string, ip: string | null): void {
  deps.db.insert(loginFailures).values({ username, ip, at: deps.now() }).run();
}

function newSession(deps: UserDeps, user: UserRow, stage: "totp" | "full", meta: { ip: string | null; userAgent: string | null }) {
  const token = randomBytes(32).toString("base64url");
  const now = deps.now();
  const session = deps.db
    .insert(backofficeSessions)
    .values({
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
    })
    .returning()
    .get();
  return { token, session };
}

/** Step one: username and password. With TOTP enrolled the session waits for the code. */
export async function signIn(deps: UserDeps, input: { username: string; password: string; ip: string | null; userAgent: string | null }): Promise<SignInResult> {
  const username = input.username.trim().slice(0, 64);
  const locked = lockOf(deps, username, input.ip);
  if (locked) return { ok: false, reason: locked };
  const user = findUser(deps.db, username);
  const ok = await Bun.password.verify(input.password.slice(0, 256), user?.passwordHash ?? dummy());
  if (!user || !ok || user.status !== "active") {
    recordFailure(deps, username, input.ip);
    return { ok: false, reason: lockOf(deps, username, input.ip) ?? "invalid" };
  }
  const stage = userTotpSecret(deps, user) ? "totp" : "full";
  const { token, session } = newSession(deps, user, stage, input);
  if (stage === "full") clearFailures(deps, username);
  return { ok: true, token, session, user };
}

function clearFailures(deps: UserDeps, username: string) {
  deps.db.delete(loginFailures).where(eq(loginFailures.username, username)).run();
}

/** Step two: the code (or a recovery code) moves the session to "full"; failures count toward the lockout. */
export function completeSecondFactor(deps: UserDeps, session: SessionRow, code: string, ip: string | null): "ok" | "invalid" | "locked" | "address_locked" {
  const user = userById(deps.db, session.userId);
  if (!user || session.stage !== "totp") return "invalid";
  const before = lockOf(deps, user.username, ip);
  if (before) {
    revokeSession(deps, session.id);
    return before;
  }
  if (!verifySecondFactor(deps, user, code)) {
    recordFailure(deps, user.username, ip);
    const after = lockOf(deps, user.username, ip);
    if (after) {
      revokeSession(deps, session.id);
      return after;
    }
    return "invalid";
  }
  const now = deps.now();
  deps.db.update(backofficeSessions).set({ stage: "full", reauthAt: now, lastSeenAt: now }).where(eq(backofficeSessions.id, session.id)).run();
  clearFailures(deps, user.username);
  return "ok";
}

/** The live session of a cookie token, or null (unknown, revoked, idle too long, too old, user disabled). */
export function loadSession(deps: UserDeps, policy: SessionPolicy, token: string | undefined): { session: SessionRow; user: UserRow } | null {
  if (!token || token.length > 100) return null;
  const row = deps.db
    .select()
    .from(backofficeSessions)
    .innerJoin(backofficeUsers, eq(backofficeUsers.id, backofficeSessions.userId))
    .where(eq(backofficeSessions.tokenHash, sha256(token)))
    .get();
  if (!row) return null;
  const { backoffice_sessions: s, backoffice_users: u } = row;
  const now = deps.now();
  if (s.revokedAt !== null || u.status !== "active") return null;
  if (now - s.lastSeenAt > policy.idleMs || now - s.createdAt > policy.maxMs) {
    revokeSession(deps, s.id);
    return null;
  }
  if (now - s.lastSeenAt > TOUCH_MS) {
    deps.db.update(backofficeSessions).set({ lastSeenAt: now }).where(eq(backofficeSessions.id, s.id)).run();
    s.lastSeenAt = now;
  }
  return { session: s, user: u };
}

export function revokeSession(deps: UserDeps, sessionId: string, scope: { userId?: number } = {}): boolean {
  const where = scope.userId !== undefined ? and(eq(backofficeSessions.id, sessionId), eq(backofficeSessions.userId, scope.userId)) : eq(backofficeSessions.id, sessionId);
  const r = deps.db.update(backofficeSessions).set({ revokedAt: deps.now() }).where(and(where, isNull(backofficeSessions.revokedAt))).returning().get();
  return !!r;
}

/** The user's live sessions, newest first (the security page lists them with "Sign out"). */
export function activeSessions(deps: UserDeps, policy: SessionPolicy, userId: number): SessionRow[] {
  const now = deps.now();
  return deps.db
    .select()
    .from(backofficeSessions)
    .where(and(eq(backofficeSessions.userId, userId), eq(backofficeSessions.stage, "full"), isNull(backofficeSessions.revokedAt)))
    .orderBy(desc(backofficeSessions.createdAt))
    .all()
    .filter((s) => now - s.lastSeenAt <= policy.idleMs && now - s.createdAt <= policy.maxMs);
}

/** Re-authentication for money and key actions: the password, or the TOTP code when enrolled. */
export async function reauthenticate(deps: UserDeps, session: SessionRow, user: UserRow, secret: string): Promise<boolean> {
  if (!secret) return false;
  const ok = (await Bun.password.verify(secret.slice(0, 256), user.passwordHash)) || (userTotpSecret(deps, user) !== null && verifySecondFactor(deps, user, secret));
  if (ok) writeTx(deps.db, (tx) => tx.update(backofficeSessions).set({ reauthAt: deps.now() }).where(eq(backofficeSessions.id, session.id)).run());
  return ok;
}

export function needsReauth(deps: UserDeps, session: SessionRow): boolean {
  return deps.now() - session.reauthAt > REAUTH_MS;
}
