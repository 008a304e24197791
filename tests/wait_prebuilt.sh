#!/bin/sh
# wait_prebuilt.sh TREE... — the prebuilt_variant and prebuilt_fuzz tests, CTest fixtures the README
# and openssl_variants tests require: under test.sh, whose release stage builds the OpenSSL 3.6 variant's
# pqc-bench and the fuzz tree behind its tests (scripts/lib/build_behind.sh) and names the
# directory of their status files in PQC_BUILT_BEHIND, it waits until each TREE is built and
# fails, with the end of its build's log, if one failed. Without PQC_BUILT_BEHIND (a plain
# ctest) it passes at once: those tests then build what they drive themselves.
[ -n "${PQC_BUILT_BEHIND:-}" ] || exit 0
waited=0
for tree in "$@"; do
  while [ ! -e "$PQC_BUILT_BEHIND/$tree.status" ]; do
    if [ ! -d "$PQC_BUILT_BEHIND" ]; then
      echo "wait_prebuilt.sh: $PQC_BUILT_BEHIND is gone (test.sh stopped?)" >&2
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  read -r status seconds <"$PQC_BUILT_BEHIND/$tree.status"
  if [ "$status" != 0 ]; then
    echo "wait_prebuilt.sh: the $tree tree's build failed (exit $status); its log ends:" >&2
    tail -n 40 "$PQC_BUILT_BEHIND/$tree.log" >&2
    exit 1
  fi
  echo "$tree: built behind the tests in $seconds s"
done
echo "waited $waited s"
