// Request validation: TypeBox schemas (also the source of the OpenAPI
// description) plus the business rules the spec gives their own codes.
import { Value } from "@sinclair/typebox/value";
import type { Static, TSchema } from "@sinclair/typebox";
import { AppError, invalid } from "./errors";
import { CHAIN_CODES, TOKEN_SYMBOLS, type ChainCode, type TokenSymbol } from "../chains/types";
import { DEFAULT_TOKENS } from "../chains/tokens";

/** Validates `value` against `schema`; 10001 naming every offending field. */
export function parse<S extends TSchema>(schema: S, value: unknown, where = "body"): Static<S> {
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value)) {
    if (where === "body") throw invalid({ body: "must be a JSON object" });
  }
  const fields: Record<string, string> = {};
  for (const e of Value.Errors(schema, value)) {
    const name = e.path.replace(/^\//, "").replace(/\//g, ".") || where;
    if (!fields[name]) fields[name] = describe(e.schema, e.message);
  }
  if (Object.keys(fields).length) throw invalid(fields);
  return value as Static<S>;
}

function describe(schema: TSchema, fallback: string): string {
  return (schema as { errorMessage?: string }).errorMessage ?? fallback;
}

/** Chain and token codes: 31001 / 31002 / 31003 (spec 7). */
export function checkChainToken(chainCode: string, tokenSymbol: string): { chain: ChainCode; token: TokenSymbol } {
  if (!CHAIN_CODES.includes(chainCode as ChainCode)) throw new AppError(31001, { chainCode });
  if (!TOKEN_SYMBOLS.includes(tokenSymbol as TokenSymbol)) throw new AppError(31002, { tokenSymbol });
  if (!DEFAULT_TOKENS.some((t) => t.chain === chainCode && t.symbol === tokenSymbol)) throw new AppError(31003, { chainCode, tokenSymbol });
  return { chain: chainCode as ChainCode, token: tokenSymbol as TokenSymbol };
}
