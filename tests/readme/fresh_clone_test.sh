#!/usr/bin/env bash
# fresh_clone_test.sh CHECKOUT_ROOT — the README's main command as a new user meets it: a fresh
# clone of the checkout's HEAD in a temporary directory (never the developer's own tree, whose
# build/ and results/ would hide a missing step) and a set-up cache of its own, then
# `./scripts/quick.sh` with the documented short flags, twice:
#   1. as root, in a new cache seeded only with a link to the warm cache's OpenSSL build
#      (compiling it takes 2–3 minutes; its recipe is the set-up's, and its cache key is kept). The set-up must
#      fetch the chart libraries, build nghttp3 (10 s) and the tool, and nothing else: no nginx,
#      HAProxy or h2load, no npm packages — and the Debian packages it would install (`setup.sh
#      --packages core`) must hold none of the tests' (Chromium, Slurm, clang, GoogleTest,
#      Node.js, ...).
#   2. as an ordinary user (nobody), the clone and the cache handed over to it: a warm cache
#      needs no root (no sudo either: nobody has none). The seeded OpenSSL lives in the warm
#      cache under root's home, which nobody cannot enter; in a private mount namespace that
#      home is replaced by an empty readable one holding only the OpenSSL at its real path (its
#      rpath and the build's include path), read-only.
# Each run must exit 0 (or 1 with only the tool's own busy-host checks as reasons: reported, not
# failed, and not run again, as readme_test.py judges its steps) and leave
# results/<time>-quick/report.html in the clone.
set -euo pipefail
root=$(cd "${1:-.}" && pwd)
warm="${PQC_BENCH_CACHE:-$HOME/.cache/pqc-bench}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pqc-fresh-clone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone --quiet "$root" "$tmp/pqc-bench"
cd "$tmp/pqc-bench"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# The tests' packages and the peers: none may be part of what quick.sh sets up.
TEST_ONLY=(chromium slurm-wlm munge clang libgtest-dev libgmock-dev libbenchmark-dev nodejs npm
  libev-dev liblua5.4-dev python3-jsonschema)
core_packages=$(./scripts/setup.sh --packages core)
for p in "${TEST_ONLY[@]}"; do
  grep -qxF "$p" <<<"$core_packages" && fail "setup.sh core would install $p, which only the tests use"
done
all_packages=$(./scripts/setup.sh --packages)
for p in chromium slurm-wlm libgtest-dev; do
  grep -qxF "$p" <<<"$all_packages" || fail "setup.sh (all parts) does not install $p"
done

# The new cache: the warm cache's OpenSSL only, linked (the set-up takes the real directory, so
# the tool compiles with the include path the compiler cache knows: nothing is rebuilt).
. "$warm/env.sh"
cache="$tmp/cache"
mkdir -p "$cache"
ln -s "$PQC_OPENSSL_ROOT" "$cache/"
# The compiler cache stays the warm one for the root run (the tool's objects, not a set-up
# product); the ordinary user's run needs none (its build tree is up to date).
warm_ccache="$warm/ccache"

# only_saturation LOG: quick.sh exited 1 and every invalid trial's reasons are the tool's own
# checks of its apparatus on a busy host (the load generator's schedule, the link's packet
# release), as readme_test.py judges its steps: reported, not failed (no valid timing exists on
# a host whose vCPUs stall for milliseconds), and not run again (on this host a second attempt
# saturated as well, and doubled the test's time).
only_saturation() {
  local reasons
  # (a resume arm's "had no session to offer" in a trial whose schedule saturated is the
  # saturation's: its warm-up, as starved, took no ticket in time; readme_test.py's one_trial)
  reasons=$(grep -o -- '— INVALID: .*' "$1" | sed 's/^— INVALID: //' |
    sed -E '/load generator saturated|emulated link late/ s/(; )?[0-9]+ resume connections had no session to offer \([^)]*\)//g' |
    tr ';' '\n' |
    sed 's/^ *//' | grep -v '^$' || true)
  [ -n "$reasons" ] && ! grep -v -e 'load generator saturated' -e 'emulated link late' <<<"$reasons" >/dev/null
}

