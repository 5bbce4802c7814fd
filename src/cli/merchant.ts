// `merchant set UID [--default-notify-url URL] [--ip-allowlist CIDR,...] [--epusdt-token T] [--epay-key K]`
// (DESIGN 2, 19). An empty value clears the setting. The change is audited (actor `cli`) and a
// running `serve` sees it at once (it reads settings from the database).
import { CLI_ACTOR } from "../audit/log";
import type { Db } from "../db/client";
import type { Cipher } from "../secrets/cipher";
import { SettingsError, updateMerchantSettings, type SettingsDeps, type SettingsPatch } from "../merchants/settings";
import { CompatKeyError, compatKeyProblem, setCompatKeys, type CompatKeyPatch } from "../merchants/compat-keys";
import { CliUsageError, type CliFlags } from "./common";
import { englishOf } from "../errors";
import type { CompatProtocol } from "../lib/compat-signing";

export interface MerchantSetEnv {
  db: Db;
  cipher: Cipher;
  now: () => number;
  allowPrivateTargets: boolean;
  releaseHeldCallbacks: SettingsDeps["releaseHeldCallbacks"];
}

const USAGE = "usage: merchant set UID [--default-notify-url URL] [--ip-allowlist CIDR,...] [--epusdt-token T] [--epay-key K]";

export async function merchantSet(env: MerchantSetEnv, uid: string | undefined, flags: CliFlags): Promise<number> {
  if (!uid) throw new CliUsageError(USAGE);
  const patch: SettingsPatch = {};
  const keys: CompatKeyPatch = {};
  const url = flags["default-notify-url"];
  const allow = flags["ip-allowlist"];
  const epusdt = flags["epusdt-token"];
  const epay = flags["epay-key"];
  if ([url, allow, epusdt, epay].includes(true)) throw new CliUsageError("merchant set: give each option a value (\"\" clears it)");
  if (typeof url === "string") patch.defaultNotifyUrl = url;
  if (typeof allow === "string") patch.ipAllowlist = allow.split(",");
  if (typeof epusdt === "string") keys.epusdt = epusdt;
  if (typeof epay === "string") keys.epay = epay;
  if (!Object.keys(patch).length && !Object.keys(keys).length) throw new CliUsageError("merchant set needs --default-notify-url, --ip-allowlist, --epusdt-token and/or --epay-key");
  // Every value is checked before anything is written: no partial change.
  for (const [p, k] of Object.entries(keys) as Array<[CompatProtocol, string | null | undefined]>) {
    const problem = k && k.trim() ? compatKeyProblem(p, k.trim()) : null;
    if (problem) throw new CliUsageError(`merchant set: ${englishOf(problem)}`);
  }
  try {
    const out: Record<string, unknown> = {};
    if (Object.keys(patch).length) {
      const { settings, released } = await updateMerchantSettings(env, uid, patch, CLI_ACTOR);
      Object.assign(out, settings);
      if (!flags.json) {
        console.log(`${settings.merchantUid} default notify URL: ${settings.defaultNotifyUrl ?? "(none)"}`);
        console.log(`${settings.merchantUid} IP allowlist: ${settings.ipAllowlist.length ? settings.ipAllowlist.join(",") : "(any address)"}`);
        if (released) console.log(`${released} held callback(s) released for delivery`);
      }
    }
    if (Object.keys(keys).length) {
      const state = await setCompatKeys(env, uid, keys, CLI_ACTOR);
      Object.assign(out, { merchantUid: state.merchantUid, epusdtToken: state.epusdt, epayKey: state.epay });
      if (!flags.json) {
        if ("epusdt" in keys) console.log(`${state.merchantUid} epusdt token: ${state.epusdt ?? "(none: epusdt endpoints off)"}`);
        if ("epay" in keys) console.log(`${state.merchantUid} EPay key: ${state.epay ?? "(none: EPay endpoint off)"}`);
      }
    }
    if (flags.json) console.log(JSON.stringify(out));
    return 0;
  } catch (e) {
    if (e instanceof SettingsError || e instanceof CompatKeyError) throw new CliUsageError(`merchant set: ${e.message}`);
    throw e;
  }
}
