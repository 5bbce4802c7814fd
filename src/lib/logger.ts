// Structured JSON logs on stderr (stdout is kept for CLI output such as
// `merchant create --json`). Every line passes through the secret masker.
export type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const knownSecrets = new Set<string>();

/** Secrets the masker must never let through (the mnemonic, the master key). */
export function registerSecret(secret: string): void {
  if (secret && secret.length >= 8) knownSecrets.add(secret);
}

/** API keys keep a short prefix and suffix so an operator can tell them apart. */
export function maskApiKey(key: string): string {
  if (key.length <= 12) return "mch_***";
  return `${key.slice(0, 8)}…${key.slice(-4)}`;
}

export function maskSecrets(text: string): string {
  let out = text.replace(/mch_[A-Za-z0-9_-]{8,}/g, (k) => maskApiKey(k));
  for (const s of knownSecrets) if (out.includes(s)) out = out.split(s).join("***");
  return out;
}

export function createLogger(
  opts: { level?: Level; sink?: (line: string) => void; base?: Record<string, unknown>; now?: () => number } = {},
): Logger {
  const min = ORDER[opts.level ?? "info"];
  const sink = opts.sink ?? ((line: string) => process.stderr.write(line + "\n"));
  const now = opts.now ?? Date.now;
  const base = opts.base ?? {};
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const rec = { time: new Date(now()).toISOString(), level, msg, ...base, ...fields };
    let line: string;
    try {
      line = JSON.stringify(rec, (_k, v) => (typeof v === "bigint" ? v.toString() : v instanceof Error ? { name: v.name, message: v.message } : v));
    } catch {
      line = JSON.stringify({ time: rec.time, level, msg });
    }
    sink(maskSecrets(line));
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ ...opts, base: { ...base, ...fields } }),
  };
}

export const silentLogger: Logger = createLogger({ sink: () => {} });
