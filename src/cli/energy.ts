// `energy stake --trx N`, `energy unstake --trx N`, `energy status [--json]` (DESIGN 21): the
// staking wallet of the enabled chain whose module stakes for its transfers (TRON energy);
// the chain's module does the work (src/chains/tron/energy.ts), this file only parses and prints.
import { createContext } from "../app/context";
import type { LoadedConfig } from "../config/load";
import { chainBundle, makeChains } from "../chains/factory";
import type { StakingControl } from "../chains/module";
import { silentLogger } from "../lib/logger";
import { CliUsageError, type CliFlags } from "./common";

export { ENERGY_USAGE } from "./help-text";

async function control(loaded: LoadedConfig): Promise<StakingControl> {
  const ctx = await createContext({ loaded, makeChains, logger: silentLogger });
  for (const adapter of ctx.chains.values()) {
    const c = chainBundle(adapter).staking?.(ctx);
    if (c) return c;
  }
  throw new CliUsageError("energy: no enabled chain stakes for its transfers (enable chains.TRON, in rpc or sandbox mode)");
}

export async function energyCommand(loaded: LoadedConfig, sub: string | undefined, flags: CliFlags): Promise<number> {
  if (sub === "stake" || sub === "unstake") {
    const trx = flags.trx;
    if (typeof trx !== "string") throw new CliUsageError(`energy ${sub} needs --trx N`);
    const c = await control(loaded);
    const unused = sub === "stake" ? c.stakeUnused() : null;
    if (unused) console.error(`warning: ${unused}`);
    try {
      const tx = sub === "stake" ? await c.stake(trx) : await c.unstake(trx);
      console.log(`${sub === "stake" ? "staked" : "unstaked"} ${trx} TRX: ${tx}`);
    } catch (e) {
      throw new CliUsageError(`energy ${sub}: ${(e as Error).message}`);
    }
    return 0;
  }
  if (sub === "status") {
    const s = await (await control(loaded)).status();
    if (flags.json) console.log(JSON.stringify(s));
    else for (const [k, v] of Object.entries(s)) console.log(`${k}\t${v}`);
    return 0;
  }
  throw new CliUsageError(`unknown energy command: ${sub ?? "(none)"}`);
}
