#!/usr/bin/env bash
# openssl-versions.sh [VARIANT_A VARIANT_B] [RUN ARGS...] — the quick study on two OpenSSL
# builds, compared: by default OpenSSL 3.5 (the default build) and 3.6 (Debian unstable's).
# A variant is any PQC_OPENSSL value (a version prefix, a source tree, an install prefix;
# see scripts/lib/openssl_variant.sh); RUN ARGS go to both runs (e.g. --full, or
# --set duration=5s).
#   1. builds pqc-bench against each (PQC_OPENSSL=VARIANT scripts/build.sh release pqc-bench:
#      seconds once both are cached);
#   2. with each build: `run scenarios/quick.toml` into results/ (or --results DIR), and the
#      build's `probe --json` saved next to its run as probe.json;
#   3. `compare` of the two probes (which algorithms changed at which layer, the builds'
#      facts) and of the two runs (every arm's phases, B's difference from A with intervals).
# The runs are one after the other, not interleaved: a difference smaller than the drift of
# this machine between two runs is not a difference between the builds (run it twice).
# Exit status: the first failing step's (a run's 1 when a trial was invalid, compare's 2 when
# the runs share no arm), else 0.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

variants=()
while (($# > 0)) && [[ $1 != -* ]] && ((${#variants[@]} < 2)); do
  variants+=("$1")
  shift
done
if ((${#variants[@]} == 0)); then
  variants=(3.5 3.6)
elif ((${#variants[@]} != 2)); then
  echo "openssl-versions.sh: give two variants (e.g. 3.5 3.6, or ./openssl-before ./openssl-after) or none" >&2
  exit 2
fi
run_args=("$@")
# A path variant is the caller's: made absolute before the script moves to the checkout.
for i in 0 1; do
  if [[ ${variants[i]} == */* && -d ${variants[i]} ]]; then variants[i]=$(cd "${variants[i]}" && pwd); fi
done

# The results root the runs write into: run's default, unless the arguments name another.
root=results
for ((i = 0; i < ${#run_args[@]}; i++)); do
  case ${run_args[i]} in
    --results) root=${run_args[i + 1]:-results} ;;
    --results=*) root=${run_args[i]#--results=} ;;
  esac
done

cd "$here"
bins=()
for v in "${variants[@]}"; do
  echo "== building pqc-bench against OpenSSL $v ==" >&2
  dir=$(PQC_OPENSSL=$v "$here/scripts/build.sh" release pqc-bench | tail -n 1)
  bins+=("$dir/src/pqc-bench")
done

runs=()
for i in 0 1; do
  echo
  echo "== OpenSSL ${variants[i]}: pqc-bench run scenarios/quick.toml =="
  mkdir -p "$root"
  before=$(ls -d "$root"/*/ 2>/dev/null || true)
  "${bins[i]}" run scenarios/quick.toml "${run_args[@]}"
  made=$(comm -13 <(echo "$before") <(ls -d "$root"/*/ 2>/dev/null))
  if [ "$(echo "$made" | grep -c .)" != 1 ]; then
    echo "openssl-versions.sh: expected one new run directory under $root/, found: ${made:-none}" >&2
    exit 3
  fi
  runs+=("${made%/}")
  "${bins[i]}" probe --json >"${runs[i]}/probe.json"
done

echo
echo "== probe: OpenSSL ${variants[0]} vs ${variants[1]} (pqc-bench compare of the two probe.json) =="
"${bins[0]}" compare "${runs[0]}/probe.json" "${runs[1]}/probe.json"
echo
echo "== quick study: OpenSSL ${variants[1]} against ${variants[0]} (pqc-bench compare of the two runs) =="
"${bins[0]}" compare "${runs[0]}" "${runs[1]}"
