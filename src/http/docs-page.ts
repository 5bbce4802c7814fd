// GET /openapi.json and GET /docs: the merchant API description and a
// readable, self-contained page rendered server-side from it (no scripts,
// no CDN), so both always say the same thing.
import { Elysia } from "elysia";
import { buildOpenApiDoc, type OpenApiDoc, type Operation } from "./openapi-doc";
import { ERRORS } from "../errors";

type Json = Record<string, unknown>;

const esc = (s: unknown) =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Inline markdown: `code` and **bold**, on escaped text. */
function inline(s: string): string {
  return esc(s)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

/** The small markdown subset the description uses: paragraphs, numbered and bullet lists. */
export function markdown(md: string): string {
  const out: string[] = [];
  for (const block of md.trim().split(/\n\s*\n/)) {
    const lines = block.split("\n");
    if (lines.every((l) => /^\d+\.\s/.test(l) || /^\s{2,}/.test(l))) {
      out.push("<ol>" + lines.map((l) => `<li>${inline(l.replace(/^\d+\.\s/, ""))}</li>`).join("") + "</ol>");
    } else if (lines.every((l) => /^[-*]\s/.test(l))) {
      out.push("<ul>" + lines.map((l) => `<li>${inline(l.slice(2))}</li>`).join("") + "</ul>");
    } else {
      out.push(`<p>${inline(lines.join(" "))}</p>`);
    }
  }
  return out.join("\n");
}

function resolve(doc: OpenApiDoc, s: Json): Json {
  const r = s.$ref;
  if (typeof r === "string" && r.startsWith("#/components/schemas/")) {
    return (doc.components.schemas[r.slice("#/components/schemas/".length)] ?? {}) as Json;
  }
  return s;
}

function typeOf(s: Json): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.anyOf)) return (s.anyOf as Json[]).map(typeOf).join(" | ");
  if (s.type === "array") return `${typeOf((s.items ?? {}) as Json)}[]`;
  const fmt = s.format ? ` (${s.format})` : "";
  return `${String(s.type ?? "any")}${fmt}`;
}

function rules(s: Json): string {
  const r: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) r.push(`length ${s.minLength ?? 0}-${s.maxLength ?? "∞"}`);
  if (s.pattern) r.push(`pattern <code>${esc(s.pattern)}</code>`);
  if (Array.isArray(s.examples) && s.examples.length) r.push(`e.g. <code>${esc(JSON.stringify(s.examples[0]))}</code>`);
  return r.join("; ");
}

/** Rows for every field, nested objects and arrays of objects flattened as `a.b` / `a[].b`. */
function fieldRows(doc: OpenApiDoc, schema: Json, prefix = ""): string[] {
  const s = resolve(doc, schema);
  const props = (s.properties ?? {}) as Record<string, Json>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const rows: string[] = [];
  for (const [name, p] of Object.entries(props)) {
    const full = prefix + name;
    const desc = inline(String(p.description ?? ""));
    const rule = rules(p);
    rows.push(`<tr><td><code>${esc(full)}</code></td><td>${esc(typeOf(p))}</td><td>${required.has(name) ? "yes" : "no"}</td><td>${desc}${desc && rule ? "<br>" : ""}${rule}</td></tr>`);
    if (p.type === "object" && p.properties) rows.push(...fieldRows(doc, p, full + "."));
    const items = p.items as Json | undefined;
    if (p.type === "array" && items?.type === "object" && items.properties) rows.push(...fieldRows(doc, items, full + "[]."));
  }
  return rows;
}

function schemaTable(doc: OpenApiDoc, schema: Json): string {
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Rule</th></tr></thead><tbody>${fieldRows(doc, schema).join("")}</tbody></table>`;
}

function paramsTable(params: Json[]): string {
  const rows = params.map(
    (p) =>
      `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? "yes" : "no"}</td><td>${inline(String(p.description ?? ""))} ${rules((p.schema ?? {}) as Json)}</td></tr>`,
  );
  return `<table><thead><tr><th>Parameter</th><th>In</th><th>Required</th><th>Rule</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function codesTable(codes: number[]): string {
  const rows = codes.map((c) => {
    const e = ERRORS[c as keyof typeof ERRORS];
    return `<tr><td><code>${c}</code></td><td>${e.status}</td><td>${esc(e.message)}</td></tr>`;
  });
  return `<table><thead><tr><th>code</th><th>HTTP</th><th>Meaning</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

const anchor = (op: { operationId: string }) => `op-${op.operationId}`;

function operationSection(doc: OpenApiDoc, method: string, path: string, op: Operation): string {
  const parts = [
    `<section id="${anchor(op)}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>`,
    `<p><strong>${esc(op.summary)}.</strong> ${inline(op.description)}</p>`,
  ];
  if (op.parameters?.length) parts.push("<h4>Parameters</h4>", paramsTable(op.parameters));
  const body = (op.requestBody?.content as Json | undefined)?.["application/json"] as Json | undefined;
  if (body) parts.push("<h4>Request body (JSON)</h4>", schemaTable(doc, body.schema as Json));
  const ok = ((op.responses["200"]?.content as Json)?.["application/json"] as Json | undefined)?.schema as Json | undefined;
  if (ok) parts.push("<h4>Response 200</h4>", schemaTable(doc, ok));
  parts.push("<h4>Error codes</h4>", codesTable(op["x-error-codes"]), "</section>");
  return parts.join("\n");
}

