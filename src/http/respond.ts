import { AppError, failureBody } from "../errors";
import { requestIdOf } from "./request-id";

export function json(body: unknown, status = 200, req?: Request, headers: Record<string, string> = {}): Response {
  const h: Record<string, string> = { "content-type": "application/json; charset=utf-8", ...headers };
  const id = requestIdOf(req);
  if (id) h["x-request-id"] = id;
  return new Response(JSON.stringify(body), { status, headers: h });
}

export function failure(e: AppError, req?: Request): Response {
  const extra: Record<string, string> = (e.code === 10029 || e.code === 10003) && e.data?.retryAfter ? { "retry-after": String(e.data.retryAfter) } : {};
  return json(failureBody(e, requestIdOf(req)), e.status, req, extra);
}
