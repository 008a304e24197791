#!/usr/bin/env bash
# fresh_clone_test.sh CHECKOUT_ROOT — the README's main command's cheap path as a new user
# meets it: a fresh clone of the checkout's HEAD in a temporary directory (never the
# developer's own tree, whose build/ and results/ would hide a missing step), the set-up
# cache as it is (warm), then `./scripts/quick.sh` with the documented short flags. It must
# exit 0 and leave results/<time>-quick/report.html in the clone.
set -euo pipefail
root=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pqc-fresh-clone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone --quiet "$root" "$tmp/pqc-bench"
cd "$tmp/pqc-bench"
start=$SECONDS
if ! ./scripts/quick.sh --set duration=1s --set warmup=1s --trials 1 >"$tmp/quick.log" 2>&1; then
  tail -n 60 "$tmp/quick.log"
  echo "FAIL: ./scripts/quick.sh exited non-zero in a fresh clone"
  echo "0 passed, 1 failed"
  exit 1
fi
reports=(results/*-quick/report.html)
if [ ! -s "${reports[0]}" ]; then
  tail -n 30 "$tmp/quick.log"
  echo "FAIL: no results/<time>-quick/report.html in the fresh clone"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "fresh clone: ./scripts/quick.sh exit 0 in $((SECONDS - start)) s, ${reports[0]} ($(stat -c %s "${reports[0]}") bytes)"
echo "1 passed, 0 failed"