# quick LABEL COMMAND-PREFIX... — quick.sh with the short flags, checked; its log in $tmp.
quick() {
  local label=$1 log="$tmp/$1.log" rc=0 saturated="" start=$SECONDS
  shift
  "$@" ./scripts/quick.sh --set duration=1s --set warmup=1s --trials 1 >"$log" 2>&1 || rc=$?
  if [ "$rc" -eq 1 ] && only_saturation "$log"; then
    saturated=" (SATURATED: the tool's own check on a busy host; not failed)"
  elif [ "$rc" -ne 0 ]; then
    tail -n 60 "$log"
    fail "$label: ./scripts/quick.sh exited $rc in a fresh clone"
    return
  fi
  local reports=(results/*-quick/report.html)
  if [ ! -s "${reports[0]}" ]; then
    tail -n 30 "$log"
    fail "$label: no results/<time>-quick/report.html in the fresh clone"
    return
  fi
  echo "$label: ./scripts/quick.sh exit $rc in $((SECONDS - start)) s, ${reports[0]} ($(stat -c %s "${reports[0]}") bytes)$saturated"
  rm -rf results
}

# 1. As root, into the new cache.
# (PQC_PREBUILT unset: this run's set-up and build in a new cache and clone are what it tests)
quick "first run (root, new cache)" env -u PQC_PREBUILT PQC_BENCH_CACHE="$cache" \
  CCACHE_DIR="$warm_ccache"
built=$(cd "$cache" && ls -d nginx-* haproxy-* nghttp2-* web-* 2>/dev/null || true)
[ -z "$built" ] && echo "the set-up built or installed no peer and no npm package" ||
  fail "quick.sh's set-up built what only the tests or peers need: $built"
ls "$cache"/charts-*/node_modules/vega/build/vega.min.js >/dev/null 2>&1 ||
  fail "quick.sh's set-up fetched no chart libraries into the cache"
ls "$cache"/nghttp3-*/lib/libnghttp3.a >/dev/null 2>&1 ||
  fail "quick.sh's set-up built no nghttp3 into the cache"
[ -z "$(ls -A "$cache"/peers-* 2>/dev/null)" ] || fail "quick.sh's set-up linked peers: $(ls "$cache"/peers-*)"
grep -q 'installing Debian packages' "$tmp/first run (root, new cache).log" &&
  fail "quick.sh installed Debian packages on a machine that has the core ones"
# A peer wanted before it is built: exit 2, naming the one command that builds it.
rc=0
out=$(env -u PQC_NGINX build/src/pqc-bench run scenarios/01-fresh-handshake.toml \
  --set target=nginx --trials 1 2>&1) || rc=$?
if [ "$rc" -ne 2 ] || ! grep -qF './scripts/setup.sh peers' <<<"$out"; then
  fail "run --set target=nginx without nginx: exit $rc, expected 2 naming ./scripts/setup.sh peers: $out"
else
  echo "run --set target=nginx without nginx: exit 2, names ./scripts/setup.sh peers"
fi
rm -rf results

# 2. As nobody: the clone and the cache are its now, HOME a directory of its own.
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/home"
  chown -R nobody:nogroup "$tmp"
  ossl=$(readlink -f "$PQC_OPENSSL_ROOT")
  # (the script runs in the new mount namespace: $1 the OpenSSL, $2 the home to cover, then
  # the command)
  view='mkdir -p "$3/ossl-view" && mount --bind -o ro "$1" "$3/ossl-view" &&
    case "$1" in "$2"/*) mount -t tmpfs -o mode=755 pqc-home "$2" ;; esac &&
    mkdir -p "$1" && mount --bind -o ro "$3/ossl-view" "$1" && shift 3 && exec "$@"'
  quick "second run (nobody, warm cache)" unshare --mount --propagation private \
    bash -c "$view" view "$ossl" "$HOME" "$tmp" \
    setpriv --reuid=nobody --regid=nogroup --clear-groups \
    env -i PATH="$PATH" HOME="$tmp/home" PQC_BENCH_CACHE="$cache" LANG=C.UTF-8
  log="$tmp/second run (nobody, warm cache).log"
  grep -qiE 'must run as root|needs root|sudo' "$log" && fail "the warm run as nobody asked for root"
else
  echo "second run as another user: skipped (the test runs as that user already)"
fi
if [ "$failures" -ne 0 ]; then
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
