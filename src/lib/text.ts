// Text-field rules of DESIGN 5: well-formed Unicode only (a lone surrogate is
// refused, never replaced: replacing would map different inputs to one stored
// value), lengths counted in code points.

export function isWellFormed(s: string): boolean {
  return s.isWellFormed();
}

export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** null when fine, else the reason (for a 10001 field message or a CLI error). */
export function textProblem(s: string, max: number, min = 1): string | null {
  if (!isWellFormed(s)) return "must be well-formed Unicode (lone surrogate)";
  const n = codePointLength(s);
  if (n < min) return min === 1 ? "must not be empty" : `must be at least ${min} characters`;
  if (n > max) return `must be at most ${max} characters`;
  return null;
}
