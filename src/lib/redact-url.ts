/**
 * An endpoint as it may be logged: provider URLs often carry an API key in the
 * path, the query or the userinfo, so only scheme and host are shown.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const hidden = (u.pathname && u.pathname !== "/") || u.search || u.username || u.password;
    return `${u.protocol}//${u.host}${hidden ? "/…" : ""}`;
  } catch {
    return "(invalid url)";
  }
}

/** `text` with every occurrence of `url` replaced by its redacted form. */
export const redactIn = (text: string, url: string) => text.split(url).join(redactUrl(url));
