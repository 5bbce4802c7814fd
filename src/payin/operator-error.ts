import { DomainError } from "../errors";
import { codePointLength, isWellFormed } from "../lib/text";

/**
 * An operator action refused (unknown order, invalid transition, ...), nothing written: a code
 * of src/errors.ts DOMAIN_ERRORS with its parameters; the CLI prints the English message, pages
 * the words of src/i18n/catalog.ts for the code.
 */
export class OperatorError extends DomainError {}

/** Trimmed operator text (reason, note) that must be present and well-formed. */
export function checkText(field: string, raw: string, max: number): string {
  const s = (raw ?? "").trim();
  // The rules of lib/text.ts textProblem, each refusal by its code.
  if (!isWellFormed(s)) throw new OperatorError("text.not_unicode", { field });
  const n = codePointLength(s);
  if (n < 1) throw new OperatorError("text.empty", { field });
  if (n > max) throw new OperatorError("text.too_long", { field, max });
  return s;
}
