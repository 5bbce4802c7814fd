// Every /openapi route goes through here: authenticate, then the handler.
import type { AppContext } from "../app/context";
import { authenticate, recordNonce, verifySignature, type AuthDeps, type Authenticated } from "../auth/verify";
import type { RateLimiter } from "../auth/rate-limit";
import { AppError } from "./errors";
import { failure, json } from "./respond";
import { buildBlockList, clientAddress, peerOf } from "./client-ip";

export type SignedHandler = (auth: Authenticated) => unknown | Promise<unknown>;

export function authDeps(ctx: AppContext, rateLimiter?: RateLimiter): AuthDeps {
  const trusted = ctx.config.server.trusted_proxies.length ? buildBlockList(ctx.config.server.trusted_proxies) : null;
  return {
    db: ctx.db,
    cipher: ctx.cipher,
    now: () => ctx.clock.now(),
    toleranceMs: ctx.ms.timestampTolerance,
    maxBodyBytes: ctx.config.server.max_body_bytes,
    rateLimiter,
    clientIp: (req) => clientAddress(peerOf(req) ?? undefined, req.headers.get("x-forwarded-for"), trusted),
  };
}

/** Runs `handler` for an authenticated request; AppErrors become the failure body. */
export async function signed(deps: AuthDeps, request: Request, handler: SignedHandler, status = 200): Promise<Response> {
  try {
    const auth = await authenticate(deps, request);
    const result = await handler(auth);
    return json(result, status, request);
  } catch (e) {
    if (e instanceof AppError) return failure(e, request);
    throw e;
  }
}

/**
 * For synchronous writes: the nonce is recorded in the same transaction as the
 * handler's writes (one commit per request, as a hand-written endpoint would).
 * When the handler fails, the nonce is still recorded, in its own commit, so a
 * failed request cannot be replayed either.
 */
export async function signedWrite<T>(deps: AuthDeps, request: Request, handler: (auth: Authenticated) => T extends Promise<unknown> ? never : T, status = 200): Promise<Response> {
  try {
    const auth = await verifySignature(deps, request);
    let result: T;
    try {
      result = deps.db.$client.transaction(() => {
        recordNonce(deps, auth);
        return handler(auth);
      }).immediate();
    } catch (e) {
      if (e instanceof AppError && e.code !== 20016) recordNonce(deps, auth);
      throw e;
    }
    return json(result, status, request);
  } catch (e) {
    if (e instanceof AppError) return failure(e, request);
    throw e;
  }
}
