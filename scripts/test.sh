#!/usr/bin/env bash
# test.sh — the README's test command: set-up (idempotent), release build + the whole CTest
# suite, then the AddressSanitizer/UBSan build + the same suite.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
for kind in release asan; do
  echo "== $kind build ==" >&2
  dir=$("$here/scripts/build.sh" "$kind" | tail -n 1)
  echo "== $kind tests ==" >&2
  (cd "$dir" && ctest --output-on-failure -j"$(nproc)" --timeout 600)
done
