/** @jsxImportSource @kitajs/html */
// The back office (DESIGN 12), mounted in the gateway's Elysia app under /backoffice.
import { Elysia } from "elysia";
import { html as htmlPlugin } from "@elysiajs/html";
import { chainState } from "../ops/chain-status";
import { backofficeDeps, type BackofficeCtx, type BackofficeDeps, type BackofficeRuntime, html, page } from "./guard";
import { authRoutes } from "./pages/auth";
import { securityRoutes } from "./pages/security";
import { APP_CSS, APP_JS } from "./views/assets";
import { ErrorPage } from "./views/common";
import { NotFound } from "./errors";
import { consoleRoutes } from "./pages/console";
import { batchRoutes } from "./pages/batches";
import { developerRoutes } from "./pages/developer";
import { balanceRoutes } from "./pages/balances";
import { collectionRoutes } from "./pages/collection";
import { walletRoutes } from "./pages/wallets";
import { paymentLinkRoutes } from "./pages/payment-links";
import { feeRoutes } from "./pages/fees";
import { lookupRoutes } from "./pages/lookup";
import { mapSeq } from "../lib/async-seq";

const asset = (body: string, type: string) => () =>
  new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" } });

export function backofficeRoutes(ctx: BackofficeCtx, runtime: BackofficeRuntime) {
  const states = async () => await mapSeq([...ctx.chains.values()], async (a) => await chainState(a, runtime.watchers.get(a.chain), runtime.ops.gas, ctx.clock.now()));
  const d = backofficeDeps(ctx, () => runtime.kick(), states);
  return backofficeApp(d);
}

export function backofficeApp(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice" })
    .use(htmlPlugin({ autoDetect: false }))
    .get("/backoffice/assets/app.css", asset(APP_CSS, "text/css; charset=utf-8"))
    .get("/backoffice/assets/app.js", asset(APP_JS, "text/javascript; charset=utf-8"))
    .use(authRoutes(d))
    .use(securityRoutes(d))
    .use(consoleRoutes(d))
    .use(batchRoutes(d))
    .use(developerRoutes(d))
    .use(balanceRoutes(d))
    .use(collectionRoutes(d))
    .use(walletRoutes(d))
    .use(paymentLinkRoutes(d))
    .use(feeRoutes(d))
    .use(lookupRoutes(d))
    .get("/backoffice/*", page(d, {}, () => { throw new NotFound("There is no such page."); }))
    .post("/backoffice/*", () => html(ErrorPage({ viewer: null, status: 404, message: "There is no such page." }), 404));
}
