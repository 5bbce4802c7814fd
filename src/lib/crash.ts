// Fault injection for crash-safety tests: the process kills itself (SIGKILL, no
// clean-up, like a power cut) when STABLEGATE_CRASH_AT names the point reached;
// `stop:<name>` freezes it there instead (SIGSTOP: a stalled process, its connections
// open, until the test sends SIGCONT; the cluster suite's deposed leader).
export function crashPoint(name: string): void {
  const at = process.env.STABLEGATE_CRASH_AT;
  if (at === name) process.kill(process.pid, "SIGKILL");
  else if (at === `stop:${name}`) process.kill(process.pid, "SIGSTOP");
}

/** Fault injection for start-up and error paths: throws when STABLEGATE_CRASH_AT is `fail:<name>`. */
export function failPoint(name: string): void {
  if (process.env.STABLEGATE_CRASH_AT === `fail:${name}`) throw new Error(`injected failure at ${name} (STABLEGATE_CRASH_AT)`);
}
