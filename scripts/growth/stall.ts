// Event-loop stalls measured by timer drift: a timer asks to fire every `everyMs`;
// how late it fires is how long the loop was held. On a loaded machine a late
// timer may also mean the process was not scheduled, so each gap is also capped
// by the CPU time the process used in it (`busy`): a real stall burns CPU.
export interface StallFigures {
  /** Longest timer lateness (wall clock). */
  max: number;
  p99: number;
  /** Longest lateness that the process spent on CPU (min of lateness and CPU used in the gap). */
  busyMax: number;
  samples: number;
}

export function stallSampler(everyMs = 5): { stop(): StallFigures } {
  const lateness: number[] = [];
  let busyMax = 0;
  let expected = performance.now() + everyMs;
  let cpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - expected);
    const d = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    lateness.push(late);
    busyMax = Math.max(busyMax, Math.min(late, (d.user + d.system) / 1000));
    expected = now + everyMs;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const s = [...lateness].sort((a, b) => a - b);
      return { max: s[s.length - 1] ?? 0, p99: s[Math.floor(s.length * 0.99)] ?? 0, busyMax, samples: s.length };
    },
  };
}
