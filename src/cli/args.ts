export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | true>;
}

/** `--name value`, `--name=value`, `--flag`; everything else is positional. */
export function parseArgs(argv: string[], booleanFlags: string[] = ["json", "demo", "version", "help", "failed", "unmatched", "all", "held", "firing"]): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else {
        const name = a.slice(2);
        if (booleanFlags.includes(name) || i + 1 >= argv.length || argv[i + 1].startsWith("--")) flags[name] = true;
        else flags[name] = argv[++i];
      }
    } else positional.push(a);
  }
  return { positional, flags };
}
