export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | true>;
  /** Tokens that are neither a `--flag` nor an argument (`-x`, a bare `--`): always refused. */
  unknown: string[];
}

/**
 * `--name value`, `--name=value`, `--flag`; everything else is positional. Only the flags in
 * `valueFlags` take the next token as their value, so an unknown or mistyped flag never eats an
 * argument (it is refused by checkCommandLine, naming itself).
 */
export function parseArgs(argv: string[], valueFlags: readonly string[] = []): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--") && a.length > 2) {
      const eq = a.indexOf("=");
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else {
        const name = a.slice(2);
        if (valueFlags.includes(name) && i + 1 < argv.length && !argv[i + 1]!.startsWith("--")) flags[name] = argv[++i]!;
        else flags[name] = true;
      }
    } else if (a.startsWith("-") && a !== "-") unknown.push(a);
    else positional.push(a);
  }
  return { positional, flags, unknown };
}
