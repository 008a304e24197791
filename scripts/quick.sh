#!/usr/bin/env bash
# quick.sh — the README's main command: set-up (idempotent), build, then a short real study on
# the embedded target: what this OpenSSL supports (probe), what certificates cost on the wire
# (certs), and fresh vs resumed handshakes with X25519 vs X25519MLKEM768 (serve + load).
# Results (JSON per arm and per-connection CSV) go to results/quick-<UTC time>/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$here/scripts/build.sh" release | tail -n 1)
bin="$dir/src/pqc-bench"
out="$here/results/quick-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
rate=${QUICK_RATE:-200}
duration=${QUICK_DURATION:-10s}

echo
echo "== pqc-bench probe =="
"$bin" probe | tee "$out/probe.txt"
for chain in ecdsa-p256 ml-dsa-65 ml-dsa-87/ml-dsa-87/ml-dsa-87; do
  echo
  "$bin" certs --sig "$chain" | tee -a "$out/certs.txt"
done

echo
echo "== fresh and resumed handshakes, classical vs hybrid key exchange (ecdsa-p256 certificate) =="
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  server_pid=
}
trap cleanup EXIT
"$bin" serve --listen 127.0.0.1:0 --cert ecdsa-p256 --threads 1 --write-ca "$out/ca.pem" \
  --duration 10m >"$out/serve.txt" 2>&1 &
server_pid=$!
line=
for _ in $(seq 100); do
  line=$(head -n 1 "$out/serve.txt" 2>/dev/null || true)
  case "$line" in listening\ on\ *) break ;; esac
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
case "$line" in
  listening\ on\ *) echo "$line" ;;
  *) echo "quick.sh: the embedded server did not start:" >&2; cat "$out/serve.txt" >&2; exit 3 ;;
esac
target=$(echo "$line" | awk '{print $3}')

# Arms in an interleaved order (two rounds), so that drift of the machine hits all arms alike.
for round in 1 2; do
  for arm in fresh:X25519 fresh:X25519MLKEM768 resume:X25519 resume:X25519MLKEM768; do
    mode=${arm%%:*}; group=${arm#*:}
    echo "-- round $round: $mode $group"
    "$bin" load --target "$target" --mode "$mode" --groups "$group" --rate "$rate" \
      --duration "$duration" --warmup 2s --ca "$out/ca.pem" \
      --json "$out/$mode-$group-$round.json" --samples "$out/$mode-$group-$round.csv" \
      >"$out/$mode-$group-$round.txt" || true  # an invalid run is reported in the table
    tail -n 1 "$out/$mode-$group-$round.txt"
  done
done
cleanup
echo; echo "embedded server:"; tail -n +2 "$out/serve.txt"

python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(os.path.join(out, "*-*-[12].json"))):
    j = json.load(open(path))
    key = (j["arm"]["mode"], j["arm"]["groups"][0])
    rows.setdefault(key, []).append(j)
print()
print("handshake (TLS only) and total (intended start to last byte), µs; both rounds shown")
print(f"{'mode':7} {'group':15} {'conns':>6} {'hs p50':>9} {'hs p99':>9} {'total p50':>10} "
      f"{'total p99':>10} {'hs bytes':>9}  valid")
for (mode, group), runs in sorted(rows.items()):
    for j in runs:
        hs, tot = j["phases"]["handshake"], j["phases"]["total"]
        b = j["bytes"]["handshake_written"]["mean"] + j["bytes"]["handshake_read"]["mean"]
        print(f"{mode:7} {group:15} {j['connections']:6} {hs['p50']:9.1f} {hs['p99']:9.1f} "
              f"{tot['p50']:10.1f} {tot['p99']:10.1f} {b:9.0f}  "
              f"{'yes' if j['valid'] else 'NO: ' + '; '.join(j['invalid_reasons'])}")
def p50(mode, group):
    v = [j["phases"]["handshake"]["p50"] for j in rows.get((mode, group), [])]
    return statistics.median(v) if v else float("nan")
for mode in ("fresh", "resume"):
    d = p50(mode, "X25519MLKEM768") - p50(mode, "X25519")
    print(f"{mode}: X25519MLKEM768 - X25519 handshake p50 = {d:+.1f} µs (median over rounds)")
bad = sum(1 for runs in rows.values() for j in runs if not j["valid"])
if bad:
    print(f"{bad} run(s) failed their own checks (see 'valid'); their numbers are not to be trusted")
PY
echo
echo "results: $out"
