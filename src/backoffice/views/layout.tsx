/** @jsxImportSource @kitajs/html */
// The one layout of every back-office page: header with the search box,
import type { Children } from "@kitajs/html";
// navigation, main content. Phone and desktop from one stylesheet.
import type { Viewer } from "../guard";
import { navFor } from "./nav";
import { locale, tr } from "../i18n";

export interface LayoutProps {
  title: string;
  viewer: Viewer | null;
  /** Path of the current page, to mark the navigation entry. */
  path?: string;
  /** Prefills the header search box (the search results page). */
  q?: string;
  children?: Children;
}

export function Layout(p: LayoutProps): JSX.Element {
  const v = p.viewer;
  // While a first step is owed (a new password, an operator's 2FA) only that page and "Sign out" lead anywhere.
  const full = v !== null && v.owes === null;
  return (
    <html lang={locale() === "zh" ? "zh-CN" : "en"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title safe>{tr(p.title) + " · stablegate"}</title>
        <link rel="stylesheet" href="/backoffice/assets/app.css" />
        <script src="/backoffice/assets/app.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main" safe>
          {tr("Skip to content")}
        </a>
        <header class="top">
          <a class="brand" href="/backoffice">
            stablegate
          </a>
          {v && full ? (
            // On a phone the tabs are a menu at the foot of the page; this jumps to it (no script needed).
            <a class="menu-link" href="#nav" safe>
              {tr("Menu")}
            </a>
          ) : null}
          {v ? (
            <>
              {full ? (
                <form class="search" role="search" method="get" action="/backoffice/search">
                  <label for="q" safe>{tr("Search")}</label>
                  <input id="q" name="q" type="search" value={p.q ?? ""} placeholder={tr("orderNo, merchantOrderNo, txHash, address")} />
                  <button type="submit" safe>{tr("Search")}</button>
                </form>
              ) : null}
              <form class="signout" method="post" action="/backoffice/logout">
                <input type="hidden" name="_csrf" value={v.csrf} />
                <span class="who" safe>
                  {v.user.username + (v.role === "operator" ? ` ${tr("(operator)")}` : "")}
                </span>
                <button type="submit" class="link" safe>
                  {tr("Sign out")}
                </button>
              </form>
            </>
          ) : null}
        </header>
        {v && full ? (
          <nav class="nav" id="nav" aria-label={tr("Main")}>
            <ul>
              {navFor(v.role).map((n) => (
                <li>
                  <a href={n.href} aria-current={isCurrent(p.path, n.href) ? "page" : undefined} safe>
                    {tr(n.label)}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        <main id="main">
          <h1 safe>{tr(p.title)}</h1>
          {p.children}
        </main>
      </body>
    </html>
  );
}

function isCurrent(path: string | undefined, href: string): boolean {
  if (!path) return false;
  return href === "/backoffice" ? path === "/backoffice" : path === href || path.startsWith(href + "/");
}
