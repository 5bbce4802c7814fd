// Gas wallet balances, read from the chain by a job and cached: /readyz and
// /metrics must answer even when a node hangs, so they never call one.
import Big from "big.js";
import type { Config } from "../config/schema";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { ChainAdapter, ChainCode } from "../chains/types";
import { writeTx } from "../db/client";
import { gasWallet } from "../wallet/addresses";
import { chainModule } from "../chains/registry";


export interface GasReading {
  address: string;
  /** Native units as a decimal string; null until read. */
  balance: string | null;
  low: boolean;
  checkedAt: number | null;
}

/** The chain's native balance of `address`, or null when the adapter cannot tell. */
export async function nativeBalance(adapter: ChainAdapter, address: string): Promise<bigint | null> {
  const a = adapter as ChainAdapter & { nativeBalance?: (a: string) => Promise<bigint>; account?: (a: string) => Promise<{ balance: bigint }> };
  if (typeof a.nativeBalance === "function") return a.nativeBalance(address);
  if (typeof a.account === "function") return (await a.account(address)).balance;
  return null;
}

export function formatNative(chain: ChainCode, base: bigint): string {
  return new Big(base.toString()).div(new Big(10).pow(chainModule(chain).native.decimals)).toFixed();
}

/** What the gas monitor reads: the gas wallets (seed, db), the chains, and each chain's gas_low_balance. */
export interface GasMonitorDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  seed: Uint8Array;
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  config: Pick<Config, "chains">;
}

export class GasMonitor {
  private readings = new Map<ChainCode, GasReading>();

  constructor(private readonly ctx: GasMonitorDeps) {}

  async get(chain: ChainCode): Promise<GasReading | undefined> {
    if (!this.readings.has(chain)) {
      const adapter = this.ctx.chains.get(chain);
      if (!adapter) return undefined;
      const address = await this.addressOnce(adapter);
      if (!this.readings.has(chain)) this.readings.set(chain, { address, balance: null, low: false, checkedAt: null });
    }
    return this.readings.get(chain);
  }

  /**
   * One gas wallet lookup per chain at a time: /metrics collects several gauges at once, and on
   * PostgreSQL two concurrent first reads would both insert the gas wallet's row (a unique violation, a 500).
   */
  private readonly pending = new Map<ChainCode, Promise<string>>();
  private addressOnce(adapter: ChainAdapter): Promise<string> {
    let p = this.pending.get(adapter.chain);
    if (!p) {
      p = this.address(adapter).finally(() => this.pending.delete(adapter.chain));
      this.pending.set(adapter.chain, p);
    }
    return p;
  }

  private async address(adapter: ChainAdapter): Promise<string> {
    return (await writeTx(this.ctx.db, async (tx) => await gasWallet(tx, adapter, this.ctx.seed, this.ctx.clock.now()))).address;
  }

  /** Reads every rpc chain's gas wallet balance; a failing chain keeps its last reading. */
  async refresh(only?: ChainCode): Promise<void> {
    for (const [chain, adapter] of this.ctx.chains) {
      if (only && chain !== only) continue;
      const r = (await this.get(chain))!;
      try {
        const base = await nativeBalance(adapter, r.address);
        if (base === null) continue;
        const threshold = this.ctx.config.chains[chain].gas_low_balance;
        const balance = formatNative(chain, base);
        this.readings.set(chain, { address: r.address, balance, low: threshold !== undefined && new Big(balance).lt(threshold), checkedAt: this.ctx.clock.now() });
      } catch (e) {
        this.ctx.logger.debug("gas balance read failed", { chain, error: String((e as Error)?.message ?? e) });
      }
    }
  }
}
