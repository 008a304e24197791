#!/usr/bin/env python3
"""link_accuracy — how faithful the emulated WAN (`pqc-bench link`) is (issue: link).

1. TCP connect time p50 against the configured RTT at 1, 10, 70 and 148 ms: `pqc-bench load
   --mode fresh` runs in the client namespace against `serve` in the server namespace; the
   target is |p50 - RTT| <= max(2 % of RTT, 0.2 ms). It is judged with `--busy-poll` (the
   client polls, so its own wake-up on the SYN-ACK is not counted as connect time); the
   sleeping client's p50 is printed beside it. The mover's own release error (how late it wrote
   packets, p50/p99/max) comes from `link --stats-json`.
2. Throughput with --rate 1gbit (target: goodput >= 90 % of the rate; TCP/IP headers alone
   take 3.5 % of a 1500-byte packet), measured two ways: one plain TCP transfer of <size>
   (bench/tcp_bulk.py, sender started in the server namespace through $PQC_SERVER_NETNS) —
   the link itself, judged — and one HTTPS download of /payload/<size> with curl, which on a
   2-core machine also pays the encryption and decryption beside the mover.
3. The same transfers with no rate limit: the mover's ceiling in packets/s and Gbit/s (IP
   bytes both directions over the transfer time).
Throughput is measured with the mover on one thread (the default) and on two (--mover-threads).

Needs root. usage: bench/link_accuracy.py [--build DIR] [--rtts 1,10,70,148] [--seconds 5]
       [--rate 20] [--download 300M] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_link(binary, link_args, inner, tmp, tag):
    """Runs `pqc-bench link LINK_ARGS -- sh -c INNER`; returns (stdout, link stats)."""
    stats = os.path.join(tmp, f"{tag}-link.json")
    cmd = [binary, "link", *link_args, "--stats-json", stats, "--", "sh", "-c", inner]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"link_accuracy: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout, json.load(open(stats))


def connect_accuracy(binary, rtt_ms, seconds, rate, tmp):
    # One link, two clients in turn: busy-polling (judged) and sleeping (for comparison).
    outs = [os.path.join(tmp, f"load-{rtt_ms}-{kind}.json") for kind in ("poll", "sleep")]
    load = (f"{binary} load --target $PQC_TARGET --ca $PQC_CA --groups X25519 --mode fresh "
            f"--rate {rate} --duration {seconds}s --warmup 1s --max-lag-p99 10s")
    inner = (f"{load} --busy-poll --json {outs[0]} >/dev/null && "
             f"{load} --json {outs[1]} >/dev/null")
    _, stats = run_link(binary, ["--rtt", f"{rtt_ms}ms", "--server=--groups X25519"], inner,
                        tmp, f"rtt{rtt_ms}")
    poll, sleep = (json.load(open(o))["phases"]["connect"] for o in outs)
    p50_ms = poll["p50"] / 1000.0
    limit = max(0.02 * rtt_ms, 0.2)
    return {
        "rtt_ms": rtt_ms,
        "connections": poll["count"],
        "connect_p50_ms": round(p50_ms, 3),
        "connect_p99_ms": round(poll["p99"] / 1000.0, 3),
        "error_ms": round(p50_ms - rtt_ms, 3),
        "sleeping_client_connect_p50_ms": round(sleep["p50"] / 1000.0, 3),
        "limit_ms": limit,
        "pass": abs(p50_ms - rtt_ms) <= limit,
        "release_error_us": stats["release_error_us"],
    }


def transfer_result(size_b, seconds, stats):
    """One transfer's goodput and what the mover did meanwhile."""
    return {
        "bytes": size_b,
        "seconds": round(seconds, 3),
        "goodput_gbit": round(size_b * 8 / seconds / 1e9, 3),
        "mover_packets_per_s": round(stats["packets"] / seconds),
        "mover_gbit": round(stats["bytes"] * 8 / seconds / 1e9, 3),
        "dropped_queue": stats["dropped_queue"],
        "release_error_us": stats["release_error_us"],
    }


def download(binary, link_args, size, tmp, tag):
    url = f"https://localhost:8443/payload/{size}"
    inner = (f"curl -sS -o /dev/null --cacert $PQC_CA --connect-to localhost:8443:$PQC_TARGET "
             f"-w '%{{size_download}} %{{time_appconnect}} %{{time_total}}' {url}")
    out, stats = run_link(binary, link_args, inner, tmp, tag)
    size_b, t_tls, t_total = out.split()
    seconds = float(t_total) - float(t_tls)
    return transfer_result(int(size_b), seconds, stats)


