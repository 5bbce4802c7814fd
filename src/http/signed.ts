// Every /openapi route goes through here: authenticate, then the handler.
import type { AppContext } from "../app/context";
import { authenticate, type AuthDeps, type Authenticated } from "../auth/verify";
import type { RateLimiter } from "../auth/rate-limit";
import { AppError } from "./errors";
import { failure, json } from "./respond";

export type SignedHandler = (auth: Authenticated) => unknown | Promise<unknown>;

export function authDeps(ctx: AppContext, rateLimiter?: RateLimiter): AuthDeps {
  return {
    db: ctx.db,
    cipher: ctx.cipher,
    now: () => ctx.clock.now(),
    toleranceMs: ctx.ms.timestampTolerance,
    maxBodyBytes: ctx.config.server.max_body_bytes,
    rateLimiter,
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
