#!/usr/bin/env bash
# fuzz_run.sh BUILD_DIR SECONDS [OUT_DIR] — runs every libFuzzer target of BUILD_DIR (made by
# `build.sh fuzz`) for SECONDS of CPU time each (its own user + system time: the same work on a
# quiet machine, a busy one or a niced run such as fuzz_long.sh's; stopped after
# $PQC_FUZZ_WALL_SECONDS of wall time whatever it got, default 10 × SECONDS, and then named
# below the table), on a copy of its seed corpus (fuzz/corpus/<name>/; the
# committed seeds are never written to), at most $PQC_FUZZ_JOBS at once (default: the
# number of cores). Prints one line per target: executions, exec/s, seconds, corpus size
# (seeds → after), crashes. Exits 1 when any target crashed, leaked, timed out or ran out of
# memory, or had to be killed (still running $PQC_FUZZ_GRACE_SECONDS, default 30, after being
# asked to stop or after its wall cap); the input is then OUT_DIR/<name>/crash-* (or leak-,
# timeout-, oom-) and the target's log OUT_DIR/<name>/log. Shared by test.sh's fuzz stage and
# bench/fuzz_long.sh; tests/fuzz_run_test.py checks its bounds with targets that misbehave.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz_run.sh BUILD_DIR SECONDS [OUT_DIR]}
seconds=${2:?usage: fuzz_run.sh BUILD_DIR SECONDS [OUT_DIR]}
out=${3:-}
keep=1
if [[ -z $out ]]; then  # a temporary folder, removed unless something crashed
  out=$(mktemp -d "${TMPDIR:-/tmp}/pqc-fuzz-XXXXXX")
  keep=0
fi
jobs=${PQC_FUZZ_JOBS:-$(nproc)}
mkdir -p "$out"

