// A gateway's leader elector alone in a process of its own (src/cluster/leader.e2e.test.ts kills it
// with SIGKILL, or stops it with SIGSTOP to play a hung leader). Prints one JSON line per event:
// {"event":"gained"|"lost","epoch":N}. Usage: bun src/testing/cluster-elector.ts URL TAKEOVER_MS OWNER
import { LeaderElector } from "../cluster/leader";

const [url, takeover, owner] = process.argv.slice(2);
if (!url || !takeover || !owner) {
  console.error("usage: bun src/testing/cluster-elector.ts URL TAKEOVER_MS OWNER");
  process.exit(2);
}
const elector = new LeaderElector({ url, takeoverAfterMs: Number(takeover), owner });
elector.on("gained", (epoch) => console.log(JSON.stringify({ event: "gained", epoch })));
elector.on("lost", (epoch) => console.log(JSON.stringify({ event: "lost", epoch })));
await elector.start();
console.log(JSON.stringify({ event: "started" }));
