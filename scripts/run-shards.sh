#!/usr/bin/env bash
# Runs the test files in K shards at once (docs/testing.md "Shards"), planned by
# scripts/test-shards.ts from scripts/test-times.json, and ends with the summed line
# "tests: N passed, N failed, N skipped"; exits non-zero when a shard failed or no test ran.
#   scripts/run-shards.sh NAME K [pure]     (NAME: the logs' prefix under test-output/)
# A shard is one `bun test` over its files on SQLite, then one `SG_TEST_DB=pg bun test` over its
# files of the PostgreSQL pass (`pg:` in the plan: scripts/pg-suites.txt, docs/testing.md "Both
# engines"). Shard N logs to test-output/NAME-N.log (NAME-N.pg.log for its PostgreSQL part) and
# stamps each file's start into NAME-N.times (NAME-N.pg.times, files as `pg:./path`): what
# `bun scripts/test-shards.ts refresh` reads. Used by scripts/test.sh and scripts/test-fast.sh.
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
# A file's start is stamped with `prefix` before its path (`pg:` in the PostgreSQL part).
stamp() {
  local log=$1 times=$2 label=$3 prefix=${4:-} line summary=""
  : >"$log"; : >"$times"
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ "$line" =~ ^[0-9]+\ tests?\ failed:$ ]]; then summary=1 # bun lists the failures again at the end
    elif [[ "$line" =~ ^[^\ \(].*\.test\.tsx?:$ ]]; then printf '%s %s%s\n' "$EPOCHREALTIME" "$prefix" "${line%:}" >>"$times"
    elif [[ "$line" == "(fail)"* && -z "$summary" ]]; then printf '[%s] %s\n' "$label" "$line" >&2
    fi
  done
  printf '%s END\n' "$EPOCHREALTIME" >>"$times"
}

