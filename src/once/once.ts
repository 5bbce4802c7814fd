// One-time form tokens (issue 36): the one mechanism that makes a form's POST happen once.
//
// A form carries `_once`, a token made when the form is rendered (`newOnceToken`: the time it was
// made and 128 random bits). It is the action's idempotency key: the first POST that presents it
// claims it (form_submissions' primary key: of two POSTs at once, one claims), runs the action
// and keeps its answer with the token; every later POST of that token gets the kept answer
// (`x-once: replay`), and one arriving while the action runs waits for that answer. The answer's
// body is sealed with the master key (a page may show a secret once) and Set-Cookie is never kept.
// An action that fails with a server error (5xx, or throws) did nothing: its claim is let go and
// the same token may run again. A claim whose answer never came (the process died mid-action) is
// answered "outcome not recorded": the operator looks before doing it again, it is never re-run.
// A POST without a token runs as before (a scripted client opts out, like an API call without an
// idempotency key); a malformed token, one older than ONCE_TTL_MS, or one presented by another
// scope (another user, another form) is refused and nothing runs.
import { randomBytes } from "node:crypto";
import { writeTx, type Db } from "../db/client";
import type { Cipher } from "../secrets/cipher";
import { claimSubmission, pruneSubmissions, recordSubmission, releaseSubmission, submissionByToken, type SubmissionRow } from "./store";

/** The form field that carries the token. */
export const ONCE_FIELD = "_once";
/** How long a rendered form's token may be submitted (and its answer is kept). */
export const ONCE_TTL_MS = 24 * 3600_000;
/** How long a POST of a token whose action is under way waits for that action's answer. */
export const ONCE_WAIT_MS = 20_000;
const POLL_MS = 50;
/** Clock skew tolerated in a token's time (a token from the future is malformed). */
const SKEW_MS = 5 * 60_000;
const TOKEN = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})$/;

export interface OnceDeps {
  db: Db;
  cipher: Cipher;
  now(): number;
  /** How long a POST of a claimed token waits for its answer; default ONCE_WAIT_MS. */
  waitMs?: number;
}

/** Why a POST with a token ran nothing: the caller answers with its own page. */
export type OnceRefusal = "malformed" | "expired" | "elsewhere" | "unrecorded";

/** A new form's token: when it was made (base 36 ms) and 128 random bits. */
export function newOnceToken(now: number): string {
  const at = Number.isFinite(now) ? Math.max(0, Math.floor(now)) : Date.now();
  return `${at.toString(36)}.${randomBytes(16).toString("base64url")}`;
}

/** The token of a POST: absent (null), refused, or good. */
export function readOnceToken(value: unknown, now: number): null | { token: string } | { refused: "malformed" | "expired" } {
  if (value === undefined || value === null || value === "") return null;
  const m = typeof value === "string" ? TOKEN.exec(value) : null;
  if (!m) return { refused: "malformed" };
  const made = parseInt(m[1]!, 36);
  if (made > now + SKEW_MS) return { refused: "malformed" };
  if (made < now - ONCE_TTL_MS) return { refused: "expired" };
  return { token: value as string };
}

/**
 * Runs `run` once for the form's token: the first POST runs it and keeps its answer, the others
 * get that answer. `value` is the POST's `_once` field; `scope` who may present it and where.
 */
export async function once(d: OnceDeps, value: unknown, scope: string, run: (token: string | null) => Promise<Response>, refuse: (why: OnceRefusal) => Response): Promise<Response> {
  const now = d.now();
  const t = readOnceToken(value, now);
  if (t === null) return run(null);
  if ("refused" in t) return refuse(t.refused);
  const token = t.token;
  for (;;) {
    const mine = await writeTx(d.db, async (tx) => {
      await pruneSubmissions(tx, now - ONCE_TTL_MS - SKEW_MS);
      return await claimSubmission(tx, { token, scope, createdAt: now });
    });
    if (mine) break;
    const kept = await answerOfClaimed(d, token, scope, refuse);
    if (kept) return kept; // else the claim was let go (its action did nothing): claim it again
  }
  let res: Response;
  try {
    res = await run(token);
  } catch (e) {
    await letGo(d, token);
    throw e;
  }
  if (res.status >= 500) {
    await letGo(d, token);
    return res;
  }
  const body = await res.text();
  const headers: [string, string][] = [];
  res.headers.forEach((value, name) => {
    if (name.toLowerCase() !== "set-cookie") headers.push([name, value]);
  });
  await writeTx(d.db, async (tx) => await recordSubmission(tx, token, { status: res.status, headers: JSON.stringify(headers), body: d.cipher.encrypt(body), doneAt: d.now() }));
  return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, headers: res.headers });
}

async function letGo(d: OnceDeps, token: string): Promise<void> {
  try {
    await writeTx(d.db, async (tx) => await releaseSubmission(tx, token));
  } catch {
    // The database refuses writes (a storage fault): the claim stays, a retry reads "not recorded".
  }
}

/** A token claimed before: its kept answer, once there (waiting up to ONCE_WAIT_MS), the refusal, or null when the claim was let go. */
async function answerOfClaimed(d: OnceDeps, token: string, scope: string, refuse: (why: OnceRefusal) => Response): Promise<Response | null> {
  const deadline = Date.now() + (d.waitMs ?? ONCE_WAIT_MS);
  for (;;) {
    const row = await submissionByToken(d.db, token);
    if (!row) return null;
    if (row.scope !== scope) return refuse("elsewhere");
    if (row.state === "done") return replay(d, row);
    if (Date.now() >= deadline) return refuse("unrecorded");
    await Bun.sleep(POLL_MS);
  }
}

function replay(d: OnceDeps, row: SubmissionRow): Response {
  const headers = new Headers(JSON.parse(row.headers ?? "[]") as [string, string][]);
  headers.set("x-once", "replay");
  const status = row.status ?? 200;
  return new Response(status === 204 || status === 304 ? null : d.cipher.decrypt(row.body ?? d.cipher.encrypt("")), { status, headers });
}
