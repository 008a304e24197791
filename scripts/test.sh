#!/usr/bin/env bash
# test.sh [STAGE...] — the README's test command. Stages, in order (default: all four):
#   release  release build + the whole CTest suite (fuzz corpora replayed as tests too)
#   asan     AddressSanitizer/UBSan build + the same suite, less the readme and
#            openssl_variants labels (they drive release binaries)
#   tsan     ThreadSanitizer build + the tests that run threads (see TSAN_LABELS)
#   fuzz     libFuzzer build + every fuzzer for $PQC_FUZZ_SECONDS (default 30) each on a copy
#            of its seed corpus; a crash fails the stage
# Set-up (idempotent) runs inside build.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
stages=("$@")
((${#stages[@]})) || stages=(release asan tsan fuzz)

# The areas whose code runs several threads (server event loops, load workers, the link's
# mover, the runner's target/link/load threads, the observatory's writer thread beside the
# server's loops) and the event loop they share. Left out:
# the single-threaded areas (nothing for TSan to find; they run in the other stages) and
# crosscheck_test and report_html_test (their threads are external programs — openssl
# s_time, nginx, Chromium — that TSan cannot see, and their timing tolerance is not meant
# for a 5–15× slower binary), and link_integration_test: its assertions are physical timings
# of the packet mover (round trips at 50 ms RTT), which a TSan binary under load does not keep;
# link_test covers the mover's logic.
TSAN_LABELS='^(net_test|server_test|load_test|link_test|run_test|target_test|observatory_test|shard)$'

for stage in "${stages[@]}"; do
  start=$SECONDS
  case "$stage" in
    release | asan)
      echo "== $stage build ==" >&2
      dir=$("$here/scripts/build.sh" "$stage" | tail -n 1)
      echo "== $stage tests ==" >&2
      # The readme tests drive the release tree's binary as the README shows it (build/src),
      # and the openssl_variants tests build and compare release binaries of two OpenSSL
      # builds: in the ASan stage they would run the same things again. h2load_crosscheck's
      # assertions are timings of two clients side by side, which an ASan binary does not
      # keep; the paths it drives (load, serve) run under ASan in load_test and server_test.
      # aa_ab judges real studies' statistics (an A/A pair clean, a 1 ms RTT step found): two
      # minutes of real load, whose code (run, compare) runs under ASan in run_test and
      # compare_test.
      exclude=()
      [ "$stage" = asan ] && exclude=(-LE '^(readme|openssl_variants|h2load_crosscheck|aa_ab)$')
      (cd "$dir" && ctest --output-on-failure -j"$(nproc)" --timeout 1500 "${exclude[@]}")
      ;;
    tsan)
      echo "== tsan build ==" >&2
      dir=$("$here/scripts/build.sh" tsan | tail -n 1)
      echo "== tsan tests ==" >&2
      # halt_on_error: the first report fails its test (a report must never scroll by).
      # The binaries the tests start (pqc-bench serve/load/run) inherit TSAN_OPTIONS, and
      # run_test fails a case whose binary printed a sanitizer report.
      (cd "$dir" && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$here/scripts/tsan.supp" \
        ctest --output-on-failure -j"$(nproc)" --timeout 900 -L "$TSAN_LABELS")
      ;;
    fuzz)
      echo "== fuzz build ==" >&2
      dir=$("$here/scripts/build.sh" fuzz | tail -n 1)
      echo "== fuzz run (${PQC_FUZZ_SECONDS:-30} s per target) ==" >&2
      "$here/scripts/fuzz_run.sh" "$dir" "${PQC_FUZZ_SECONDS:-30}"
      ;;
    *) echo "test.sh: unknown stage '$stage' (valid: release, asan, tsan, fuzz)" >&2; exit 2 ;;
  esac
  echo "== $stage: $((SECONDS - start)) s ==" >&2
done
