#!/usr/bin/env bash
# openssl-versions.sh [VARIANT_A VARIANT_B] [RUN ARGS...] — the quick study on two OpenSSL
# builds, in one run: by default OpenSSL 3.5 (the default build) and 3.6 (Debian unstable's).
# A variant is any PQC_OPENSSL value (a version prefix, a source tree, an install prefix;
# see scripts/lib/openssl_variant.sh); RUN ARGS go to the run (e.g. --full, or
# --set duration=5s).
#   1. builds pqc-bench against each (PQC_OPENSSL=VARIANT scripts/build.sh --core release pqc-bench:
#      seconds once both are cached);
#   2. one `run scenarios/quick.toml --build openssl-A=… --build openssl-B=…` into results/
#      (or --results DIR): the builds are a factor of the study, every arm once per build,
#      interleaved block by block, each build's trials measured by that build (its OpenSSL,
#      client and server); each build's `probe --json` saved in the run as probe-NAME.json;
#   3. `compare` of the two probes (which algorithms changed at which layer, the builds'
#      facts) and `compare RUN --factor build`: B's difference from A per arm and phase, with
#      intervals paired by block — the builds shared every block of time, so the machine's
#      drift between runs is not in the difference.
# Exit status: the first failing step's (the run's 1 when it measured nothing valid, compare's
# 2 on a usage error), else 0.
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
  dir=$(PQC_OPENSSL=$v "$here/scripts/build.sh" --core release pqc-bench | tail -n 1)
  bins+=("$dir/src/pqc-bench")
done

# The builds' names in the study: "openssl-" and the variant, in characters a build name takes.
names=()
for i in 0 1; do
  name="openssl-$(basename "${variants[i]}" | tr -c 'A-Za-z0-9._\n-' '-')"
  [ "$i" = 1 ] && [ "$name" = "${names[0]}" ] && name="$name-b"
  names+=("$name")
done

echo
echo "== OpenSSL ${variants[0]} and ${variants[1]}: pqc-bench run scenarios/quick.toml --build ${names[0]}=… --build ${names[1]}=… =="
mkdir -p "$root"
before=$(ls -d "$root"/*/ 2>/dev/null || true)
"${bins[0]}" run scenarios/quick.toml --build "${names[0]}=${bins[0]}" \
  --build "${names[1]}=${bins[1]}" "${run_args[@]}"
made=$(comm -13 <(echo "$before") <(ls -d "$root"/*/ 2>/dev/null))
if [ "$(echo "$made" | grep -c .)" != 1 ]; then
  echo "openssl-versions.sh: expected one new run directory under $root/, found: ${made:-none}" >&2
  exit 3
fi
run=${made%/}
for i in 0 1; do
  "${bins[i]}" probe --json >"$run/probe-${names[i]}.json"
done

echo
echo "== probe: OpenSSL ${variants[0]} vs ${variants[1]} (pqc-bench compare of the two builds' probe --json) =="
"${bins[0]}" compare "$run/probe-${names[0]}.json" "$run/probe-${names[1]}.json"
echo
echo "== quick study: OpenSSL ${variants[1]} against ${variants[0]} (pqc-bench compare $run --factor build) =="
"${bins[0]}" compare "$run" --factor build
