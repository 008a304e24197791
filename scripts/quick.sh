#!/usr/bin/env bash
# quick.sh — the README's main command: set-up of what the tool needs (idempotent: Debian
# packages, OpenSSL 3.5, the report's chart libraries), build, then a short real study:
# what this OpenSSL supports (probe), what certificates cost on the wire (certs), and
# `pqc-bench run scenarios/quick.toml` — fresh and resumed handshakes with X25519 vs
# X25519MLKEM768 on the embedded target, interleaved trials, stored in SQLite, summarised
# with confidence intervals, and written as summary.md, summary.json and report.html under
# results/<UTC time>-quick/. Extra arguments go to `run` (e.g. --full, --set duration=5s).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# Only what the tool needs (no peers, no test packages), and only the binary: the tests are
# test.sh's to set up and build.
dir=$("$here/scripts/build.sh" --core release pqc-bench | tail -n 1)
bin="$dir/src/pqc-bench"
cd "$here"

echo
echo "== pqc-bench probe =="
"$bin" probe
for chain in ecdsa-p256 ml-dsa-65 ml-dsa-87/ml-dsa-87/ml-dsa-87; do
  echo
  "$bin" certs --sig "$chain"
done

echo
echo "== pqc-bench run scenarios/quick.toml =="
"$bin" run scenarios/quick.toml "$@"
