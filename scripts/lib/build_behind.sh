#!/usr/bin/env bash
# build_behind.sh DIR TREE... — builds test.sh's other trees, one after another, while its
# release tests run: TREE is variant (the OpenSSL 3.6 variant's pqc-bench, for the README and
# openssl_variants tests), fuzz, asan or tsan. test.sh starts it under SCHED_IDLE (chrt --idle),
# so that it takes only the CPU the tests leave idle — they wait on sockets, timers and child
# processes more than they compute — and never delays a test's own threads. Each tree's output
# goes to DIR/TREE.log; DIR/TREE.status is written last (the build's exit status, then its
# seconds), which is what test.sh and the prebuilt_variant and prebuilt_fuzz tests wait for.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
shift
for tree in "$@"; do
  started=$SECONDS
  case "$tree" in
    variant) env PQC_OPENSSL=3.6 "$here/scripts/build.sh" --core release pqc-bench ;;
    fuzz | asan | tsan) "$here/scripts/build.sh" "$tree" ;;
    *) echo "build_behind.sh: unknown tree '$tree' (valid: variant, fuzz, asan, tsan)" >&2; false ;;
  esac >"$dir/$tree.log" 2>&1
  status=$?
  echo "$status $((SECONDS - started))" >"$dir/$tree.status.new"
  mv "$dir/$tree.status.new" "$dir/$tree.status"
done
