// backoffice/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
// Failed sign-ins live in the database, so the lockout holds across every gateway of one database
// (DESIGN 22): serializeLoginAttempts makes the count and the reservation one step between them.
import { and, asc, count, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { backofficeSessions, backofficeUsers, loginFailures, settings } from "../db/schema-pg";
import type { SessionRow, UserRow } from "./store";

export async function findUser(db: PgQ, username: string): Promise<UserRow | undefined> {
  return await firstRow(db.select().from(backofficeUsers).where(eq(backofficeUsers.username, username)));
}

export async function userById(db: PgQ, id: number): Promise<UserRow | undefined> {
  return await firstRow(db.select().from(backofficeUsers).where(eq(backofficeUsers.id, id)));
}

export async function listUsers(db: PgQ, scope: { merchantId?: number } = {}): Promise<UserRow[]> {
  return await db
    .select()
    .from(backofficeUsers)
    .where(scope.merchantId !== undefined ? eq(backofficeUsers.merchantId, scope.merchantId) : undefined)
    .orderBy(asc(backofficeUsers.id));
}

export async function hasOperator(db: PgQ): Promise<boolean> {
  return !!(await firstRow(db.select({ id: backofficeUsers.id }).from(backofficeUsers).where(and(eq(backofficeUsers.role, "operator"), eq(backofficeUsers.status, "active"))).limit(1)));
}

export async function insertUser(tx: PgQ, values: typeof backofficeUsers.$inferInsert): Promise<UserRow> {
  return (await firstRow(tx.insert(backofficeUsers).values(values).returning()))!;
}

export async function patchUser(tx: PgQ, id: number, set: Partial<Omit<UserRow, "id">>): Promise<UserRow> {
  return (await firstRow(tx.update(backofficeUsers).set(set).where(eq(backofficeUsers.id, id)).returning()))!;
}

export async function failuresSince(db: PgQ, by: { username: string } | { ip: string }, since: number): Promise<number> {
  const who = "username" in by ? eq(loginFailures.username, by.username) : eq(loginFailures.ip, by.ip);
  return (await firstRow(db.select({ n: count() }).from(loginFailures).where(and(who, gt(loginFailures.at, since)))))?.n ?? 0;
}

/**
 * One transaction-scoped advisory lock per key, in the order given (username first, then the
 * address: every attempt takes them in that order, so two never wait on each other in a cycle).
 * Held until COMMIT or ROLLBACK: the attempts of one username take turns on every gateway.
 */
export async function serializeLoginAttempts(tx: PgQ, keys: string[]): Promise<void> {
  for (const k of keys) await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${"stablegate.login:" + k}))`);
}

export async function insertLoginFailure(db: PgQ, row: { username: string; ip: string | null; at: number }): Promise<number> {
  return (await firstRow(db.insert(loginFailures).values(row).returning({ id: loginFailures.id })))!.id;
}

export async function deleteLoginFailure(tx: PgQ, id: number): Promise<void> {
  await tx.delete(loginFailures).where(eq(loginFailures.id, id));
}

export async function clearLoginFailures(db: PgQ, username: string): Promise<void> {
  await db.delete(loginFailures).where(eq(loginFailures.username, username));
}

export async function insertSession(db: PgQ, values: typeof backofficeSessions.$inferInsert): Promise<SessionRow> {
  return (await firstRow(db.insert(backofficeSessions).values(values).returning()))!;
}

export async function sessionByTokenHash(db: PgQ, tokenHash: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await firstRow(
    db.select().from(backofficeSessions).innerJoin(backofficeUsers, eq(backofficeUsers.id, backofficeSessions.userId)).where(eq(backofficeSessions.tokenHash, tokenHash)),
  );
  return row ? { session: row.backoffice_sessions, user: row.backoffice_users } : undefined;
}

export async function patchSession(db: PgQ, id: string, set: Partial<Pick<SessionRow, "stage" | "reauthAt" | "lastSeenAt">>): Promise<void> {
  await db.update(backofficeSessions).set(set).where(eq(backofficeSessions.id, id));
}

export async function revokeSessionRow(db: PgQ, sessionId: string, now: number, userId?: number): Promise<boolean> {
  const where = userId !== undefined ? and(eq(backofficeSessions.id, sessionId), eq(backofficeSessions.userId, userId)) : eq(backofficeSessions.id, sessionId);
  return (await db.update(backofficeSessions).set({ revokedAt: now }).where(and(where, isNull(backofficeSessions.revokedAt))).returning({ id: backofficeSessions.id })).length > 0;
}

export async function revokeUserSessions(db: PgQ, userId: number, now: number, exceptSessionId?: string): Promise<void> {
  const rows = await db.select({ id: backofficeSessions.id }).from(backofficeSessions).where(and(eq(backofficeSessions.userId, userId), isNull(backofficeSessions.revokedAt)));
  for (const r of rows) {
    if (r.id !== exceptSessionId) await db.update(backofficeSessions).set({ revokedAt: now }).where(eq(backofficeSessions.id, r.id));
  }
}

export async function fullSessions(db: PgQ, userId: number): Promise<SessionRow[]> {
  return await db
    .select()
    .from(backofficeSessions)
    .where(and(eq(backofficeSessions.userId, userId), eq(backofficeSessions.stage, "full"), isNull(backofficeSessions.revokedAt)))
    .orderBy(desc(backofficeSessions.createdAt));
}

export async function getSetting(db: PgQ, key: string): Promise<string | undefined> {
  return (await firstRow(db.select().from(settings).where(eq(settings.key, key))))?.value;
}

export async function putSetting(db: PgQ, key: string, value: string, now: number): Promise<void> {
  await db.insert(settings).values({ key, value, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } });
}

export async function deleteSetting(db: PgQ, key: string): Promise<void> {
  await db.delete(settings).where(eq(settings.key, key));
}
