// Renders config/stablegate.example.toml from the schema (the single source of
// keys, defaults and docs). A test keeps the committed file in sync.
import type { TSchema } from "@sinclair/typebox";
import { ConfigSchema } from "../config/schema";
import { defaultToken } from "../chains/registry";

type S = TSchema & { properties?: Record<string, S>; default?: unknown; description?: string; type?: string; anyOf?: S[] };

const tomlValue = (v: unknown): string => (typeof v === "string" ? JSON.stringify(v) : Array.isArray(v) ? `[${v.map(tomlValue).join(", ")}]` : String(v));


function section(path: string, schema: S, out: string[]): void {
  const props = schema.properties ?? {};
  const leaves = Object.entries(props).filter(([, s]) => s.type !== "object");
  const tables = Object.entries(props).filter(([, s]) => s.type === "object");
  if (path) out.push("", `[${path}]`);
  for (const [key, s] of leaves) {
    if (s.description) out.push(`# ${s.description}`);
    if (s.default !== undefined) out.push(`${key} = ${tomlValue(s.default)}`);
    else out.push(`# ${key} = ${exampleFor(path, key)}   (optional, no default)`);
  }
  for (const [key, s] of tables) {
    const p = path ? `${path}.${key}` : key;
    if (key === "tokens") {
      for (const [sym, tok] of Object.entries(s.properties ?? {})) {
        const facts = defaultToken(path.split(".")[1]!, sym);
        out.push("", `# Optional override of a token's contract/mint and limits:`, `# [${p}.${sym}]`);
        for (const [k, ts] of Object.entries((tok as S).properties ?? {})) {
          const val = ts.default !== undefined ? tomlValue(ts.default) : k === "contract" ? JSON.stringify(facts?.contract ?? "") : String(facts?.decimals ?? 6);
          out.push(`# ${k} = ${val}${ts.description ? `   # ${ts.description}` : ""}`);
        }
      }
      continue;
    }
    section(p, s, out);
  }
}

function exampleFor(path: string, key: string): string {
  if (key === "public_url") return '"https://pay.example.com"';
  if (key === "api_key") return '"your-provider-key"';
  if (key === "gas_price_cap") return '"5000000000"';
  if (key === "gas_low_balance") return '"50"';
  if (key === "require_2fa") return "true";
  if (key === "metrics_token") return '"a-long-random-token"';
  if (key === "webhook_url") return '"https://ops.example.com/stablegate-alerts"';
  if (key === "webhook_secret") return '"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"';
  if (key === "telegram_bot_token") return '"123456:ABC-your-bot-token"';
  if (key === "telegram_chat_id") return '"-1001234567890"';
  return '""';
}

export function renderExampleConfig(): string {
  const out = [
    "# stablegate configuration: every key with its default. Copy to config/stablegate.toml",
    "# (or pass --config PATH / set STABLEGATE_CONFIG) and change what you need; unknown keys",
    "# and bad values stop start-up with every problem listed. Durations are strings: \"500ms\", \"3s\", \"5m\", \"24h\".",
    "# Generated from src/config/schema.ts by `bun scripts/gen-example-config.ts`.",
  ];
  section("", ConfigSchema as S, out);
  return out.join("\n") + "\n";
}
