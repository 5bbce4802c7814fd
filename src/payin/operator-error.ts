import { textProblem } from "../lib/text";

/** An operator action refused (unknown order, invalid transition, ...): a clear message, nothing written. */
export class OperatorError extends Error {}

/** Trimmed operator text (reason, note) that must be present and well-formed. */
export function checkText(field: string, raw: string, max: number): string {
  const s = (raw ?? "").trim();
  const p = textProblem(s, max);
  if (p) throw new OperatorError(`${field} ${p}`);
  return s;
}
