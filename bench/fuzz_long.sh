#!/usr/bin/env bash
# fuzz_long.sh [SECONDS] — every fuzzer for SECONDS each (default 600), longer than CI's
# 30 s, in parallel jobs bounded by the cores ($PQC_FUZZ_JOBS overrides), each on a copy of
# its seed corpus. Builds build-fuzz/ first. Prints per target the executions, exec/s,
# seconds, CPU seconds, corpus size (seeds → end), coverage and crashes; the grown corpora,
# logs and any crashing inputs stay in the printed output folder (minimise a crash with
# `build-fuzz/fuzz/NAME_fuzz -minimize_crash=1 -runs=10000 CRASH`, fix it in src/, then add
# it to fuzz/corpus/NAME/). Exit status 1 when any target crashed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
dir=$("$here/scripts/build.sh" fuzz | tail -n 1)
"$here/scripts/fuzz_run.sh" "$dir" "$seconds" "${PQC_FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/pqc-fuzz-long-XXXXXX")}"
