// `src/main.ts` with a memory probe, for scripts/bench-memory.ts: on SIGUSR2 it writes, to
// $PROBE_OUT, RSS (anonymous / file-backed), the JSC heap and its largest object types, before
// and after a full GC; with $PROBE_SNAPSHOT also a heap snapshot (Bun.generateHeapSnapshot()).
import { readFileSync, writeFileSync } from "node:fs";
import { heapStats } from "bun:jsc";

const MB = 1048576;
function snap(label: string) {
  const st = readFileSync("/proc/self/status", "utf8");
  const kb = (k: string) => Number(new RegExp(k + ":\\s+(\\d+)").exec(st)?.[1] ?? 0) / 1024;
  const h = heapStats();
  return {
    label,
    rss: kb("VmRSS"),
    anon: kb("RssAnon"),
    file: kb("RssFile"),
    heap: h.heapSize / MB,
    heapCapacity: h.heapCapacity / MB,
    extra: h.extraMemorySize / MB,
    objects: h.objectCount,
    types: Object.entries(h.objectTypeCounts).sort((a, b) => b[1] - a[1]).slice(0, 10),
    modules: Object.keys(require.cache).length,
  };
}

process.on("SIGUSR2", () => {
  const before = snap("as is");
  Bun.gc(true);
  const after = snap("after a full GC");
  writeFileSync(process.env.PROBE_OUT!, JSON.stringify([before, after]));
  if (process.env.PROBE_SNAPSHOT) writeFileSync(process.env.PROBE_SNAPSHOT, JSON.stringify(Bun.generateHeapSnapshot()));
});

const { main } = await import("../src/cli/main");
process.exitCode = await main(process.argv.slice(2));
