// Every /openapi route goes through here: authenticate, then the handler.
import type { Config } from "../config/schema";
import { type Db, savepoint, type Tx } from "../db/client";
import { isPg } from "../db/engine";
import type { Clock } from "../lib/clock";
import type { Cipher } from "../secrets/cipher";
import { recordNonce, verifySignature, type AuthDeps, type Authenticated } from "../auth/verify";
import type { RateLimiter } from "../auth/rate-limit";
import { groupCommit } from "../db/group-commit";
import { AppError } from "../errors";
import { failure, json } from "./respond";
import { clientIpResolver } from "../lib/client-ip";

export type SignedHandler = (auth: Authenticated) => unknown | Promise<unknown>;

/** What request authentication is built from (the gateway's context satisfies it). */
export interface AuthCtx {
  db: Db;
  cipher: Cipher;
  clock: Clock;
  config: Pick<Config, "server">;
  ms: { timestampTolerance: number };
}

export function authDeps(ctx: AuthCtx, rateLimiter?: RateLimiter): AuthDeps {
  const clientIp = clientIpResolver(ctx.config.server.trusted_proxies);
  return {
    db: ctx.db,
    cipher: ctx.cipher,
    now: () => ctx.clock.now(),
    toleranceMs: ctx.ms.timestampTolerance,
    maxBodyBytes: ctx.config.server.max_body_bytes,
    rateLimiter,
    clientIp: (req) => clientIp(req) ?? undefined,
  };
}

/**
 * Runs `handler` for an authenticated request; AppErrors become the failure body.
 * The nonce is committed (with the group of concurrent requests, db/group-commit.ts)
 * before the handler runs.
 */
export async function signed(deps: AuthDeps, request: Request, handler: SignedHandler, status = 200): Promise<Response> {
  try {
    const auth = await verifySignature(deps, request);
    // One INSERT: on PostgreSQL an autocommit statement (no BEGIN/COMMIT of its own, group-commit.ts oneStatement).
    await groupCommit(deps.db).run({ work: async () => await recordNonce(deps, auth), oneStatement: true });
    const result = await handler(auth);
    return json(result, status, request);
  } catch (e) {
    if (e instanceof AppError) return failure(e, request);
    throw e;
  }
}

/**
 * For writes: the nonce and the handler's writes share one savepoint of a
 * group commit, and the response waits for that commit (the handler awaits
 * stores only: no I/O inside the transaction, db/write-lock.ts). When
 * the handler fails, its writes roll back alone and the nonce is still
 * recorded (in the same group), so a failed request cannot be replayed either.
 */
export async function signedWrite<T>(deps: AuthDeps, request: Request, handler: (auth: Authenticated) => Promise<T> | T, status = 200): Promise<Response> {
  try {
    const auth = await verifySignature(deps, request);
    const outcome = await groupCommit(deps.db).run({
      work: async (): Promise<{ value: T } | { refused: AppError }> => {
        if (!isPg(deps.db)) {
          await recordNonce(deps, auth);
          return { value: await handler(auth) };
        }
        return await nonceThenHandler(deps, auth, handler);
      },
      recover: async (e) => {
        if (e instanceof AppError && e.code !== 20016) await recordNonce(deps, auth);
      },
    });
    if ("refused" in outcome) throw outcome.refused;
    const result = outcome.value;
    return json(result, status, request);
  } catch (e) {
    if (e instanceof AppError) return failure(e, request);
    throw e;
  }
}

/**
 * PostgreSQL: concurrent requests run at once, so a replay waits on this nonce row. The handler
 * runs in a savepoint: refused, its writes roll back alone and the nonce commits, so the waiting
 * replays find it (rolled back, they would each pass authentication). The nonce's INSERT is on the
 * wire before the savepoint (auth/store.pg.ts) and awaited after the handler: BEGIN, the nonce,
 * SAVEPOINT and the handler's first statement are one round trip. A replay's handler runs behind
 * its nonce (queued on the connection until the first request commits) and is rolled back with
 * the whole transaction: the nonce's answer decides first, 20016.
 */
async function nonceThenHandler<T>(deps: AuthDeps, auth: Authenticated, handler: (auth: Authenticated) => Promise<T> | T): Promise<{ value: T } | { refused: AppError }> {
  const nonce = recordNonce(deps, auth).then(() => null, (e: unknown) => ({ e }));
  let outcome: { value: T } | { thrown: unknown };
  try {
    outcome = { value: await savepoint(deps.db as Tx, async () => await handler(auth)) };
  } catch (e) {
    outcome = { thrown: e };
  }
  const failed = await nonce;
  if (failed) throw failed.e;
  if ("value" in outcome) return outcome;
  const e = outcome.thrown;
  if (e instanceof AppError && e.code !== 20016) return { refused: e };
  throw e;
}
