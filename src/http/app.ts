// The HTTP app: one Elysia instance per resource, composed here. Every
// response carries x-request-id; every failure has the spec's body.
import { Elysia, ValidationError } from "elysia";
import { AppError, invalid } from "../errors";
import { assignRequestId, requestIdOf } from "./request-id";
import { failure } from "./respond";
import type { Logger } from "../lib/logger";
import { rememberRoute } from "../ops/http-route";

export function baseApp(logger: Logger) {
  return new Elysia()
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = assignRequestId(request);
    })
    // Route templates for metrics labels (raw paths never become labels).
    .onTransform(({ request, route }) => rememberRoute(request, route))
    .onError(({ code, error, request, route }) => {
      rememberRoute(request, route);
      if (error instanceof AppError) return failure(error, request);
      if (code === "NOT_FOUND") return failure(new AppError(10002), request);
      if (code === "PARSE") return failure(new AppError(10001, { fields: { body: "not valid JSON" } }, "Request body is not valid JSON"), request);
      if (code === "VALIDATION") return failure(validationFailure(error), request);
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
