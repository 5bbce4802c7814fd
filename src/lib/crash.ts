// Fault injection for crash-safety tests: the process kills itself (SIGKILL, no
// clean-up, like a power cut) when STABLEGATE_CRASH_AT names the point reached.
export function crashPoint(name: string): void {
  if (process.env.STABLEGATE_CRASH_AT === name) process.kill(process.pid, "SIGKILL");
}

/** Fault injection for start-up and error paths: throws when STABLEGATE_CRASH_AT is `fail:<name>`. */
export function failPoint(name: string): void {
  if (process.env.STABLEGATE_CRASH_AT === `fail:${name}`) throw new Error(`injected failure at ${name} (STABLEGATE_CRASH_AT)`);
}
