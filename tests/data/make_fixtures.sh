#!/usr/bin/env bash
# make_fixtures.sh [PQC_BENCH] — regenerates tests/data/summary_*.json from real runs of the
# scenarios in tests/data/fixtures/ (the report tests read them; they are never written by
# hand). Run as root (the RTT sweep needs emulated links) from anywhere, after
# `scripts/build.sh release`; takes about three minutes. Each run goes to a temporary
# directory (relative results paths, so that no path of this machine reaches a fixture), and
# `pqc-bench report DIR --format json` writes the fixture.
set -euo pipefail
data=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-$data/../../build/src/pqc-bench}")
[ "$(id -u)" = 0 ] || { echo "make_fixtures.sh: run as root (the RTT sweep emulates links)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pqc-fixtures.XXXXXX")
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"

fixture() {  # fixture NAME [RUN ARGS...]: run the scenario, write summary_NAME.json
  local name=$1; shift
  cp "$data/fixtures/$name.toml" "$name.toml"
  "$bin" run "$name.toml" "$@" >"$name.log" 2>&1 || true  # a failed arm exits non-zero by design
  local dir; dir=$(ls -d results/*-"$name" | tail -n 1)
  "$bin" report "$dir" --format json -o "$data/summary_$name.json"
  echo "summary_$name.json: $(grep -c '"label"' "$data/summary_$name.json") labels, from $dir" >&2
}

fixture fresh_study
fixture failed_slhdsa
fixture payload_sweep
fixture script_title
fixture rtt_sweep
fixture stopped_study

# incomplete: an external server without tickets or cache, interrupted after three trials.
"$bin" serve --listen 127.0.0.1:0 --tickets off --cache off --write-ca ca.pem >serve.log 2>&1 &
serve_pid=$!
for _ in $(seq 100); do grep -q "listening on" serve.log && break; sleep 0.1; done
addr=$(sed -n 's/^listening on \([^ ]*\).*/\1/p' serve.log | head -n 1)
cp "$data/fixtures/incomplete.toml" incomplete.toml
"$bin" run incomplete.toml --set "address=$addr" --set ca=ca.pem >incomplete.log 2>&1 &
run_pid=$!
for _ in $(seq 600); do
  [ "$(grep -c '^  [0-9]* connections' incomplete.log || true)" -ge 3 ] && break
  sleep 0.1
done
kill -INT "$run_pid"
wait "$run_pid" || true
dir=$(ls -d results/*-incomplete | tail -n 1)
"$bin" report "$dir" --format json -o "$data/summary_incomplete.json"
echo "summary_incomplete.json from $dir" >&2