function webhookSection(doc: OpenApiDoc, name: string, hook: Json): string {
  const op = hook.post as Json;
  const schema = (((op.requestBody as Json).content as Json)["application/json"] as Json).schema as Json;
  return [
    `<section id="hook-${esc(name)}"><h3><span class="m post">POST</span> your notifyUrl — ${esc(op.summary)}</h3>`,
    `<p>${inline(String(op.description))}</p>`,
    "<h4>Headers</h4>",
    paramsTable(op.parameters as Json[]),
    "<h4>Body (JSON)</h4>",
    schemaTable(doc, schema),
    "</section>",
  ].join("\n");
}

const CSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:62rem;margin:0 auto;padding:1rem 1.5rem;color:#1d2230}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #dde;padding-bottom:.2rem;margin-top:2.5rem}h3{margin-top:2rem}
code{background:#f2f3f7;padding:0 .25rem;border-radius:3px;font-size:.92em}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem}th,td{border:1px solid #dde;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f7f8fb}.m{display:inline-block;min-width:3.2rem;text-align:center;border-radius:3px;color:#fff;font-size:.8em;padding:.1rem .3rem}
.m.get{background:#2a7ab9}.m.post{background:#2f9b5a}nav ul{columns:2}.muted{color:#667}`;

/** The reference page as one HTML document. */
export function renderDocsPage(doc: OpenApiDoc): string {
  const ops: Array<[string, string, Operation]> = [];
  for (const [path, methods] of Object.entries(doc.paths)) for (const [m, op] of Object.entries(methods)) ops.push([m, path, op]);
  const servers = (doc.servers as Array<{ url: string }> | undefined) ?? [];
  const webhooks = Object.entries((doc.webhooks ?? {}) as Record<string, Json>);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)}</title><style>${CSS}</style></head>
<body>
<h1>${esc(doc.info.title)}</h1>
<p class="muted">Version ${esc(doc.info.version)} · base URL <code>${esc(servers[0]?.url ?? "")}</code> · machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${esc(doc.openapi)})</p>
<nav><ul>${ops.map(([m, p, op]) => `<li><a href="#${anchor(op)}">${m.toUpperCase()} ${esc(p)}</a></li>`).join("")}</ul></nav>
<h2>Authentication</h2>
${markdown(doc.info.description)}
<h2>Endpoints</h2>
${ops.map(([m, p, op]) => operationSection(doc, m, p, op)).join("\n")}
<h2>Callbacks</h2>
${webhooks.map(([name, hook]) => webhookSection(doc, name, hook)).join("\n")}
<h2>Failure body</h2>
${schemaTable(doc, { $ref: "#/components/schemas/Failure" })}
<h2>Error codes</h2>
${codesTable(Object.keys(ERRORS).map(Number))}
</body></html>
`;
}

/**
 * Public (unsigned) routes. `publicUrl` may be a getter: a gateway started on
 * port 0 learns its URL only after listening.
 */
export function docsRoutes(publicUrl: string | (() => string)) {
  const url = typeof publicUrl === "function" ? publicUrl : () => publicUrl;
  let cached: { url: string; json: string; html: string } | null = null;
  const current = () => {
    const u = url();
    if (!cached || cached.url !== u) {
      const doc = buildOpenApiDoc(u);
      cached = { url: u, json: JSON.stringify(doc), html: renderDocsPage(doc) };
    }
    return cached;
  };
  return new Elysia()
    .get("/openapi.json", () => new Response(current().json, { headers: { "content-type": "application/json; charset=utf-8" } }))
    .get("/docs", () => new Response(current().html, { headers: { "content-type": "text/html; charset=utf-8" } }));
}
