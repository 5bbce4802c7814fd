#!/usr/bin/env bash
# Runs the test files in K slots at once (docs/testing.md "Shards"), planned by
# scripts/test-shards.ts from scripts/test-times.json, and ends with the summed line
# "tests: N passed, N failed, N skipped"; exits non-zero when a part failed or no test ran.
#   scripts/run-shards.sh NAME K [pure]     (NAME: the logs' prefix under test-output/)
# The run is parts, each one `bun test` over files on one engine (`SG_TEST_DB=pg` for the
# PostgreSQL pass: scripts/pg-suites.txt, docs/testing.md "Both engines"): each slot runs its head
# part (SQLite files, about 70% of the time), then takes parts from a queue, heaviest first, until
# none is left, so a slot that load slows down takes less. Slot N's head logs to
# test-output/NAME-N.log; queued part J (1, 2, ...) to NAME-qJ.log or NAME-qJ.pg.log; each stamps
# its files' starts into a .times file beside its log (files as `pg:./path` on PostgreSQL): what
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
# and echoes failures to stderr as they happen, prefixed with the part's label.
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

# The plan: one part a line, "<slot> <engine> <seconds> ./path ..." (slot 0: the queue, in order).
mapfile -t plan < <("$BUN" scripts/test-shards.ts parts "$shards" $only)
heads=0; queue=()
for line in "${plan[@]}"; do
  case "$line" in
    0\ *) queue+=("$line") ;;
    [1-9]*) heads=$((heads + 1)) ;;
  esac
done
if [ "${#plan[@]}" -eq 0 ] || [ "$heads" -gt "$shards" ]; then echo "tests: 0 passed, 1 failed (could not plan $shards shards)"; exit 1; fi
rm -rf test-output/"$name"-*.log test-output/"$name"-*.times test-output/"$name"-*.status test-output/"$name".claims
mkdir -p test-output/"$name".claims
span=$(( 12000 / shards ))
start=$(date +%s)

# One `bun test` over one part in slot N: its logs are test-output/NAME-<id>.{log,times,status}.
#   run_part N ID LABEL ENGINE FILE...   (ENGINE: sqlite or pg, the SG_TEST_DB of the process)
run_part() {
  local n=$1 id=$2 label=$3 engine=$4 base=$(( 20000 + ($1 - 1) * span )) code prefix="" db=""
  shift 4
  if [ "$engine" = pg ]; then prefix=pg: db=pg; fi
  # Each slot has its own block of ports below the ephemeral range for freePort()
  # (src/testing/wait.ts), so two slots never hand out the same port; a slot's parts run one
  # after the other. bunfig's [test] timeout is not applied by this bun: pass it explicitly.
  SG_TEST_DB="$db" TEST_PORT_RANGE="$base-$(( base + span - 1 ))" "$BUN" test --timeout 60000 "$@" 2>&1 \
    | stamp "test-output/$name-$id.log" "test-output/$name-$id.times" "$label" "$prefix"
  code=${PIPESTATUS[0]}
  echo "$code" >"test-output/$name-$id.status"
  echo "$label: exit $code after $(( $(date +%s) - start )) s" >&2
}

# Slot N: its head, then queued parts it claims (mkdir is atomic: one slot gets each).
slot() {
  local n=$1 line j s engine id rest
  for line in "${plan[@]}"; do
    read -r s engine _ rest <<<"$line"
    if [ "$s" = "$n" ]; then
      # shellcheck disable=SC2086 # the files, space separated
      run_part "$n" "$n" "shard $n" "$engine" $rest
    fi
  done
  for j in "${!queue[@]}"; do
    mkdir "test-output/$name.claims/$j" 2>/dev/null || continue
    read -r _ engine _ rest <<<"${queue[$j]}"
    id="q$((j + 1))"; [ "$engine" = pg ] && id="$id.pg"
    # shellcheck disable=SC2086
    run_part "$n" "$id" "shard $n part $((j + 1))$([ "$engine" = pg ] && echo ' pg')" "$engine" $rest
  done
}

