#!/usr/bin/env bash
# fresh_clone_test.sh CHECKOUT_ROOT — the README's main command's cheap path as a new user
# meets it: a fresh clone of the checkout's HEAD in a temporary directory (never the
# developer's own tree, whose build/ and results/ would hide a missing step), the set-up
# cache as it is (warm), then `./scripts/quick.sh` with the documented short flags. It must
# exit 0 (or 1 with only the tool's own busy-host checks as reasons, twice) and leave
# results/<time>-quick/report.html in the clone.
set -euo pipefail
root=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pqc-fresh-clone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone --quiet "$root" "$tmp/pqc-bench"
cd "$tmp/pqc-bench"
start=$SECONDS
# only_saturation: quick.sh exited 1 and every invalid trial's reasons are the tool's own
# checks of its apparatus on a busy host (the load generator's schedule, the link's packet
# release), as readme_test.py judges its steps: once more after a pause, and twice is
# reported, not failed (no valid timing exists on a host whose vCPUs stall for milliseconds).
only_saturation() {
  local reasons
  reasons=$(grep -o -- '— INVALID: .*' "$tmp/quick.log" | sed 's/^— INVALID: //' | tr ';' '\n' |
    sed 's/^ *//' | grep -v '^$' || true)
  [ -n "$reasons" ] && ! grep -v -e 'load generator saturated' -e 'emulated link late' <<<"$reasons" >/dev/null
}
saturated=""
for attempt in 1 2; do
  rc=0
  ./scripts/quick.sh --set duration=1s --set warmup=1s --trials 1 >"$tmp/quick.log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] && break
  if [ "$rc" -eq 1 ] && only_saturation; then
    if [ "$attempt" -eq 2 ]; then
      saturated=" (SATURATED twice: the tool's own check on a busy host; not failed)"
      break
    fi
    echo "the load generator was saturated (a busy host): once more in 20 s"
    rm -rf results
    sleep 20
    continue
  fi
  tail -n 60 "$tmp/quick.log"
  echo "FAIL: ./scripts/quick.sh exited $rc in a fresh clone"
  echo "0 passed, 1 failed"
  exit 1
done
reports=(results/*-quick/report.html)
if [ ! -s "${reports[0]}" ]; then
  tail -n 30 "$tmp/quick.log"
  echo "FAIL: no results/<time>-quick/report.html in the fresh clone"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "fresh clone: ./scripts/quick.sh exit $rc in $((SECONDS - start)) s, ${reports[0]} ($(stat -c %s "${reports[0]}") bytes)$saturated"
echo "1 passed, 0 failed"
