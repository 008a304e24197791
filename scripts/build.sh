#!/usr/bin/env bash
# build.sh [release|asan] — configures and builds pqc-bench against the cached OpenSSL 3.5
# (runs setup.sh first, which is a few seconds once everything is cached).
# Build trees: build/ (release) and build-asan/ (AddressSanitizer + UBSan, Debug).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-release}
envfile=$("$here/scripts/setup.sh" | tail -n 1)
# shellcheck disable=SC1090
. "$envfile"
case "$kind" in
  release) dir="$here/build"; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan) dir="$here/build-asan"; flags=(-DCMAKE_BUILD_TYPE=Debug -DPQC_SANITIZE=ON) ;;
  *) echo "build.sh: unknown build '$kind' (valid: release, asan)" >&2; exit 2 ;;
esac
# -U: forget a previously found OpenSSL, so that a changed cache location is honoured.
cmake -S "$here" -B "$dir" -G Ninja -U "OPENSSL_*" -DOPENSSL_ROOT_DIR="$PQC_OPENSSL_ROOT" \
  -DPQC_WEB_MODULES="$PQC_WEB_MODULES" -DPQC_NGINX="$PQC_NGINX" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
echo "$dir"
