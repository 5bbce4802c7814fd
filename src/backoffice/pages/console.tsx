/** @jsxImportSource @kitajs/html */
// The console pages shared by both roles and the operator's own pages.
import { Elysia } from "elysia";
import type { BackofficeDeps } from "../guard";
import { callbacksRoutes } from "./callbacks";
import { dashboardRoutes } from "./dashboard";
import { exceptionsRoutes } from "./exceptions";
import { listsRoutes } from "./lists";
import { orderRoutes } from "./order";
import { merchantsRoutes } from "./merchants";
import { usersRoutes } from "./users";
import { auditRoutes } from "./audit";
import { alertsRoutes } from "./alerts";

export function consoleRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-console" })
    .use(dashboardRoutes(d))
    .use(listsRoutes(d))
    .use(orderRoutes(d))
    .use(exceptionsRoutes(d))
    .use(callbacksRoutes(d))
    .use(merchantsRoutes(d))
    .use(usersRoutes(d))
    .use(auditRoutes(d))
    .use(alertsRoutes(d));
}
