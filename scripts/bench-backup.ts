// Event-loop stall of an online backup: VACUUM INTO on the calling thread against the
// worker thread the gateway uses (src/backup/sqlite-worker.ts). Makes a ~100 MB database
// in a temp folder. Usage: bun scripts/bench-backup.ts [rows=400000]
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vacuumInto } from "../src/backup/sqlite-worker";

const rows = Number(process.argv[2] ?? 400_000);
const dir = mkdtempSync(join(tmpdir(), "stablegate-bench-backup-"));
const src = join(dir, "src.db");
const db = new Database(src, { create: true });
db.run("PRAGMA journal_mode = WAL");
db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c INTEGER)");
db.run("CREATE INDEX t_a ON t (a)");
const ins = db.prepare("INSERT INTO t (a, b, c) VALUES (?, ?, ?)");
db.transaction(() => {
  for (let i = 0; i < rows; i++) ins.run(`order_${i}_${Math.random()}`, "x".repeat(150), i);
})();
const size = Bun.file(src).size;

function stallMonitor() {
  let max = 0;
  let last = performance.now();
  const iv = setInterval(() => {
    const n = performance.now();
    max = Math.max(max, n - last - 10);
    last = n;
  }, 10);
  return () => (clearInterval(iv), max);
}

let stop = stallMonitor();
await Bun.sleep(50);
let t = performance.now();
db.run("VACUUM INTO ?", [join(dir, "main.db")]);
const mainMs = performance.now() - t;
await Bun.sleep(50);
const mainStall = stop();

stop = stallMonitor();
t = performance.now();
await vacuumInto(src, join(dir, "worker.db"));
const workerMs = performance.now() - t;
const workerStall = stop();
db.close();
rmSync(dir, { recursive: true, force: true });
console.log(`database ${(size / 1e6).toFixed(0)} MB
  VACUUM INTO on the event loop: ${mainMs.toFixed(0)} ms, longest stall ${mainStall.toFixed(0)} ms
  VACUUM INTO on a worker:       ${workerMs.toFixed(0)} ms, longest stall ${workerStall.toFixed(0)} ms`);
