// `merchant set UID [--default-notify-url URL] [--ip-allowlist CIDR,...]` (DESIGN 2).
// An empty value clears the setting. The change is audited (actor `cli`) and a
// running `serve` sees it at once (it reads settings from the database).
import { CLI_ACTOR } from "../audit/log";
import type { Db } from "../db/client";
import { SettingsError, updateMerchantSettings, type SettingsPatch } from "../merchants/settings";
import { CliUsageError, type CliFlags } from "./common";

export interface MerchantSetEnv {
  db: Db;
  now: () => number;
  allowPrivateTargets: boolean;
}

export function merchantSet(env: MerchantSetEnv, uid: string | undefined, flags: CliFlags): number {
  if (!uid) throw new CliUsageError("usage: merchant set UID [--default-notify-url URL] [--ip-allowlist CIDR,...]");
  const patch: SettingsPatch = {};
  const url = flags["default-notify-url"];
  const allow = flags["ip-allowlist"];
  if (url === true || allow === true) throw new CliUsageError("merchant set: give each option a value (\"\" clears it)");
  if (url !== undefined) patch.defaultNotifyUrl = url;
  if (allow !== undefined) patch.ipAllowlist = allow.split(",");
  if (!Object.keys(patch).length) throw new CliUsageError("merchant set needs --default-notify-url and/or --ip-allowlist");
  try {
    const { settings, released } = updateMerchantSettings(env, uid, patch, CLI_ACTOR);
    if (flags.json) console.log(JSON.stringify(settings));
    else {
      console.log(`${settings.merchantUid} default notify URL: ${settings.defaultNotifyUrl ?? "(none)"}`);
      console.log(`${settings.merchantUid} IP allowlist: ${settings.ipAllowlist.length ? settings.ipAllowlist.join(",") : "(any address)"}`);
      if (released) console.log(`${released} held callback(s) released for delivery`);
    }
    return 0;
  } catch (e) {
    if (e instanceof SettingsError) throw new CliUsageError(`merchant set: ${e.message}`);
    throw e;
  }
}
