// A signed-in back-office session over plain fetch (tests that drive the pages'
// forms without a browser, e.g. against a gateway child process).
export interface BackofficeClient {
  get(path: string): Promise<Response>;
  /** POSTs a form with the session's CSRF token added; `file` fields go as multipart. */
  /** `headers` e.g. Accept-Language. */
  post(path: string, fields: Record<string, string | Blob>, headers?: Record<string, string>): Promise<Response>;
  /** The CSRF token of the session (from any signed-in page). */
  csrf: string;
  /** The session cookie header value. */
  cookie: string;
}

const cookieOf = (res: Response, name: string): string | undefined => {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const i = pair!.indexOf("=");
    if (pair!.slice(0, i) === name) return pair!.slice(i + 1);
  }
  return undefined;
};
const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** One POST of the sign-in form (with the login page's CSRF token); `headers` e.g. X-Forwarded-For. */
export async function postLogin(baseUrl: string, who: { username: string; password: string }, headers: Record<string, string> = {}): Promise<Response> {
  const login = await fetch(baseUrl + "/backoffice/login", { headers });
  const pre = cookieOf(login, "sg_csrf");
  const preToken = csrfIn(await login.text());
  if (!pre || !preToken) throw new Error("login page without a CSRF token");
  const form = new URLSearchParams({ _csrf: preToken, username: who.username, password: who.password, next: "/backoffice" });
  return fetch(baseUrl + "/backoffice/login", { method: "POST", body: form, headers: { ...headers, cookie: `sg_csrf=${pre}` }, redirect: "manual" });
}

export async function backofficeSignIn(baseUrl: string, who: { username: string; password: string }): Promise<BackofficeClient> {
  const res = await postLogin(baseUrl, who);
  const session = cookieOf(res, "sg_session");
  if (!session) throw new Error(`sign-in failed: ${res.status}`);
  const cookie = `sg_session=${session}`;
  const home = await fetch(baseUrl + "/backoffice", { headers: { cookie } });
  const csrf = csrfIn(await home.text());
  if (!csrf) throw new Error("no CSRF token on the dashboard");
  return {
    csrf,
    cookie,
    get: (path) => fetch(baseUrl + path, { headers: { cookie }, redirect: "manual" }),
    post: (path, fields, headers = {}) => {
      const multipart = Object.values(fields).some((v) => v instanceof Blob);
      let body: BodyInit;
      if (multipart) {
        const fd = new FormData();
        fd.set("_csrf", csrf);
        for (const [k, v] of Object.entries(fields)) v instanceof Blob ? fd.set(k, v, k === "file" ? "payouts.csv" : undefined) : fd.set(k, v);
        body = fd;
      } else {
        body = new URLSearchParams({ _csrf: csrf, ...(fields as Record<string, string>) });
      }
      return fetch(baseUrl + path, { method: "POST", body, headers: { ...headers, cookie }, redirect: "manual" });
    },
  };
}

/**
 * The hidden fields of the page's form posting to `action` (its CSRF token and one-time token
 * `_once`): what a browser sends with that form, for tests that post the form as rendered.
 */
export function hiddenFieldsOf(html: string, action: string): Record<string, string> {
  const forms = [...html.matchAll(/<form\b[^>]*>[\s\S]*?<\/form>/g)].map((m) => m[0]);
  const form = forms.find((f) => new RegExp(`action="${action.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\?[^"]*)?"`).test(f.slice(0, f.indexOf(">") + 1)));
  if (!form) throw new Error(`no form posting to ${action}`);
  const fields: Record<string, string> = {};
  for (const [input] of form.matchAll(/<input\b[^>]*>/g)) {
    if (!/type="hidden"/.test(input)) continue;
    const name = /name="([^"]*)"/.exec(input)?.[1];
    if (name) fields[name] = (/value="([^"]*)"/.exec(input)?.[1] ?? "").replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#34;", '"');
  }
  return fields;
}
