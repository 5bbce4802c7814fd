import { randomBytes } from "node:crypto";

const ids = new WeakMap<Request, string>();

/** 9 random bytes per id, drawn from a pool refilled every 256 ids (one randomBytes call each, not one per request). */
const POOL_IDS = 256;
let pool: Buffer = Buffer.alloc(0);
let at = 0;
function freshId(): string {
  if (at >= pool.length) {
    pool = randomBytes(9 * POOL_IDS);
    at = 0;
  }
  const id = "req_" + pool.toString("base64url", at, at + 9);
  at += 9;
  return id;
}

export function assignRequestId(req: Request): string {
  let id = ids.get(req);
  if (!id) {
    id = freshId();
    ids.set(req, id);
  }
  return id;
}

export function requestIdOf(req: Request | undefined): string | null {
  return req ? (ids.get(req) ?? null) : null;
}