echo "$shards slots: $heads heads, ${#queue[@]} queued parts ($(grep -c ' pg ' <<<"$(printf '%s\n' "${queue[@]}")") on PostgreSQL)" >&2
pids=()
for n in $(seq 1 "$shards"); do
  slot "$n" &
  pids+=($!)
done
wait "${pids[@]}"

pass=0; fail=0; skip=0; status=0
# Files with a failing test, as "ENGINE FILE" (ENGINE: the SG_TEST_DB value), for the rerun below;
# `unknown` when a failed part did not say which (a crash without bun's summary).
failed_files=(); unknown=0
# Every part planned must have run and left its status.
parts=$(( heads + ${#queue[@]} )); ran=0
for log in test-output/"$name"-*.log; do
  [ -f "$log" ] || continue
  ran=$((ran + 1))
  id=${log#test-output/"$name"-}; id=${id%.log}
  engine=SQLite; [[ "$id" == *.pg ]] && engine=PostgreSQL
  code=$(cat "test-output/$name-$id.status" 2>/dev/null || echo 1)
  p=$(count pass "$log"); f=$(count fail "$log"); s=$(count skip "$log")
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  if [ "$code" -ne 0 ]; then
    status=1
    echo
    what="shard $id"; [[ "$id" == q* ]] && what="queued part ${id%.pg}"
    echo "$what failed on $engine (exit $code; $p passed, $f failed; log: $log):"
    # Each failing test under the file it belongs to (and its engine); a crash without a summary shows the log's end.
    # With each failure, the first error lines bun printed for it (what CI's summary shows).
    awk -v engine="$engine" '/^[0-9]+ tests? failed:$/ { exit } /^[^ (].*\.test\.tsx?:$/ { file = $0 } more > 0 && NF && !/^ *[0-9]+ \|/ && !/^ *at / && !/^\(/ { err = err " / " substr($0, 1, 160); more-- } /^(error|Error|[A-Za-z]*Error):/ { if (err == "") { err = substr($0, 1, 300); more = 4 } } /^\(pass\)/ { err = ""; more = 0 } /^\(fail\)/ { if (file != shown) { print "  " substr(file, 1, length(file) - 1) " on " engine ":"; shown = file }; print "    " $0; if (err != "") print "      " err; err = ""; more = 0 }' "$log"
    grep -Eq '^ *[0-9]+ fail$' "$log" || tail -20 "$log" | sed 's/^/    /'
    mapfile -t ff < <(awk '/^[0-9]+ tests? failed:$/ { exit } /^[^ (].*\.test\.tsx?:$/ { file = substr($0, 1, length($0) - 1) } /^\(fail\)/ { print file }' "$log" | sort -u)
    if [ "$f" -gt 0 ] && [ "${#ff[@]}" -gt 0 ]; then
      rerun_engine=""; [[ "$id" == *.pg ]] && rerun_engine=pg
      for x in "${ff[@]}"; do failed_files+=("$rerun_engine $x"); done
    else
      unknown=1
    fi
  fi
done
if [ "$ran" -ne "$parts" ]; then status=1; echo; echo "$ran of $parts parts ran"; fi
rm -rf test-output/"$name".claims
echo
echo "test time: $(( $(date +%s) - start )) s in $shards slots"
# A file that failed in its part runs again alone, once (docs/testing.md "Flaky files"): on two
# shared cores a timed test can lose its race to a neighbour's load. When every such file passes
# alone the run passes, and the files are named here as flaky (never silent); a file that fails
# alone fails the run. Not for a crashed part, nor for more than RERUN_MAX files (then it is no
# neighbour's load); TEST_RERUN=0 turns it off.
if [ "$status" -ne 0 ] && [ "$unknown" -eq 0 ] && [ "${TEST_RERUN:-1}" != 0 ] && [ "${#failed_files[@]}" -le "${RERUN_MAX:-6}" ]; then
  still=0; i=0
  for entry in "${failed_files[@]}"; do
    engine=${entry%% *}; file=${entry#* }; i=$((i + 1))
    label=SQLite; [ "$engine" = pg ] && label=PostgreSQL
    log=test-output/rerun-$name-$i.log
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
