// What an idle test gateway costs (docs/testing.md "Idle gateways and CLI starts"): starts N test
// gateways (src/testing/harness.ts: the three sandbox chains, no traffic), lets them settle 3 s,
// then prints the process's CPU over SECS seconds idle and each job's summed run time.
//   SG_STRICT_WRITES=1 bun scripts/idle-gateway-cpu.ts        N=1 SECS=20; NOLOOP=1: without the stall probe
import { startTestGateway, type TestGateway } from "../src/testing/harness";
import { Scheduler } from "../src/jobs/scheduler";
import { LoopStallProbe } from "../src/ops/loop-stalls";

const perJob = new Map<string, { runs: number; ms: number }>();
const every = Scheduler.prototype.every;
Scheduler.prototype.every = function (name, ms, fn, opts) {
  const timed = async () => {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      const e = perJob.get(name) ?? { runs: 0, ms: 0 };
      e.runs++;
      e.ms += performance.now() - t;
      perJob.set(name, e);
    }
  };
  return every.call(this, name, ms, timed, opts);
};
if (process.env.NOLOOP) LoopStallProbe.prototype.start = () => undefined;

const N = Number(process.env.N ?? 1);
const SECS = Number(process.env.SECS ?? 20);
const gateways: TestGateway[] = [];
for (let i = 0; i < N; i++) gateways.push(await startTestGateway());
await Bun.sleep(3000);
perJob.clear();
const c0 = process.cpuUsage();
await Bun.sleep(SECS * 1000);
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1e6;
console.log(`${N} idle gateway(s), ${SECS} s: ${cpu.toFixed(2)} CPU-s, ${((cpu / SECS / N) * 100).toFixed(2)} % of a core each`);
for (const [name, e] of [...perJob].sort((a, b) => b[1].ms - a[1].ms)) console.log(`  ${name.padEnd(28)} ${String(e.runs).padStart(4)} runs ${e.ms.toFixed(1).padStart(8)} ms`);
for (const g of gateways) await g.stop();
process.exit(0);
