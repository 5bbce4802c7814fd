// `src/main.ts` with a memory probe, for scripts/bench-memory.ts: on SIGUSR2 it writes, to
// $PROBE_OUT, RSS (anonymous / file-backed), the JSC heap and its largest object types, before
// and after a full GC; with $PROBE_SNAPSHOT also a heap snapshot (Bun.generateHeapSnapshot()),
// with $PROBE_TIMELINE every 100 ms sample, with $PROBE_MIMALLOC mimalloc's statistics (stderr),
// with $PROBE_MODULES the path of every module loaded (require.cache), one a line.
import { readFileSync, writeFileSync } from "node:fs";
import { heapStats } from "bun:jsc";

const MB = 1048576;
/** RSS (total, anonymous, file-backed) and the JSC heap (size, capacity, extra memory), in MB. */
function memory(h = heapStats()) {
  const st = readFileSync("/proc/self/status", "utf8");
  const kb = (k: string) => Number(new RegExp(k + ":\\s+(\\d+)").exec(st)?.[1] ?? 0) / 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile"), heap: h.heapSize / MB, heapCapacity: h.heapCapacity / MB, extra: h.extraMemorySize / MB };
}
function snap(label: string) {
  const h = heapStats();
  return {
    label,
    ...memory(h),
    objects: h.objectCount,
    types: Object.entries(h.objectTypeCounts).sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROBE_TYPES ?? 10)),
    modules: Object.keys(require.cache).length,
  };
}

// The sample with the highest RSS, taken every 100 ms from inside: how much of the peak is the JSC
// heap (its capacity: blocks it holds, live or not) and how much the rest. heapStats() counts the
// heap's objects, ~1-3 ms of the loop per sample: a probe's cost, not the gateway's.
// PROBE_TIMELINE=file: every sample, one JSON line (time since start in ms, then the figures).
let peak = { rss: 0 };
const t0 = performance.now();
const timeline: string[] = [];
setInterval(() => {
  const m = memory();
  if (m.rss > peak.rss) peak = { ...m, at: new Date().toISOString() } as typeof peak;
  if (process.env.PROBE_TIMELINE) timeline.push(JSON.stringify({ ms: Math.round(performance.now() - t0), ...m }));
}, 100).unref();

process.on("SIGUSR2", () => {
  if (process.env.PROBE_MIMALLOC) Bun.unsafe.mimallocDump(); // to stderr: mimalloc's bins, pages and arenas
  const before = snap("as is");
  writeFileSync(process.env.PROBE_OUT + ".peak", JSON.stringify(peak));
  if (process.env.PROBE_TIMELINE) writeFileSync(process.env.PROBE_TIMELINE, timeline.join("\n") + "\n");
  if (process.env.PROBE_MODULES) writeFileSync(process.env.PROBE_MODULES, Object.keys(require.cache).join("\n") + "\n");
  Bun.gc(true);
  const after = snap("after a full GC");
  if (process.env.PROBE_MIMALLOC) Bun.unsafe.mimallocDump();
  writeFileSync(process.env.PROBE_OUT!, JSON.stringify([before, after]));
  if (process.env.PROBE_SNAPSHOT) writeFileSync(process.env.PROBE_SNAPSHOT, JSON.stringify(Bun.generateHeapSnapshot()));
});

const { main } = await import("../src/cli/main");
process.exitCode = await main(process.argv.slice(2));
