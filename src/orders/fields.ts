// Field schemas shared by the merchant API's request bodies.
import { Type as T } from "@sinclair/typebox";
import { chainModules } from "../chains/registry";

export const AmountField = T.String({
  pattern: "^(0|[1-9]\\d*)(\\.\\d{1,6})?$",
  description: "Decimal string, > 0, at most 6 fractional digits, no leading zeros (0.x excepted). JSON numbers are rejected.",
  examples: ["100.50"],
  errorMessage: "must be a decimal string with at most 6 fractional digits and no leading zeros",
});
/** "TRON, BSC, SOL, ETH, …, PLASMA or TON": the registry's chains. */
const chainNames = () => chainModules().map((m) => m.code).join(", ").replace(/, ([^,]*)$/, " or $1");
export const ChainCodeField = T.String({ description: chainNames(), examples: [chainModules()[0]!.code], errorMessage: "must be a string" });
export const TokenSymbolField = T.String({ description: "USDT or USDC, matching chainCode", examples: ["USDT"], errorMessage: "must be a string" });
/**
 * Free text the gateway stores or compares (DESIGN 5): well-formed Unicode (checked for every string in
 * src/lib/validate.ts) and limited in characters, i.e. code points, as JSON Schema's maxLength means
 * (validate.ts re-judges TypeBox's UTF-16 count).
 */
export function TextField(max: number, opts: { description: string; errorMessage?: string; min?: number; pattern?: string }) {
  const min = opts.min ?? 1;
  return T.String({
    ...(min ? { minLength: min } : {}),
    maxLength: max,
    ...(opts.pattern ? { pattern: opts.pattern } : {}),
    description: opts.description,
    errorMessage: opts.errorMessage ?? (min ? `must be a string of ${min}-${max} characters` : `must be a string of at most ${max} characters`),
  });
}

/**
 * Identifiers (merchantOrderNo, bindKey, refundNo, label; DESIGN 10 "Hardening") refuse control
 * characters (C0, DEL, C1; NUL included) and bidirectional overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069): they are shown in the back office, CSV exports and logs, where U+202E can make
 * one identifier read as another.
 */
export const IDENTIFIER_CHARS = "[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]*";
const NO_CONTROLS = "without control characters or bidirectional overrides";

export function IdentifierField(max: number, opts: { description: string; min?: number; notDots?: boolean }) {
  const min = opts.min ?? 1;
  const size = min ? `${min}-${max} characters` : `at most ${max} characters`;
  return TextField(max, {
    min,
    description: `${opts.description}; no control characters or bidirectional overrides`,
    pattern: `^${opts.notDots ? "(?!\\.\\.?$)" : ""}${IDENTIFIER_CHARS}$`,
    errorMessage: `must be a string of ${size} ${NO_CONTROLS}${opts.notDots ? ", not . or .." : ""}`,
  });
}

export const OrderNoField = IdentifierField(128, { description: "Merchant order number, 1-128 characters (code points), well-formed Unicode" });
export const UrlField = T.String({ minLength: 1, maxLength: 2048, description: "http(s) URL that receives callbacks", errorMessage: "must be an http(s) URL" });