def size_bytes(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def bulk_tcp(binary, link_args, size, tmp, tag):
    bulk = os.path.join(HERE, "tcp_bulk.py")
    inner = (f"nsenter --net=$PQC_SERVER_NETNS python3 {bulk} send 9000 {size_bytes(size)} & "
             f"python3 {bulk} recv $PQC_SERVER_IP 9000; wait")
    out, stats = run_link(binary, [*link_args, "--no-server"], inner, tmp, tag)
    size_b, seconds = out.split()
    seconds = float(seconds)
    return transfer_result(int(size_b), seconds, stats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rtts", default="1,10,70,148")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rate", type=int, default=20, help="fresh connections per second")
    ap.add_argument("--download", default="300M")
    ap.add_argument("--throughput-rtt", default="10ms")
    ap.add_argument("--json")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("link_accuracy: needs root (network namespaces and TUN devices)")
    binary = os.path.join(args.build, "src", "pqc-bench")
    report = {"connect": [], "throughput": {}}
    with tempfile.TemporaryDirectory(prefix="pqc-link-bench-") as tmp:
        for rtt in [float(x) for x in args.rtts.split(",")]:
            rtt = int(rtt) if rtt.is_integer() else rtt
            r = connect_accuracy(binary, rtt, args.seconds, args.rate, tmp)
            report["connect"].append(r)
            e = r["release_error_us"]
            print(f"rtt {rtt:>4} ms: connect p50 {r['connect_p50_ms']:.3f} ms "
                  f"(error {r['error_ms']:+.3f} ms, limit ±{r['limit_ms']:.2f}) "
                  f"{'PASS' if r['pass'] else 'FAIL'}; sleeping client "
                  f"{r['sleeping_client_connect_p50_ms']:.3f} ms; mover release error p50 "
                  f"{e['p50']:.1f} p99 {e['p99']:.1f} max {e['max']:.1f} us; "
                  f"n={r['connections']}", flush=True)
        for rate in ("1gbit", None):
            args_ = ["--rtt", args.throughput_rtt] + (["--rate", rate] if rate else [])
            r = bulk_tcp(binary, args_, args.download, tmp, f"tcp-{rate}")
            if rate:
                r["pass"] = r["goodput_gbit"] >= 0.9
            report["throughput"][f"tcp_{rate or 'unlimited'}"] = r
            print(f"plain TCP, {'rate ' + rate if rate else 'no rate limit'}, rtt "
                  f"{args.throughput_rtt}: goodput {r['goodput_gbit']:.3f} Gbit/s"
                  f"{(' (PASS' if r['pass'] else ' (FAIL') + ' >= 0.9)' if rate else ''}, "
                  f"{r['bytes']} B in {r['seconds']} s, queue drops {r['dropped_queue']}; "
                  f"mover {r['mover_packets_per_s']} packets/s, {r['mover_gbit']:.3f} Gbit/s; "
                  f"release error p99 {r['release_error_us']['p99']:.1f} us", flush=True)
        for threads in (1, 2):
            extra = ["--mover-threads", str(threads)]
            rated = download(binary, ["--rtt", args.throughput_rtt, "--rate", "1gbit", *extra],
                             args.download, tmp, f"rate-{threads}")
            rated["pass"] = rated["goodput_gbit"] >= 0.9
            report["throughput"][f"rate_1gbit_threads{threads}"] = rated
            print(f"rate 1gbit, rtt {args.throughput_rtt}, mover threads {threads}: goodput "
                  f"{rated['goodput_gbit']:.3f} Gbit/s ({'PASS' if rated['pass'] else 'FAIL'} "
                  f">= 0.9), {rated['bytes']} B in {rated['seconds']} s, queue drops "
                  f"{rated['dropped_queue']}", flush=True)
            free = download(binary, ["--rtt", args.throughput_rtt, *extra], args.download, tmp,
                            f"unlimited-{threads}")
            report["throughput"][f"unlimited_threads{threads}"] = free
            print(f"no rate limit, rtt {args.throughput_rtt}, mover threads {threads}: goodput "
                  f"{free['goodput_gbit']:.3f} Gbit/s; mover {free['mover_packets_per_s']} "
                  f"packets/s, {free['mover_gbit']:.3f} Gbit/s (IP bytes, both directions)",
                  flush=True)
    if args.json:
        json.dump(report, open(args.json, "w"), indent=2)
    ok = all(r["pass"] for r in report["connect"]) and report["throughput"]["tcp_1gbit"]["pass"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
