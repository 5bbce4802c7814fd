import { Elysia } from "elysia";
import type { AppContext } from "../app/context";
import { VERSION } from "../version";

export function healthRoutes(ctx: AppContext) {
  return new Elysia().get("/healthz", () => {
    ctx.db.$client.query("SELECT 1").get();
    return { status: "ok", version: VERSION, chains: [...ctx.chains.values()].map((c) => ({ chainCode: c.chain, mode: c.mode })) };
  });
}