mapfile -t plan < <("$BUN" scripts/test-shards.ts plan "$shards" $only)
if [ "${#plan[@]}" -ne "$shards" ]; then echo "tests: 0 passed, 1 failed (could not plan $shards shards)"; exit 1; fi
rm -f test-output/"$name"-*.log test-output/"$name"-*.times test-output/"$name"-*.status
span=$(( 12000 / shards ))
start=$(date +%s)
# One `bun test` over a part of shard N: its logs are test-output/NAME-N<part>.{log,times,status}.
#   run_part N PART LABEL PREFIX ENGINE FILE...   (ENGINE: the SG_TEST_DB of the process)
run_part() {
  local n=$1 part=$2 label=$3 prefix=$4 engine=$5 base=$(( 20000 + ($1 - 1) * span )) code
  shift 5
  # bunfig's [test] timeout is not applied by this bun: pass it explicitly.
  SG_TEST_DB="$engine" TEST_PORT_RANGE="$base-$(( base + span - 1 ))" "$BUN" test --timeout 60000 "$@" 2>&1 \
    | stamp "test-output/$name-$n$part.log" "test-output/$name-$n$part.times" "$label" "$prefix"
  code=${PIPESTATUS[0]}
  echo "$code" >"test-output/$name-$n$part.status"
  echo "$label: exit $code after $(( $(date +%s) - start )) s" >&2
}
pids=()
for i in "${!plan[@]}"; do
  n=$((i + 1)); sqlite=(); pg=()
  for f in ${plan[$i]}; do
    if [[ "$f" == pg:* ]]; then pg+=("${f#pg:}"); else sqlite+=("$f"); fi
  done
  [ $(( ${#sqlite[@]} + ${#pg[@]} )) -gt 0 ] || continue
  echo "shard $n/$shards: ${#sqlite[@]} files, ${#pg[@]} on PostgreSQL" >&2
  (
    # Each shard gets its own block of ports below the ephemeral range for freePort()
    # (src/testing/wait.ts), so two shards never hand out the same port. Its parts run one after
    # the other (the engine is per process: src/testing/engines.ts).
    [ "${#sqlite[@]}" -eq 0 ] || run_part "$n" "" "shard $n" "" "" "${sqlite[@]}"
    [ "${#pg[@]}" -eq 0 ] || run_part "$n" .pg "shard $n pg" pg: pg "${pg[@]}"
  ) &
  pids+=($!)
done
wait "${pids[@]}"

pass=0; fail=0; skip=0; status=0
# Files with a failing test, as "ENGINE FILE" (ENGINE: the SG_TEST_DB value), for the rerun below;
# `unknown` when a failed part did not say which (a crash without bun's summary).
failed_files=(); unknown=0
for n in $(seq 1 "$shards"); do
  for part in "" .pg; do
    log=test-output/$name-$n$part.log
    [ -f "$log" ] || continue
    engine=SQLite; [ "$part" = .pg ] && engine=PostgreSQL
    code=$(cat "test-output/$name-$n$part.status" 2>/dev/null || echo 1)
    p=$(count pass "$log"); f=$(count fail "$log"); s=$(count skip "$log")
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    if [ "$code" -ne 0 ]; then
      status=1
      echo
      echo "shard $n failed on $engine (exit $code; $p passed, $f failed; log: $log):"
      # Each failing test under the file it belongs to (and its engine); a crash without a summary shows the log's end.
      # With each failure, the first error line bun printed for it (what CI's summary shows).
      awk -v engine="$engine" '/^[0-9]+ tests? failed:$/ { exit } /^[^ (].*\.test\.tsx?:$/ { file = $0 } more > 0 && NF && !/^ *[0-9]+ \|/ && !/^ *at / && !/^\(/ { err = err " / " substr($0, 1, 160); more-- } /^(error|Error|[A-Za-z]*Error):/ { if (err == "") { err = substr($0, 1, 300); more = 4 } } /^\(pass\)/ { err = ""; more = 0 } /^\(fail\)/ { if (file != shown) { print "  " substr(file, 1, length(file) - 1) " on " engine ":"; shown = file }; print "    " $0; if (err != "") print "      " err; err = ""; more = 0 }' "$log"
      grep -Eq '^ *[0-9]+ fail$' "$log" || tail -20 "$log" | sed 's/^/    /'
      mapfile -t ff < <(awk '/^[0-9]+ tests? failed:$/ { exit } /^[^ (].*\.test\.tsx?:$/ { file = substr($0, 1, length($0) - 1) } /^\(fail\)/ { print file }' "$log" | sort -u)
      if [ "$f" -gt 0 ] && [ "${#ff[@]}" -gt 0 ]; then
        for x in "${ff[@]}"; do failed_files+=("${part#.} $x"); done
      else
        unknown=1
      fi
    fi
  done
done
echo
echo "test time: $(( $(date +%s) - start )) s in $shards shards"
# A file that failed in its shard runs again alone, once (docs/testing.md "Flaky files"): on two
# shared cores a timed test can lose its race to a neighbour's load. When every such file passes
# alone the run passes, and the files are named here as flaky (never silent); a file that fails
# alone fails the run. Not for a crashed part, nor for more than RERUN_MAX files (then it is no
# neighbour's load); TEST_RERUN=0 turns it off.
if [ "$status" -ne 0 ] && [ "$unknown" -eq 0 ] && [ "${TEST_RERUN:-1}" != 0 ] && [ "${#failed_files[@]}" -le "${RERUN_MAX:-6}" ]; then
  still=0; i=0
  for entry in "${failed_files[@]}"; do
    engine=${entry%% *}; file=${entry#* }; i=$((i + 1))
    label=SQLite; [ "$engine" = pg ] && label=PostgreSQL
    log=test-output/$name-rerun-$i.log
    SG_TEST_DB="$engine" "$BUN" test --timeout 60000 "./$file" >"$log" 2>&1
    if [ $? -eq 0 ]; then
      echo "flaky: $file on $label failed in its shard and passed when run again alone (log: $log)"
    else
      still=1
      echo "failed again alone: $file on $label (log: $log)"
    fi
  done
  if [ "$still" -eq 0 ]; then status=0; fail=0; fi
fi
echo "tests: ${pass} passed, ${fail} failed, ${skip} skipped"
if [ "$status" -eq 0 ] && [ "$pass" -eq 0 ]; then echo "no test ran" >&2; exit 1; fi
exit "$status"
