#!/usr/bin/env bash
# build.sh [release|asan|tsan|fuzz] — configures and builds pqc-bench against the cached
# OpenSSL 3.5 (runs setup.sh first, which is a few seconds once everything is cached).
# Build trees: build/ (release), build-asan/ (AddressSanitizer + UBSan, Debug), build-tsan/
# (ThreadSanitizer, gcc, RelWithDebInfo: only the binary and the tests that run threads, which
# is what test.sh's TSan stage runs) and build-fuzz/ (clang, the libFuzzer targets of fuzz/
# only, with ASan + UBSan).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-release}
envfile=$("$here/scripts/setup.sh" | tail -n 1)
# shellcheck disable=SC1090
. "$envfile"
targets=()  # empty: everything
case "$kind" in
  release) dir="$here/build"; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan) dir="$here/build-asan"; flags=(-DCMAKE_BUILD_TYPE=Debug -DPQC_SANITIZE=ON) ;;
  tsan)
    dir="$here/build-tsan"; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPQC_TSAN=ON)
    # Keep in step with the labels test.sh's TSan stage selects.
    targets=(pqc-bench net_test server_test load_test link_test run_test target_test) ;;
  fuzz)
    dir="$here/build-fuzz"
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPQC_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++)
    targets=(fuzzers) ;;
  *) echo "build.sh: unknown build '$kind' (valid: release, asan, tsan, fuzz)" >&2; exit 2 ;;
esac
# -U: forget a previously found OpenSSL, so that a changed cache location is honoured.
cmake -S "$here" -B "$dir" -G Ninja -U "OPENSSL_*" -DOPENSSL_ROOT_DIR="$PQC_OPENSSL_ROOT" \
  -DPQC_WEB_MODULES="$PQC_WEB_MODULES" -DPQC_NGINX="$PQC_NGINX" "${flags[@]}" >/dev/null
if ((${#targets[@]})); then
  cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
else
  cmake --build "$dir" -j"$(nproc)"
fi
echo "$dir"
