#!/usr/bin/env bash
# build.sh [--core | --setup PART,...] [release|asan|tsan|fuzz] [TARGET...] — configures and
# builds pqc-bench against the cached OpenSSL 3.5 and nghttp3 (runs setup.sh first, which is a
# few seconds once everything is cached; by default all of its parts, which the tests need).
# --setup: only those parts of setup.sh (e.g. core,peers for an image that runs studies);
# --core is --setup core, what the tool alone needs (quick.sh's). Without the tests part, the
# tests are built only if GoogleTest and Google Benchmark happen to be installed.
# Build trees: build/ (release: -O2, no debug information), build-asan/ (AddressSanitizer +
# UBSan, -O0, line tables), build-tsan/ (ThreadSanitizer, gcc, -O2 with line tables: only the
# binary and the tests that run threads, which is what test.sh's TSan stage runs) and
# build-fuzz/ (clang, the libFuzzer targets of fuzz/ only, with ASan + UBSan).
# With PQC_OPENSSL set (another OpenSSL: see setup.sh), against that OpenSSL and its nginx,
# HAProxy and h2load, in trees of the variant's own: build-openssl-LABEL/,
# build-openssl-LABEL-asan/, ... (PQC_OPENSSL=3.6 → build-openssl-3.6/). Prints the build
# tree as its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
setup_parts=()  # setup.sh's default: everything
tests=ON
case "${1:-}" in
  --core) setup_parts=(core); shift ;;
  --setup)
    [ -n "${2:-}" ] || { echo "build.sh: --setup needs parts, e.g. --setup core,peers" >&2; exit 2; }
    IFS=, read -r -a setup_parts <<<"$2"
    shift 2 ;;
esac
if ((${#setup_parts[@]})); then
  tests=AUTO
  for part in "${setup_parts[@]}"; do
    [ "$part" = tests ] || [ "$part" = all ] && tests=ON
  done
fi
kind=${1:-release}
shift $(($# > 0 ? 1 : 0))
extra=("$@")  # targets to build instead of the kind's default (e.g. pqc-bench)
envfile=$("$here/scripts/setup.sh" "${setup_parts[@]}" | tail -n 1)
# shellcheck disable=SC1090
. "$envfile"
targets=()  # empty: everything
# The default OpenSSL's trees are build*/; a variant's carry its label (from its env file).
base="$here/build${PQC_OPENSSL_VARIANT:+-openssl-$PQC_OPENSSL_VARIANT}"
# Debug information only where it is read: the sanitizers' and libFuzzer's reports name files
# and lines (line tables: -g1, clang's -gline-tables-only), the release binary's users
# (profilers, callgrind) need only its symbols. Full -g made a cold compile 40 % slower.
case "$kind" in
  release) dir="$base"; flags=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG") ;;
  asan)
    # -O0: at -O1 gcc 12's flow analysis, with the sanitizers' checks inlined, reports
    # out-of-bounds memsets in libstdc++ that cannot happen (-Wstringop-overflow, an error here).
    # Unity batches and the precompiled header, as the release tree (docs/development.md,
    # "Build time": the sanitizer trees' failures with them are gone, and a cold build takes
    # 6 minutes instead of 10).
    dir="$base-asan"
    flags=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" -DPQC_SANITIZE=ON) ;;
  tsan)
    dir="$base-tsan"
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
      -DPQC_TSAN=ON)
    # The tests labelled tsan (tests/CMakeLists.txt), which test.sh's TSan stage runs.
    targets=(pqc-bench tsan_tests) ;;
  fuzz)
    dir="$base-fuzz"
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" -DPQC_FUZZ=ON
      -DCMAKE_CXX_COMPILER=clang++
      # No precompiled header: clang takes it as `-Xclang -include-pch -Xclang /abs/path`,
      # which the compiler cache cannot make relative, so every clone (CI's) missed every
      # object (155 s where the gcc trees take seconds); unity batches alone it caches.
      -DPQC_PCH=OFF)
    targets=(fuzzers) ;;
  *) echo "build.sh: unknown build '$kind' (valid: release, asan, tsan, fuzz)" >&2; exit 2 ;;
esac
# ccache, in the set-up cache: every build tree of every checkout (a developer's, CI's fresh
# clone, the readme test's clone) compiles the same sources with the same flags. Paths are
# rewritten relative to the checkout (CCACHE_BASEDIR) and the build directory is not hashed,
# so a clone in another folder hits the objects a previous build made.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR="${CCACHE_DIR:-${PQC_BENCH_CACHE:-$HOME/.cache/pqc-bench}/ccache}"
  export CCACHE_BASEDIR="$here" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  # What ccache needs to cache sources compiled with a precompiled header (CMakeLists.txt's
  # PQC_PCH): the header's own macros and mtimes are not part of the hash.
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# -U: forget a previously found OpenSSL, so that a changed cache location is honoured
# (nghttp3 is not searched for: CMake takes NGHTTP3_ROOT's include/ and lib/ as they are).
cmake -S "$here" -B "$dir" -G Ninja -U "OPENSSL_*" -DOPENSSL_ROOT_DIR="$PQC_OPENSSL_ROOT" \
  -DNGHTTP3_ROOT="$PQC_NGHTTP3_ROOT" -DPQC_WEB_MODULES="$PQC_WEB_MODULES" \
  -DPQC_NGINX="$PQC_NGINX" -DPQC_HAPROXY="$PQC_HAPROXY" \
  -DPQC_H2LOAD="$PQC_H2LOAD" -DPQC_BROWSER_MODULES="$PQC_BROWSER_MODULES" \
  -DPQC_PEERS_COMMAND="$PQC_PEERS_COMMAND" -DPQC_TESTS="$tests" "${launcher[@]}" "${flags[@]}" \
  >/dev/null
((${#extra[@]})) && targets=("${extra[@]}")
target_args=()
((${#targets[@]})) && target_args=(--target "${targets[@]}")
# Under PQC_PREBUILT=1 (scripts/test.sh, for its tests) the tree must be built already: a test
# that compiles the tool would make its timeout depend on the compiler cache (see setup.sh's
# must_build). What is left may take seconds (CMake re-checking its globs, one file a test
# itself changed), never the minutes of a tree: the build is stopped after
# $PQC_PREBUILT_SECONDS (60) and fails. (A dry run cannot tell: CMake's glob check makes
# Ninja's plan end at "Re-running CMake".)
# The compiler cache is off for it, so that what a test compiles costs the same with a warm cache
# (CI) as with an empty one (a fresh machine): a step that recompiles part of the tool fails
# here too, not only on the first machine without the cache (openssl-versions.sh did, for a
# flag that changed with how OpenSSL was named).
limit=()
if [ "${PQC_PREBUILT:-}" = 1 ]; then
  limit=(timeout "${PQC_PREBUILT_SECONDS:-60}")
  export CCACHE_DISABLE=1
fi
rc=0
# (the build's output to stderr: stdout carries only the tree, which callers take as the last
# line, and a compiler's error must not vanish with the progress lines)
"${limit[@]}" cmake --build "$dir" -j"$(nproc)" "${target_args[@]}" >&2 || rc=$?
if [ "$rc" -eq 124 ] && ((${#limit[@]})); then
  echo "build.sh: PQC_PREBUILT=1 (set by scripts/test.sh for its tests), but $dir was not \
built: still compiling after ${PQC_PREBUILT_SECONDS:-60} s, stopped. A test may not compile a \
tree inside its timeout: build it in test.sh's prepare step, or run this command outside the \
tests." >&2
  exit 1
fi
((rc == 0)) || exit "$rc"
echo "$dir"
