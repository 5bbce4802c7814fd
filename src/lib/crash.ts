// Fault injection for crash-safety tests: the process kills itself (SIGKILL, no
// clean-up, like a power cut) when STABLEGATE_CRASH_AT names the point reached.
export function crashPoint(name: string): void {
  if (process.env.STABLEGATE_CRASH_AT === name) process.kill(process.pid, "SIGKILL");
}
