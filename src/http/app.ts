// The HTTP app: one Elysia instance per resource, composed here. Every
// response carries x-request-id; every failure has the spec's body.
import { Elysia, ValidationError } from "elysia";
import { AppError, invalid } from "../errors";
import { assignRequestId, requestIdOf } from "./request-id";
import { failure } from "./respond";
import type { Logger } from "../lib/logger";
import { rememberRoute } from "../ops/http-route";
import { describeFault, isStorageFault, STORAGE_RETRY_AFTER_S, storageUnavailable } from "../db/storage-fault";
import { LogLimiter } from "../lib/log-limit";

/** A plain page for browsers (the back office, hosted pages) while storage is unavailable. */
export function storagePage(): Response {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Temporarily unavailable</title></head><body><h1>Temporarily unavailable</h1><p>The gateway cannot write to its storage (disk full, I/O error or database file lost). Nothing was changed. Try again in a minute; the operator has been alerted.</p></body></html>`;
  return new Response(body, { status: 503, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "retry-after": String(STORAGE_RETRY_AFTER_S) } });
}

export function baseApp(logger: Logger) {
  // A full disk fails every request: one log line per interval, not one per request.
  const limited = new LogLimiter(logger, Date.now);
  return new Elysia()
    // The id, for failure bodies and logs; the header goes on in one place, the server's fetch
    // handler (withSecurityHeaders): Elysia merging `set.headers` into every response cost a
    // request ~6 µs. JSON answers (respond.ts) carry it already.
    .onRequest(({ request }) => {
      assignRequestId(request);
    })
    // Route templates for metrics labels (raw paths never become labels).
    .onTransform(({ request, route }) => rememberRoute(request, route))
    .onError(({ code, error, request, route }) => {
      rememberRoute(request, route);
      if (error instanceof AppError) return failure(error, request);
      if (code === "NOT_FOUND") return failure(new AppError(10002), request);
      if (code === "PARSE") return failure(new AppError(10001, { fields: { body: "not valid JSON" } }, "Request body is not valid JSON"), request);
      if (code === "VALIDATION") return failure(validationFailure(error), request);
      if (isStorageFault(error)) {
        limited.log("error", "storage", "storage unavailable: request refused with 10003", { path: safePath(request), error: describeFault(error) });
        return safePath(request).startsWith("/backoffice") ? storagePage() : failure(storageUnavailable(), request);
      }
      logger.error("unhandled error", { requestId: requestIdOf(request), path: safePath(request), error: String((error as Error)?.stack ?? error) });
      return failure(new AppError(10000), request);
    });
}

/** Elysia-level schema failures (params/query/body declared on a route): 10001 naming the fields. */
function validationFailure(error: unknown): AppError {
  const fields: Record<string, string> = {};
  if (error instanceof ValidationError) {
    for (const e of error.all) {
      const path = "path" in e && typeof e.path === "string" ? e.path : "";
      const name = path.replace(/^\//, "").replace(/\//g, ".") || error.type;
      const custom = "schema" in e ? (e.schema as { errorMessage?: string } | undefined)?.errorMessage : undefined;
      if (!fields[name]) fields[name] = custom ?? ("message" in e && typeof e.message === "string" ? e.message : "invalid");
    }
  }
  if (!Object.keys(fields).length) fields.request = "invalid";
  return invalid(fields);
}

function safePath(req: Request): string {
  try {
    return new URL(req.url).pathname;
  } catch {
    return "?";
  }
}
