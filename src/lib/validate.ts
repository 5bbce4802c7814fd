// Input validation against TypeBox schemas (also the source of the OpenAPI
// description): one 10001 naming every offending field. Used by the HTTP
// handlers and by anything else that reads untrusted records (batch CSV rows).
import { Value } from "@sinclair/typebox/value";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import type { Static, TSchema } from "@sinclair/typebox";
import { invalid } from "../errors";
import { codePointLength } from "./text";

/** Validates `value` against `schema`; 10001 naming every offending field. */
export function parse<S extends TSchema>(schema: S, value: unknown, where = "body"): Static<S> {
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value)) {
    if (where === "body") throw invalid({ body: "must be a JSON object" });
  }
  const fields: Record<string, string> = {};
  illFormed(value, "", fields, where);
  // Hot path (every create): a compiled check; the error walk runs only when it fails.
  if (checker(schema)(value)) {
    if (Object.keys(fields).length) throw invalid(fields);
    return value as Static<S>;
  }
  for (const e of Value.Errors(schema, value)) {
    if (withinCodePoints(e)) continue;
    const name = e.path.replace(/^\//, "").replace(/\//g, ".") || where;
    if (!fields[name]) fields[name] = describe(e.schema, e.message);
  }
  if (Object.keys(fields).length) throw invalid(fields);
  return value as Static<S>;
}

const checks = new WeakMap<TSchema, (v: unknown) => boolean>();
function checker(schema: TSchema): (v: unknown) => boolean {
  let c = checks.get(schema);
  if (!c) {
    let compiled: TypeCheck<TSchema> | null = null;
    try {
      compiled = TypeCompiler.Compile(schema);
    } catch {
      // a schema the compiler does not take: checked by interpretation
    }
    c = compiled ? (v) => compiled.Check(v) : (v) => Value.Check(schema, v);
    checks.set(schema, c);
  }
  return c;
}

/**
 * DESIGN 5: every string must be well-formed Unicode. A lone surrogate is
 * refused, never replaced: stored as UTF-8 it would become U+FFFD and collide
 * with other inputs (three bindKeys once shared one address that way).
 */
function illFormed(v: unknown, path: string, fields: Record<string, string>, where: string): void {
  if (typeof v === "string") {
    if (!v.isWellFormed()) fields[path || where] = "must be well-formed Unicode (no lone surrogates)";
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => illFormed(x, path ? `${path}.${i}` : String(i), fields, where));
  } else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const p = path ? `${path}.${k}` : k;
      if (!k.isWellFormed()) fields[where] = "field names must be well-formed Unicode";
      else illFormed(x, p, fields, where);
    }
  }
}

/**
 * JSON Schema counts a string's length in characters (code points); TypeBox counts UTF-16
 * units, so 128 emoji would fail maxLength 128. Length errors are re-judged in code points.
 */
function withinCodePoints(e: ValueError): boolean {
  if (e.type !== ValueErrorType.StringMaxLength && e.type !== ValueErrorType.StringMinLength) return false;
  if (typeof e.value !== "string") return false;
  const n = codePointLength(e.value);
  const { maxLength, minLength } = e.schema as { maxLength?: number; minLength?: number };
  return (maxLength === undefined || n <= maxLength) && (minLength === undefined || n >= minLength);
}

function describe(schema: TSchema, fallback: string): string {
  return (schema as { errorMessage?: string }).errorMessage ?? fallback;
}
