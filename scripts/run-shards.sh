#!/usr/bin/env bash
# Runs the test files in K `bun test` processes at once (docs/testing.md "Shards"), planned by
# scripts/test-shards.ts from scripts/test-times.json, and ends with the summed line
# "tests: N passed, N failed, N skipped"; exits non-zero when a shard failed or no test ran.
#   scripts/run-shards.sh NAME K [pure]     (NAME: the logs' prefix under test-output/)
# Shard N logs to test-output/NAME-N.log and stamps each file's start into NAME-N.times (what
# `bun scripts/test-shards.ts refresh` reads). Used by scripts/test.sh and scripts/test-fast.sh.
set -uo pipefail
BUN="${BUN:-bun}"
cd "$(dirname "$0")/.."
name=$1 shards=$2 only=${3:-}
if ! [[ "$shards" =~ ^[1-9][0-9]?$ ]]; then echo "TEST_SHARDS must be a number from 1 to 99, got '$shards'" >&2; exit 2; fi
mkdir -p test-output

# The last "N pass" / "N fail" / "N skip" of a bun log (0 when absent).
count() { grep -Eo "^ *[0-9]+ $1\$" "$2" | tail -1 | grep -Eo '[0-9]+' || echo 0; }

# Copies bun's output to a log, stamping each file's start (and the end) into a .times file,
# and echoes failures to stderr as they happen, prefixed with the shard's name.
stamp() {
  local log=$1 times=$2 label=$3 line summary=""
  : >"$log"; : >"$times"
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ "$line" =~ ^[0-9]+\ tests?\ failed:$ ]]; then summary=1 # bun lists the failures again at the end
    elif [[ "$line" =~ ^[^\ \(].*\.test\.tsx?:$ ]]; then printf '%s %s\n' "$EPOCHREALTIME" "${line%:}" >>"$times"
    elif [[ "$line" == "(fail)"* && -z "$summary" ]]; then printf '[%s] %s\n' "$label" "$line" >&2
    fi
  done
  printf '%s END\n' "$EPOCHREALTIME" >>"$times"
}

mapfile -t plan < <("$BUN" scripts/test-shards.ts plan "$shards" $only)
if [ "${#plan[@]}" -ne "$shards" ]; then echo "tests: 0 passed, 1 failed (could not plan $shards shards)"; exit 1; fi
rm -f test-output/"$name"-*.log test-output/"$name"-*.times test-output/"$name"-*.status
# Each shard gets its own block of ports below the ephemeral range for freePort()
# (src/testing/wait.ts), so two shards never hand out the same port.
span=$(( 12000 / shards ))
start=$(date +%s)
pids=()
for i in "${!plan[@]}"; do
  n=$((i + 1)); files=(${plan[$i]})
  [ "${#files[@]}" -gt 0 ] || continue
  echo "shard $n/$shards: ${#files[@]} files" >&2
  (
    base=$(( 20000 + i * span ))
    # bunfig's [test] timeout is not applied by this bun: pass it explicitly.
    TEST_PORT_RANGE="$base-$(( base + span - 1 ))" "$BUN" test --timeout 60000 "${files[@]}" 2>&1 \
      | stamp "test-output/$name-$n.log" "test-output/$name-$n.times" "shard $n"
    code=${PIPESTATUS[0]}
    echo "$code" >"test-output/$name-$n.status"
    echo "shard $n/$shards: exit $code after $(( $(date +%s) - start )) s" >&2
  ) &
  pids+=($!)
done
wait "${pids[@]}"

pass=0; fail=0; skip=0; status=0
for n in $(seq 1 "$shards"); do
  log=test-output/$name-$n.log
  [ -f "$log" ] || continue
  code=$(cat "test-output/$name-$n.status" 2>/dev/null || echo 1)
  p=$(count pass "$log"); f=$(count fail "$log"); s=$(count skip "$log")
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  if [ "$code" -ne 0 ]; then
    status=1
    echo
    echo "shard $n failed (exit $code; $p passed, $f failed; log: $log):"
    # Each failing test under the file it belongs to; a crash without a summary shows the log's end.
    awk '/^[0-9]+ tests? failed:$/ { exit } /^[^ (].*\.test\.tsx?:$/ { file = $0 } /^\(fail\)/ { if (file != shown) { print "  " file; shown = file }; print "    " $0 }' "$log"
    grep -Eq '^ *[0-9]+ fail$' "$log" || tail -20 "$log" | sed 's/^/    /'
  fi
done
echo
echo "test time: $(( $(date +%s) - start )) s in $shards shards"
echo "tests: ${pass} passed, ${fail} failed, ${skip} skipped"
if [ "$status" -eq 0 ] && [ "$pass" -eq 0 ]; then echo "no test ran" >&2; exit 1; fi
exit "$status"
