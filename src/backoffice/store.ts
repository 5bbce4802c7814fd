// The back office's own storage: its users, their sessions, failed sign-ins and the one-time
// setup token (docs/architecture.md "Data access"). Every statement on those tables, named by
// what it does; users.ts, sessions.ts, totp.ts and setup.ts call these. Drizzle's builder: none
// of these is hot.
import { and, asc, count, desc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { backofficeSessions, backofficeUsers, loginFailures, settings } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type UserRow = typeof backofficeUsers.$inferSelect;
export type SessionRow = typeof backofficeSessions.$inferSelect;

// Users

export async function findUser(db: Db, username: string): Promise<UserRow | undefined> {
  if (isPg(db)) return await pg.findUser(pgOf(db), username);
  return db.select().from(backofficeUsers).where(eq(backofficeUsers.username, username)).get();
}

export async function userById(db: Db, id: number): Promise<UserRow | undefined> {
  if (isPg(db)) return await pg.userById(pgOf(db), id);
  return db.select().from(backofficeUsers).where(eq(backofficeUsers.id, id)).get();
}

export async function listUsers(db: Db, scope: { merchantId?: number } = {}): Promise<UserRow[]> {
  if (isPg(db)) return await pg.listUsers(pgOf(db), scope);
  return db
    .select()
    .from(backofficeUsers)
    .where(scope.merchantId !== undefined ? eq(backofficeUsers.merchantId, scope.merchantId) : undefined)
    .orderBy(asc(backofficeUsers.id))
    .all();
}

export async function hasOperator(db: Db): Promise<boolean> {
  if (isPg(db)) return await pg.hasOperator(pgOf(db));
  return !!db.select({ id: backofficeUsers.id }).from(backofficeUsers).where(and(eq(backofficeUsers.role, "operator"), eq(backofficeUsers.status, "active"))).get();
}

export async function insertUser(tx: Db, values: typeof backofficeUsers.$inferInsert): Promise<UserRow> {
  if (isPg(tx)) return await pg.insertUser(pgOf(tx), values);
  return tx.insert(backofficeUsers).values(values).returning().get();
}

/** Writes `set` on the user; the row after. */
export async function patchUser(tx: Db, id: number, set: Partial<Omit<UserRow, "id">>): Promise<UserRow> {
  if (isPg(tx)) return await pg.patchUser(pgOf(tx), id, set);
  return tx.update(backofficeUsers).set(set).where(eq(backofficeUsers.id, id)).returning().get();
}

// Failed sign-ins (the lockout counts them)

/** Failures of a username, or from a client address, after `since`. */
export async function failuresSince(db: Db, by: { username: string } | { ip: string }, since: number): Promise<number> {
  if (isPg(db)) return await pg.failuresSince(pgOf(db), by, since);
  const who = "username" in by ? eq(loginFailures.username, by.username) : eq(loginFailures.ip, by.ip);
  return db.select({ n: count() }).from(loginFailures).where(and(who, gt(loginFailures.at, since))).get()?.n ?? 0;
}

/**
 * Makes the attempts of one username and of one client address take turns until the transaction
 * ends: the count of failures and the reservation of the next attempt (sessions.ts `reserveAttempt`)
 * must be one step across every process on the database. SQLite: nothing to do (the write
 * mutex and BEGIN IMMEDIATE already serialize every write transaction). PostgreSQL: one
 * `pg_advisory_xact_lock(hashtext(key))` per key, in the order given (username first).
 */
export async function serializeLoginAttempts(tx: Db, keys: string[]): Promise<void> {
  if (isPg(tx)) return await pg.serializeLoginAttempts(pgOf(tx), keys);
}

/** A failed attempt, or an attempt reserved before its secret is checked (deleted if it succeeds); its id. */
export async function insertLoginFailure(db: Db, row: { username: string; ip: string | null; at: number }): Promise<number> {
  if (isPg(db)) return await pg.insertLoginFailure(pgOf(db), row);
  return db.insert(loginFailures).values(row).returning({ id: loginFailures.id }).get().id;
}

/** An attempt reserved by `insertLoginFailure` whose secret was right. */
export async function deleteLoginFailure(tx: Db, id: number): Promise<void> {
  if (isPg(tx)) return await pg.deleteLoginFailure(pgOf(tx), id);
  tx.delete(loginFailures).where(eq(loginFailures.id, id)).run();
}

/**
 * Ends a user's sign-in lock (DESIGN 10: a lockout never locks an operator out of recovery): a
 * password reset (CLI `user reset-password` or the back office) and the setup link clear it, so
 * the new password works at once even while someone keeps guessing the old one.
 */
export async function clearLoginFailures(db: Db, username: string): Promise<void> {
  if (isPg(db)) return await pg.clearLoginFailures(pgOf(db), username);
  db.delete(loginFailures).where(eq(loginFailures.username, username)).run();
}

// Sessions

export async function insertSession(db: Db, values: typeof backofficeSessions.$inferInsert): Promise<SessionRow> {
  if (isPg(db)) return await pg.insertSession(pgOf(db), values);
  return db.insert(backofficeSessions).values(values).returning().get();
}

/** The session of a token hash with its user. */
export async function sessionByTokenHash(db: Db, tokenHash: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  if (isPg(db)) return await pg.sessionByTokenHash(pgOf(db), tokenHash);
  const row = db
    .select()
    .from(backofficeSessions)
    .innerJoin(backofficeUsers, eq(backofficeUsers.id, backofficeSessions.userId))
    .where(eq(backofficeSessions.tokenHash, tokenHash))
    .get();
  return row ? { session: row.backoffice_sessions, user: row.backoffice_users } : undefined;
}

export async function patchSession(db: Db, id: string, set: Partial<Pick<SessionRow, "stage" | "reauthAt" | "lastSeenAt">>): Promise<void> {
  if (isPg(db)) return await pg.patchSession(pgOf(db), id, set);
  db.update(backofficeSessions).set(set).where(eq(backofficeSessions.id, id)).run();
}

/** Revokes a live session (of that user only, when given); whether one was. */
export async function revokeSessionRow(db: Db, sessionId: string, now: number, userId?: number): Promise<boolean> {
  if (isPg(db)) return await pg.revokeSessionRow(pgOf(db), sessionId, now, userId);
  const where = userId !== undefined ? and(eq(backofficeSessions.id, sessionId), eq(backofficeSessions.userId, userId)) : eq(backofficeSessions.id, sessionId);
  return !!db.update(backofficeSessions).set({ revokedAt: now }).where(and(where, isNull(backofficeSessions.revokedAt))).returning().get();
}

/** Every unrevoked session of the user but `exceptSessionId` ends now. */
export async function revokeUserSessions(db: Db, userId: number, now: number, exceptSessionId?: string): Promise<void> {
  if (isPg(db)) return await pg.revokeUserSessions(pgOf(db), userId, now, exceptSessionId);
  const rows = db.select({ id: backofficeSessions.id }).from(backofficeSessions).where(and(eq(backofficeSessions.userId, userId), isNull(backofficeSessions.revokedAt))).all();
  for (const r of rows) {
    if (r.id !== exceptSessionId) db.update(backofficeSessions).set({ revokedAt: now }).where(eq(backofficeSessions.id, r.id)).run();
  }
}

/** The user's signed-in (stage full), unrevoked sessions, newest first. */
export async function fullSessions(db: Db, userId: number): Promise<SessionRow[]> {
  if (isPg(db)) return await pg.fullSessions(pgOf(db), userId);
  return db
    .select()
    .from(backofficeSessions)
    .where(and(eq(backofficeSessions.userId, userId), eq(backofficeSessions.stage, "full"), isNull(backofficeSessions.revokedAt)))
    .orderBy(desc(backofficeSessions.createdAt))
    .all();
}

// Settings (the setup token)

export async function getSetting(db: Db, key: string): Promise<string | undefined> {
  if (isPg(db)) return await pg.getSetting(pgOf(db), key);
  return db.select().from(settings).where(eq(settings.key, key)).get()?.value;
}

export async function putSetting(db: Db, key: string, value: string, now: number): Promise<void> {
  if (isPg(db)) return await pg.putSetting(pgOf(db), key, value, now);
  db.insert(settings).values({ key, value, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } }).run();
}

export async function deleteSetting(db: Db, key: string): Promise<void> {
  if (isPg(db)) return await pg.deleteSetting(pgOf(db), key);
  db.delete(settings).where(eq(settings.key, key)).run();
}
