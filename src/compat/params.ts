// Reading a shop plugin's parameters (DESIGN 19): a JSON object, a form body (urlencoded or
// multipart) or the query string, as a flat name → text map. Every value is text as the
// signature sees it: a JSON number as its shortest decimal text, null as absent. Anything else
// (a nested value, a boolean, malformed or oversized bodies) is a ParamsError, which each
// protocol answers in its own shape.
import { readCapped } from "../auth/verify";
import { jsonTooDeep } from "../lib/json-depth";
import { numberText } from "../lib/compat-signing";

export class ParamsError extends Error {}

export type Params = Record<string, string>;

function fromEntries(entries: Iterable<[string, string]>): Params {
  // A name given twice keeps its last value, as PHP's $_GET/$_POST do.
  const out: Params = Object.create(null);
  for (const [k, v] of entries) out[k] = v;
  return { ...out };
}

function fromJson(text: string): Params {
  if (jsonTooDeep(text)) throw new ParamsError("the body nests too deep");
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ParamsError("the body is not valid JSON");
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new ParamsError("the body must be a JSON object");
  const out: [string, string][] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === null) continue;
    if (typeof x === "string") out.push([k, x]);
    else if (typeof x === "number" && Number.isFinite(x)) out.push([k, numberText(x)]);
    else throw new ParamsError(`${k} must be a string or a number`);
  }
  return fromEntries(out);
}

/** The query string's parameters (decoded; `+` is a space, as forms send it). */
export function queryParams(url: string): Params {
  const i = url.indexOf("?");
  return i < 0 ? {} : fromEntries(new URLSearchParams(url.slice(i + 1)));
}

/** The body's parameters: JSON when it says so or is a JSON object (any content type), else a form. */
export async function bodyParams(req: Request, maxBytes: number): Promise<Params> {
  let buf: Uint8Array;
  try {
    buf = await readCapped(req, maxBytes);
  } catch {
    throw new ParamsError(`the body must be at most ${maxBytes} bytes`);
  }
  if (!buf.byteLength) return {};
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    throw new ParamsError("the body is not valid UTF-8");
  }
  const ct = (req.headers.get("content-type") ?? "").toLowerCase();
  if (ct.includes("multipart/form-data")) {
    let form: FormData;
    try {
      form = await new Response(buf as Uint8Array<ArrayBuffer>, { headers: { "content-type": req.headers.get("content-type")! } }).formData();
    } catch {
      throw new ParamsError("the multipart body cannot be read");
    }
    const out: [string, string][] = [];
    for (const [k, v] of form.entries()) {
      if (typeof v !== "string") throw new ParamsError(`${k} must be a text field`);
      out.push([k, v]);
    }
    return fromEntries(out);
  }
  // JSON whatever the label (DESIGN 24: plugins post JSON as a form, curl's default type); a form never starts with "{".
  if (ct.includes("json") || text.trimStart().startsWith("{")) return fromJson(text);
  return fromEntries(new URLSearchParams(text));
}
