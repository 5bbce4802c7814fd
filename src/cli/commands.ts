// Which flags and arguments each command takes (DESIGN 2, 16): the CLI refuses anything else
// (exit 2, the command's usage), so a typo such as `serve --confg x.toml` never starts a
// gateway on the embedded default. One row per command or "command subcommand".
import { CliUsageError, type CliFlags } from "./common";

type Flag = "value" | "bool";
interface Spec {
  flags?: Record<string, Flag>;
  /** Positional arguments after the command (and subcommand): [min, max]. */
  args?: [number, number];
}

/** Every command accepts these. */
const GLOBAL: Record<string, Flag> = { config: "value", data: "value", help: "bool" };
const json = { json: "bool" } as const;

const SPECS: Record<string, Spec> = {
  serve: { flags: { demo: "bool", port: "value" } },
  migrate: {},
  init: {},
  "merchant create": { flags: { name: "value", ...json } },
  "merchant list": { flags: json },
  "merchant disable": { args: [1, 1] },
  "merchant enable": { args: [1, 1] },
  "merchant set": { flags: { "default-notify-url": "value", "ip-allowlist": "value", "epusdt-token": "value", "epay-key": "value", ...json }, args: [1, 1] },
  "key rotate": { flags: json, args: [1, 1] },
  "wallet gas": { flags: json },
  "wallet export-mnemonic": {},
  "energy stake": { flags: { trx: "value" } },
  "energy unstake": { flags: { trx: "value" } },
  "energy status": { flags: json },
  "callbacks list": { flags: { failed: "bool", held: "bool", ...json } },
  "callbacks resend": { flags: json, args: [1, 1] },
  "user create": { flags: { username: "value", role: "value", merchant: "value", ...json } },
  "user list": { flags: json },
  "user disable": { args: [1, 1] },
  "user enable": { args: [1, 1] },
  "user reset-password": { flags: json, args: [1, 1] },
  "user reset-2fa": { args: [1, 1] },
  "order freeze": { flags: { reason: "value", ...json }, args: [1, 1] },
  "order release": { flags: json, args: [1, 1] },
  "order cancel": { flags: json, args: [1, 1] },
  "deposit list": { flags: { unmatched: "bool", all: "bool", ...json } },
  "deposit attach": { flags: json, args: [2, 2] },
  "deposit refunded": { flags: json, args: [2, 2] },
  "deposit dismiss": { flags: { note: "value", ...json }, args: [1, 1] },
  "denylist add": { flags: { reason: "value", ...json }, args: [2, 2] },
  "denylist list": { flags: json },
  "denylist remove": { flags: json, args: [2, 2] },
  "audit list": { flags: { actor: "value", action: "value", target: "value", limit: "value", ...json } },
  "alerts list": { flags: { firing: "bool", ...json } },
  backup: { flags: { out: "value", verify: "value" } },
  // DESIGN 16: a bare form beside a subcommand (restore --from FILE | restore ack CHAIN ADDRESS).
  restore: { flags: { from: "value" } },
  "migrate-to-postgres": { flags: { from: "value", to: "value" } },
  "restore ack": { flags: json, args: [2, 2] },
  "restore list": { flags: json },
  help: { args: [0, 1] },
};

/** Command names (the first word), for `help` and the unknown-command check. */
export const COMMANDS = [...new Set(Object.keys(SPECS).map((k) => k.split(" ")[0]!))];

/** Flags that take a value, across every command (no flag is a value in one and a switch in another). */
export const VALUE_FLAGS = [...new Set(Object.values({ g: { flags: GLOBAL }, ...SPECS }).flatMap((s) => Object.entries(s.flags ?? {}).filter(([, k]) => k === "value").map(([n]) => n)))];

export function isCommand(cmd: string): boolean {
  return COMMANDS.includes(cmd);
}

function subcommandsOf(cmd: string): string[] {
  return Object.keys(SPECS)
    .filter((k) => k.startsWith(cmd + " "))
    .map((k) => k.slice(cmd.length + 1));
}

/**
 * Checks a command line against its row; throws CliUsageError (the caller prints the command's
 * usage and exits 2) on an unknown command or subcommand, an unknown flag, a flag without its
 * value or a switch given one, and missing or extra arguments.
 */
export function checkCommandLine(positional: string[], flags: CliFlags, unknownTokens: string[] = []): void {
  const [cmd, ...rest] = positional;
  if (!cmd) throw new CliUsageError("no command given");
  if (!isCommand(cmd)) throw new CliUsageError(`unknown command: ${cmd}`);
  const subs = subcommandsOf(cmd);
  let key = cmd;
  let args = rest;
  if (subs.length && !(SPECS[cmd] && !subs.includes(rest[0] ?? ""))) {
    const sub = rest[0];
    if (!sub) throw new CliUsageError(`${cmd} needs a subcommand: ${subs.join(", ")}`);
    if (!subs.includes(sub)) throw new CliUsageError(`unknown ${cmd} command: ${sub}`);
    key = `${cmd} ${sub}`;
    args = rest.slice(1);
  }
  const spec = SPECS[key]!;
  if (unknownTokens.length) throw new CliUsageError(`unknown option ${unknownTokens[0]} for ${key}`);
  const allowed = { ...GLOBAL, ...spec.flags };
  for (const [name, value] of Object.entries(flags)) {
    const kind = allowed[name];
    if (!kind) throw new CliUsageError(`unknown option --${name} for ${key}`);
    if (kind === "value" && value === true) throw new CliUsageError(`--${name} needs a value`);
    if (kind === "bool" && value !== true) throw new CliUsageError(`--${name} takes no value`);
  }
  const [min, max] = spec.args ?? [0, 0];
  if (args.length > max) throw new CliUsageError(`unexpected argument${args.length - max > 1 ? "s" : ""} for ${key}: ${args.slice(max).join(" ")}`);
  if (args.length < min) throw new CliUsageError(`${key} needs ${min === 1 ? "an argument" : `${min} arguments`}`);
}
