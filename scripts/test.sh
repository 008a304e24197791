#!/usr/bin/env bash
# test.sh [STAGE...] — the README's test command. Stages, in order (default: all four):
#   release  release build + the whole CTest suite (fuzz corpora replayed as tests too)
#   asan     AddressSanitizer/UBSan build + the same suite, less what needs no sanitizer
#            (the labels below: e.g. readme and openssl_variants drive release binaries)
#   tsan     ThreadSanitizer build + the tests that run threads (label tsan)
#   fuzz     libFuzzer build + every fuzzer for $PQC_FUZZ_SECONDS (default 30) of CPU time each
#            on a copy of its seed corpus; a crash fails the stage
# Set-up (idempotent) runs inside build.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
stages=("$@")
((${#stages[@]})) || stages=(release asan tsan fuzz)

# check_selection DIR CTEST-ARGS... — the tests a stage's ctest selects exist and were built: a
# label that selects nothing, or a test whose executable the stage's build left out (CTest then
# registers a *_NOT_BUILT placeholder), fails the stage instead of passing it silently; and
# every test says its kind (label unit or integration, tests/CMakeLists.txt).
check_selection() {
  local dir=$1
  shift
  (cd "$dir" && ctest --show-only=json-v1 "$@") | python3 -c '
import json, sys
tests = json.load(sys.stdin)["tests"]
unbuilt = [t["name"] for t in tests if "_NOT_BUILT" in t["name"]
           or any("_NOT_BUILT" in c for c in t.get("command", []))]
if not tests:
    sys.exit("test.sh: the stage selects no test: " + " ".join(sys.argv[1:]))
if unbuilt:
    sys.exit("test.sh: the stage selects tests that were not built: " + ", ".join(unbuilt))
def labels(t):
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            return p["value"]
    return []
kindless = [t["name"] for t in tests if not {"unit", "integration"} & set(labels(t))]
if kindless:
    sys.exit("test.sh: tests without a kind label (unit or integration): " +
             ", ".join(kindless[:10]))
print(f"test.sh: {len(tests)} tests selected", file=sys.stderr)
' "$@"
}

# serial_pattern DIR — a ctest regex naming the RUN_SERIAL tests of DIR that need no fixture,
# or nothing when a name would not fit one (CMake's regexes take no backslash: "[.]" for a dot).
serial_pattern() {
  (cd "$1" && ctest --show-only=json-v1) | python3 -c '
import json, re, sys
names = []
for t in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if props.get("RUN_SERIAL") and not props.get("FIXTURES_REQUIRED"):
        names.append(t["name"])
if names and all(re.fullmatch(r"[A-Za-z0-9_./#=: ()-]+", n) for n in names):
    print("^(" + "|".join(re.sub(r"([.()])", r"[\1]", n) for n in names) + ")$")
'
}

# step NAME COMMAND... — one timed step of a stage: its time printed when it ends.
step() {
  local name=$1 started=$SECONDS
  shift
  echo "== $name ==" >&2
  "$@"
  echo "== $name: $((SECONDS - started)) s ==" >&2
}

# The tests run with PQC_PREBUILT=1: a set-up or build that a test starts (the README's own
# commands build trees) fails instead of compiling inside the test's timeout, so that no
# timeout depends on a warm cache. What the tests drive is set up and built before they start,
# each build timed. The release stage's tests wait on sockets, timers and child processes more
# than they compute (below), so once its tests that run alone are done, the other trees are
# built behind the rest at idle priority (SCHED_IDLE: only CPU the tests leave unused), one
# after another (scripts/lib/build_behind.sh): the OpenSSL 3.6 variant's tool (the README's
# and openssl_variants' second build: `--core`, the tool alone, as the guide builds it) and
# the fuzz tree (the README's fuzzing commands), which the tests that drive them wait for (the
# prebuilt_variant and prebuilt_fuzz fixtures), then the ASan and TSan trees, which those
# stages wait for. The fuzzers themselves run in front, in the fuzz stage: two of them behind
# the ASan stage at idle priority made BuildArmsTest find its slow build 10 ms slower for 3 and
# FaultRunTest lose one connection too many (2026-12-06), as builds behind the release tests
# once upset their timings; behind the TSan stage's tests they made RunTest.QuicScenario… count
# 3–4 round trips for handshakes of 1–2 (2026-12-07).
export PQC_PREBUILT=0
behind="" behind_trees=()
# start_behind: the builder of the trees the selected stages need after the release tree.
start_behind() {
  behind=$(mktemp -d "${TMPDIR:-/tmp}/pqc-built-behind.XXXXXX")
  behind_trees=(variant fuzz)
  local s
  for s in "${stages[@]}"; do
    case "$s" in asan | tsan) behind_trees+=("$s") ;; esac
  done
  setsid chrt --idle 0 "$here/scripts/lib/build_behind.sh" "$behind" "${behind_trees[@]}" \
    </dev/null >/dev/null 2>&1 &
  builder=$!
  # (|| true: the builder has usually ended; a failing kill must not end the trap under set -e)
  trap 'kill -- -"$builder" 2>/dev/null || true; rm -rf "$behind"' EXIT
}
# wait_behind TREE: when TREE is being built behind, waits for it; its build's time and the
# wait printed, and its log's end if it failed (which fails the stage).
wait_behind() {
  local tree=$1 started=$SECONDS status seconds
  [ -n "$behind" ] && [[ " ${behind_trees[*]} " == *" $tree "* ]] || return 0
  while [ ! -e "$behind/$tree.status" ]; do
    if ! kill -0 "$builder" 2>/dev/null && [ ! -e "$behind/$tree.status" ]; then
      echo "test.sh: the builder of the trees behind the tests ended before the $tree tree" >&2
      return 1
    fi
    sleep 1
  done
  read -r status seconds <"$behind/$tree.status"
  echo "== $tree tree: built behind the tests in $seconds s (waited $((SECONDS - started)) s) ==" >&2
  if [ "$status" != 0 ]; then
    echo "test.sh: the $tree tree's build failed (exit $status); its log ends:" >&2
    tail -n 40 "$behind/$tree.log" >&2
    return 1
  fi
}
# Tests wait more than they compute (rates, timers, child processes, sockets): at one test per
# core the release stage's tests kept 0.8 of 2 cores busy (about 770 s of CPU in 950 s), the ASan
# stage's too (357 s in 451 s). So CTest runs two per core; the tests that judge timings or
# share the machine's cores by design are RUN_SERIAL (tests/CMakeLists.txt) and run alone.
# (Three per core in the release stage was tried, 2026-12-07: its four longest tests hold all
# four places for six minutes while the rest queue, but with six at once BuildArmsTest's slow
# build came out 4.7 ms slower instead of under 4.5 and most README studies saturated.)
jobs=${PQC_TEST_JOBS:-$((2 * $(nproc)))}
build_tree() { dir=$("$here/scripts/build.sh" "$@" | tail -n 1); }

for stage in "${stages[@]}"; do
  start=$SECONDS
  case "$stage" in
    release | asan)
      wait_behind "$stage"
      step "$stage build" build_tree "$stage"
      echo "== $stage tests ==" >&2
      # The readme tests drive the release tree's binary as the README shows it (build/src),
      # and the openssl_variants tests build and compare release binaries of two OpenSSL
      # builds: in the ASan stage they would run the same things again. h2load_crosscheck's
      # assertions are timings of two clients side by side, which an ASan binary does not
      # keep; the paths it drives (load, serve) run under ASan in load_test and server_test.
      # aa_ab and compare_rtt judge real studies' statistics against physics (an A/A pair
      # clean, a 1 ms and a 5 ms RTT step found within the link's accuracy): real load whose
      # handshake CPU, several times slower and more variable in an ASan binary, moves between
      # runs by more than their tolerance (compare_rtt's handshake +3.1 ms for +5 ± 1 under
      # ASan, 2026-12-05); their code (run, compare) runs under ASan in run_test and
      # compare_test.
      # count runs pqc-bench under valgrind, which cannot run an ASan binary (both own the
      # process's memory map); what count computes (the callgrind reader, the stages, the
      # gates, count.json) runs under ASan in count_test and the fuzz corpora's replays.
      # The seeded simulations (label simulation: coverage and power over thousands of studies)
      # are arithmetic the release stage proves; at -O0 under ASan they took 10 minutes, and
      # the functions they drive run under ASan in their files' small cases. fuzz_run checks
      # a script with stand-in targets: no binary of ours to sanitize.
      # slurm's subject is the scheduler's side (the harness, deploy/slurm's batch script, srun's
      # tasks); what pqc-bench does there runs under ASan in shard (the same `run --shard`
      # studies and merge) and in the shard parser's fuzz target (`--shard slurm` reads
      # SLURM_PROCID and SLURM_NTASKS): 20 s alone in the ASan stage that sanitized nothing new.
      # The fuzz corpora's replays (label fuzz_replay) are not even built in the ASan tree
      # (CMakeLists.txt): the fuzz stage runs every seed of every corpus under ASan and UBSan
      # before it fuzzes (libFuzzer's first pass; a crash there fails that stage), which is
      # what they checked here: 51 CPU-s of the ASan tree's cold build and its 20 links.
      exclude=()
      [ "$stage" = asan ] &&
        exclude=(-LE '^(readme|openssl_variants|h2load_crosscheck|aa_ab|compare_rtt|simulation|asan_quic_stall|count|fuzz_run|slurm)$')
      check_selection "$dir" "${exclude[@]}"
      # In the release stage the tests that run alone (RUN_SERIAL) go first, on a quiet machine
      # (a build behind them, even at idle priority, made a QUIC resumption test's warm-up
      # miss its tickets), and then the others while the trees are built behind them: CTest
      # starts such a test only when nothing else runs, so among the others they waited for the
      # end, and with the README's tests held until their trees are built they came after those
      # too. Warm, the order is the same work; cold, the builds overlap the other tests.
      first=()
      if [ "$stage" = release ] && serial=$(serial_pattern "$dir") && [ -n "$serial" ]; then
        step "release: the tests that run alone" \
          bash -c 'cd "$1" && PQC_PREBUILT=1 ctest --output-on-failure --timeout 1500 -R "$2"' \
          _ "$dir" "$serial"
        first=(-E "$serial")
      fi
      if [ "$stage" = release ]; then start_behind; fi
      (cd "$dir" && PQC_PREBUILT=1 PQC_BUILT_BEHIND="$behind" \
        ctest --output-on-failure -j"$jobs" --timeout 1500 "${exclude[@]}" "${first[@]}")
      if [ "$stage" = release ]; then  # what the README's tests drove: its build's time
        wait_behind variant
        wait_behind fuzz
      fi
      ;;
    tsan)
      wait_behind tsan
      step "tsan build" build_tree tsan
      echo "== tsan tests ==" >&2
      # halt_on_error: the first report fails its test (a report must never scroll by).
      # The binaries the tests start (pqc-bench serve/load/run) inherit TSAN_OPTIONS, and
      # run_test fails a case whose binary printed a sanitizer report.
      # The tests labelled tsan (tests/CMakeLists.txt: the areas whose code runs threads —
      # server event loops, load workers, the link's mover, the runner's threads, the
      # observatory's writer — and shards); build.sh tsan builds exactly them.
      check_selection "$dir" -L '^tsan$'
      (cd "$dir" && PQC_PREBUILT=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$here/scripts/tsan.supp" \
        ctest --output-on-failure -j"$jobs" --timeout 900 -L '^tsan$')
      ;;
    fuzz)
      wait_behind fuzz
      step "fuzz build" build_tree fuzz
      echo "== fuzz run (${PQC_FUZZ_SECONDS:-30} s of CPU per target) ==" >&2
      "$here/scripts/fuzz_run.sh" "$dir" "${PQC_FUZZ_SECONDS:-30}"
      ;;
    *) echo "test.sh: unknown stage '$stage' (valid: release, asan, tsan, fuzz)" >&2; exit 2 ;;
  esac
  echo "== $stage: $((SECONDS - start)) s ==" >&2
done
echo "== test.sh: ${stages[*]}: $SECONDS s ==" >&2
