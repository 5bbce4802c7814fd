// The HTTP app: one Elysia instance per resource, composed here. Every
// response carries x-request-id; every failure has the spec's body.
import { Elysia } from "elysia";
import { AppError } from "./errors";
import { assignRequestId, requestIdOf } from "./request-id";
import { failure } from "./respond";
import type { Logger } from "../lib/logger";

export function baseApp(logger: Logger) {
  return new Elysia()
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = assignRequestId(request);
    })
    .onError(({ code, error, request }) => {
      if (error instanceof AppError) return failure(error, request);
      if (code === "NOT_FOUND") return failure(new AppError(10002), request);
      if (code === "PARSE") return failure(new AppError(10001, { fields: { body: "not valid JSON" } }, "Request body is not valid JSON"), request);
      if (code === "VALIDATION") return failure(new AppError(10001, null, "Request parameters invalid"), request);
      logger.error("unhandled error", { requestId: requestIdOf(request), path: safePath(request), error: String((error as Error)?.stack ?? error) });
      return failure(new AppError(10000), request);
    });
}

function safePath(req: Request): string {
  try {
    return new URL(req.url).pathname;
  } catch {
    return "?";
  }
}
