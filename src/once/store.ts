// The storage module of form_submissions (src/once/once.ts): claim a token, keep the answer of
// its action, read it again, let a claim go, and delete what no token can name any more.
import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { formSubmissions } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type SubmissionRow = typeof formSubmissions.$inferSelect;

/** The token's claim for `scope`; false when the token is claimed already (by this scope or another). */
export async function claimSubmission(tx: Db, row: { token: string; scope: string; createdAt: number }): Promise<boolean> {
  if (isPg(tx)) return await pg.claimSubmission(pgOf(tx), row);
  return tx.insert(formSubmissions).values({ ...row, state: "running" }).onConflictDoNothing().returning({ token: formSubmissions.token }).get() !== undefined;
}

export async function submissionByToken(db: Db, token: string): Promise<SubmissionRow | undefined> {
  if (isPg(db)) return await pg.submissionByToken(pgOf(db), token);
  return db.select().from(formSubmissions).where(eq(formSubmissions.token, token)).get();
}

/** Keeps the answer of the claimed token's action (compare-and-set on running). */
export async function recordSubmission(tx: Db, token: string, answer: { status: number; headers: string; body: string; doneAt: number }): Promise<void> {
  if (isPg(tx)) return await pg.recordSubmission(pgOf(tx), token, answer);
  tx.update(formSubmissions)
    .set({ state: "done", ...answer })
    .where(and(eq(formSubmissions.token, token), eq(formSubmissions.state, "running")))
    .run();
}

/** Lets go of a claim whose action failed with nothing done (a retry runs it again). */
export async function releaseSubmission(tx: Db, token: string): Promise<void> {
  if (isPg(tx)) return await pg.releaseSubmission(pgOf(tx), token);
  tx.delete(formSubmissions).where(and(eq(formSubmissions.token, token), eq(formSubmissions.state, "running"))).run();
}

/** Deletes the submissions made before `before` (their tokens are refused as too old anyway). */
export async function pruneSubmissions(tx: Db, before: number): Promise<void> {
  if (isPg(tx)) return await pg.pruneSubmissions(pgOf(tx), before);
  tx.delete(formSubmissions).where(lt(formSubmissions.createdAt, before)).run();
}
