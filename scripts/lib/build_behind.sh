#!/usr/bin/env bash
# build_behind.sh DIR TREE... — builds test.sh's other trees, one after another, while its
# release tests run: TREE is variant (the OpenSSL 3.6 variant's pqc-bench, for the README and
# openssl_variants tests), fuzz, asan or tsan; or fuzzrun, the fuzz stage's run of every fuzzer
# (scripts/fuzz_run.sh, $PQC_FUZZ_SECONDS of CPU each) on the fuzz tree built before it, once
# test.sh has made DIR/fuzzrun.go (when the release stage's tests are done: they judge timings
# that two fuzzers behind them, even at idle priority, upset).
# test.sh starts it under SCHED_IDLE (chrt --idle), so that it takes only the CPU the tests
# leave idle — they wait on sockets, timers and child processes more than they compute — and
# never delays a test's own threads. Each item's output goes to DIR/TREE.log (a tree's path,
# build.sh's last line, to DIR/TREE.tree); DIR/TREE.status is written last (the exit status,
# then the seconds), which is what test.sh and the prebuilt_variant and prebuilt_fuzz tests
# wait for.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
shift
for tree in "$@"; do
  started=$SECONDS
  case "$tree" in
    variant) env PQC_OPENSSL=3.6 "$here/scripts/build.sh" --core release pqc-bench >"$dir/$tree.log" 2>&1 ;;
    fuzz | asan | tsan) "$here/scripts/build.sh" "$tree" 2>"$dir/$tree.log" | tail -n 1 >"$dir/$tree.tree" ;;
    fuzzrun)
      while [ ! -e "$dir/fuzzrun.go" ]; do sleep 1; done  # (test.sh kills the group at its end)
      if [ "$(cut -d' ' -f1 "$dir/fuzz.status" 2>/dev/null)" = 0 ]; then
        # (the wall cap an hour: starved while the sanitizer stages fill the cores, each target
        # still gets its CPU seconds once they are done)
        PQC_FUZZ_WALL_SECONDS=3600 "$here/scripts/fuzz_run.sh" "$(cat "$dir/fuzz.tree")" \
          "${PQC_FUZZ_SECONDS:-30}" >"$dir/$tree.log" 2>&1
      else
        echo "build_behind.sh: no fuzz tree to run (its build failed or was not asked for)" >"$dir/$tree.log"
        false
      fi ;;
    *) echo "build_behind.sh: unknown tree '$tree' (valid: variant, fuzz, asan, tsan, fuzzrun)" >"$dir/$tree.log"; false ;;
  esac
  status=$?
  echo "$status $((SECONDS - started))" >"$dir/$tree.status.new"
  mv "$dir/$tree.status.new" "$dir/$tree.status"
done
