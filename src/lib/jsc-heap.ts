// How the gateway's process asks JavaScriptCore to size its heap (issue 37, DESIGN 11: RSS under
// 150 MB under load). JSC reads the machine's RAM at start and, on a host with gigabytes free,
// lets the heap grow as on a large machine: under the bench's load the heap's capacity went from
// 34 MB idle to 50-68 MB against 19 MB of live objects, and RSS peaked at 151-164 MB. Told the
// machine has 256 MiB, it collects sooner (the same heap growth rules, on a smaller budget): peak
// 142-145 MB and no more CPU per create (docs/performance.md, "JSC's heap sizing"). It is a
// heuristic, not a cap: a heap that needs more still gets it (a 6 M-object array still builds, slower
// to collect). JSC reads it only at start, from the environment: `make run`,
// config/stablegate.service and the test harness's processes (src/testing/process.ts) set it; an
// operator's own value wins.
export const JSC_RAM_ENV = { BUN_JSC_forceRAMSize: String(256 * 1024 * 1024) } as const;
