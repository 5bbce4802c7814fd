#!/usr/bin/env bash
# The CPU a test file costs, children included (docs/testing.md "CPU per file"):
#   scripts/test-cpu.sh FILE...      prints "cpu_s user_s sys_s wall_s pass fail FILE" per file
# Each file runs alone in `bun test`. As root on a cgroup-v1 machine each run gets a cpuacct
# cgroup of its own, which also counts processes that outlive their parent (Chromium's helpers,
# daemonised nodes); elsewhere it falls back to getrusage of the waited-for children (/usr/bin/time).
set -uo pipefail
BUN="${BUN:-bun}"
cd "$(dirname "$0")/.."
mkdir -p test-output
acct=/sys/fs/cgroup/cpuacct
for f in "$@"; do
  log="test-output/cpu-$(basename "$f").log"
  t0=$EPOCHREALTIME
  if [ -w "$acct" ] && cg="$acct/sg-test-cpu-$$" && mkdir -p "$cg" 2>/dev/null; then
    ( echo "$BASHPID" >"$cg/cgroup.procs"; exec "$BUN" test --timeout 300000 "$f" ) >"$log" 2>&1
    # Wait for stragglers of the run to leave before reading.
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(cat "$cg/cgroup.procs")" ] && break; sleep 0.5; done
    user=$(echo "scale=2; $(cat "$cg/cpuacct.usage_user") / 1000000000" | bc)
    sys=$(echo "scale=2; $(cat "$cg/cpuacct.usage_sys") / 1000000000" | bc)
    left=$(cat "$cg/cgroup.procs")
    [ -n "$left" ] && echo "warning: processes left in $cg: $left" >&2
    rmdir "$cg" 2>/dev/null
  else
    out=$( { /usr/bin/time -f "%U %S" "$BUN" test --timeout 300000 "$f" >"$log" 2>&1; } 2>&1 | tail -1 )
    user=${out% *}; sys=${out#* }
  fi
  wall=$(echo "$EPOCHREALTIME - $t0" | bc)
  pass=$(grep -Eo "^ *[0-9]+ pass$" "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  fail=$(grep -Eo "^ *[0-9]+ fail$" "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  printf '%.2f %.2f %.2f %.1f %s %s %s\n' "$(echo "$user + $sys" | bc)" "$user" "$sys" "$wall" "$pass" "$fail" "$f"
done