names=()
for bin in "$build"/fuzz/*_fuzz; do
  [[ -x $bin ]] && names+=("$(basename "$bin" _fuzz)")
done
if ((${#names[@]} == 0)); then
  echo "fuzz_run.sh: no fuzz targets in $build/fuzz (run scripts/build.sh fuzz)" >&2
  exit 2
fi

# run_one NAME: one target, its corpus copy and artifacts under OUT_DIR/NAME.
run_one() {
  local name=$1 dir="$out/$1"
  rm -rf "$dir" && mkdir -p "$dir/corpus"
  cp "$here/fuzz/corpus/$name/"* "$dir/corpus/"
  local dict=()
  [[ -f $here/fuzz/dict/$name.dict ]] && dict=(-dict="$here/fuzz/dict/$name.dict")
  # -timeout: one input taking longer than this is a hang, reported like a crash.
  # -rss_limit_mb: a parser asked to allocate gigabytes is a bug as well.
  # The CPU seconds (user + system) go to OUT_DIR/NAME/cpu, the wall seconds to NAME/wall.
  # -max_total_time is wall time, which on a shared machine (or niced, as fuzz_long.sh runs)
  # says little of the work done: the budget is CPU time, read from /proc, and SIGUSR1 ends the
  # target: libFuzzer's main loop then stops after the input at hand and prints its final stats.
  # (Not SIGINT: its handler prints the stats and exits inside the signal handler, and a target
  # interrupted in the allocator deadlocked there in CI — its timeout alarm fired and it hung
  # until ctest's 1500 s ran out.) A target still running GRACE seconds after SIGUSR1 or after
  # its wall cap is killed, and said below the table: this script ends in bounded time whatever
  # a target does.
  local started=$SECONDS
  /usr/bin/time -f '%U %S' -o "$dir/cpu" \
    "$build/fuzz/${name}_fuzz" "$dir/corpus" "${dict[@]}" -max_total_time="$wall_cap" \
    -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/" \
    >"$dir/log" 2>&1 &
  local timer=$! target="" st=() asked=""
  # give_up REASON: the target killed (or its timer, if it never started), the reason kept for
  # the table; the wait below then returns.
  give_up() {
    echo "$1: killed" >"$dir/killed"
    kill -KILL "${target:-$timer}" 2>/dev/null || true
  }
  while kill -0 "$timer" 2>/dev/null; do
    # (|| true: under set -e a target not started yet would end this job, not the loop)
    [[ -n $target ]] || target=$(pgrep -P "$timer" | head -n 1 || true)
    if [[ -z $asked ]]; then
      # /proc/PID/stat: utime and stime are fields 14 and 15 (the name, field 2, has no space)
      # (never before libFuzzer's INITED line: the seed corpus is always run whole, as a
      # wall-time budget does, and the table has its coverage)
      if [[ -n $target ]] && read -r -a st 2>/dev/null <"/proc/$target/stat" &&
        ((st[13] + st[14] >= budget)) && grep -q 'INITED' "$dir/log"; then
        kill -USR1 "$target" 2>/dev/null || true
        asked=$SECONDS
      elif ((SECONDS - started >= wall_cap + grace)); then
        # libFuzzer's own -max_total_time did not end it: a hang its -timeout did not catch
        give_up "still running ${grace} s after its ${wall_cap} s wall cap"
        break
      fi
    elif ((SECONDS - asked >= grace)); then
      give_up "did not exit within ${grace} s of SIGUSR1 (its CPU budget spent)"
      break
    fi
    sleep 0.2
  done
  wait "$timer" || true
  echo $((SECONDS - started)) >"$dir/wall"
}
budget=$((seconds * $(getconf CLK_TCK)))  # the CPU budget of each target, in clock ticks
wall_cap=${PQC_FUZZ_WALL_SECONDS:-$((seconds * 10))}
# After SIGUSR1 or the wall cap, before SIGKILL: longer than -timeout (20 s), so that an input
# that hangs is reported by libFuzzer (a timeout- artifact) rather than killed unexplained.
grace=${PQC_FUZZ_GRACE_SECONDS:-30}

# Bounded parallelism: start a job per target, wait for one whenever $jobs are running.
for name in "${names[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  run_one "$name" &
done
wait

status=0
printf '%-14s %12s %9s %8s %8s %16s %8s %8s\n' target executions exec/s seconds cpu-s \
  'corpus(seed→end)' features crashes
total_cpu=0 short=()
for name in "${names[@]}"; do
  dir="$out/$name"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -n 1)
  secs=$(cat "$dir/wall" 2>/dev/null || true)
  # user + system, the last line of time's output (a crash's report may precede it)
  cpu=$(tail -n 1 "$dir/cpu" 2>/dev/null | awk 'NF == 2 { printf "%d", $1 + $2 }')
  total_cpu=$((total_cpu + ${cpu:-0}))
  # (a target the wall cap stopped before its CPU budget: said below the table)
  ((${cpu:-0} + 1 >= seconds)) || short+=("$name (${cpu:-0} of $seconds s)")
  # libFuzzer's last status line: "#N ... cov: C ft: F corp: ..."; ft (features) is its
  # finer measure of coverage, cov the edges reached.
  feat=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$dir/log" | tail -n 1 | awk '{ print $2 "/" $4 }' ||
    true)
  seeds=$(find "$here/fuzz/corpus/$name" -type f | wc -l)
  corpus=$(find "$dir/corpus" -type f | wc -l)
  crashes=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o \
    -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | wc -l)
  # A target that died before its final stats (e.g. a crash in start-up) counts as a crash.
  # So does one this script had to kill (it hung where libFuzzer's own timeout did not fire).
  if [[ -z $execs || -f $dir/killed ]] || grep -q '^==[0-9]*==ERROR\|^SUMMARY: ' "$dir/log"; then
    ((crashes == 0)) && crashes=1
  fi
  printf '%-14s %12s %9s %8s %8s %16s %8s %8s\n' "$name" "${execs:-?}" "${rate:-?}" \
    "${secs:-?}" "${cpu:-?}" "$seeds→$corpus" "${feat:-?}" "$crashes"
  if ((crashes > 0)); then
    status=1
    [[ ! -f $dir/killed ]] || echo "  $name: $(cat "$dir/killed")" >&2
    echo "  $name: see $dir/log and the inputs in $dir/" >&2
  fi
done
echo "cpu seconds in all: $total_cpu (features: cov/ft, the edges and libFuzzer's features reached)"
((${#short[@]} == 0)) || echo "short of their CPU budget (stopped by the ${wall_cap} s wall cap on a busy machine): ${short[*]}"
if ((status == 0 && keep == 0)); then
  rm -rf "$out"
else
  echo "fuzz output: $out"
fi
exit $status
