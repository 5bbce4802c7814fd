// The console pages shared by both roles and the operator's own pages.
import { Elysia } from "elysia";
import { type BackofficeDeps, page } from "../guard";
import { Layout } from "../views/layout";

export function consoleRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-console" }).get(
    "/backoffice",
    page(d, {}, (v) => (
      <Layout title="Dashboard" viewer={v} path="/backoffice">
        <p>Welcome.</p>
      </Layout>
    )),
  );
}
