import { randomBytes } from "node:crypto";

const ids = new WeakMap<Request, string>();

export function assignRequestId(req: Request): string {
  let id = ids.get(req);
  if (!id) {
    id = "req_" + randomBytes(9).toString("base64url");
    ids.set(req, id);
  }
  return id;
}

export function requestIdOf(req: Request | undefined): string | null {
  return req ? (ids.get(req) ?? null) : null;
}
