// Elysia reads the path from the first "/" at or after index 11 of request.url, which
// assumes "http://" plus a host of 4+ characters: with `Host: api` every route was 404.
// Such a request is handed on with a placeholder host (the Host header itself is kept).
export function routable(req: Request): Request {
  const url = req.url;
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  if (pathStart >= 11) return req;
  return new Request("http://localhost" + (pathStart === -1 ? "/" : url.slice(pathStart)), req);
}
