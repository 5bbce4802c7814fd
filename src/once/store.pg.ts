// once/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, eq, lt } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { formSubmissions } from "../db/schema-pg";
import type { SubmissionRow } from "./store";

export async function claimSubmission(tx: PgQ, row: { token: string; scope: string; createdAt: number }): Promise<boolean> {
  return (await firstRow(tx.insert(formSubmissions).values({ ...row, state: "running" }).onConflictDoNothing().returning({ token: formSubmissions.token }))) !== undefined;
}

export async function submissionByToken(db: PgQ, token: string): Promise<SubmissionRow | undefined> {
  return await firstRow(db.select().from(formSubmissions).where(eq(formSubmissions.token, token)));
}

export async function recordSubmission(tx: PgQ, token: string, answer: { status: number; headers: string; body: string; doneAt: number }): Promise<void> {
  await tx
    .update(formSubmissions)
    .set({ state: "done", ...answer })
    .where(and(eq(formSubmissions.token, token), eq(formSubmissions.state, "running")));
}

export async function releaseSubmission(tx: PgQ, token: string): Promise<void> {
  await tx.delete(formSubmissions).where(and(eq(formSubmissions.token, token), eq(formSubmissions.state, "running")));
}

export async function pruneSubmissions(tx: PgQ, before: number): Promise<void> {
  await tx.delete(formSubmissions).where(lt(formSubmissions.createdAt, before));
}
