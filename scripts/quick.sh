#!/usr/bin/env bash
# quick.sh — the README's main command: set-up (idempotent), build, then the quick study.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$here/scripts/build.sh" release | tail -n 1)
bin="$dir/src/pqc-bench"
echo
echo "== pqc-bench probe =="
"$bin" probe
for chain in ecdsa-p256 ml-dsa-44 ml-dsa-65 ml-dsa-87/ml-dsa-87/ml-dsa-87; do
  echo
  "$bin" certs --sig "$chain"
done
