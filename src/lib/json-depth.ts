// Nesting depth of a JSON text, measured before parsing (DESIGN 10: bodies deeper than 64 levels
// are 10001). Recursive code further on (canonicalisation, validation) would otherwise overflow the
// stack on a deep body; one pass over the characters, no recursion, no allocation.

export const MAX_JSON_DEPTH = 64;

/** True when an object or array in `text` is nested more than `max` levels deep (brackets inside strings do not count). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
