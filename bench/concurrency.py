#!/usr/bin/env python3
"""concurrency — 10,000 concurrent keep-alive connections on ONE client thread, and the
memory each costs (issue: serve/load, performance).

The embedded server (2 threads) serves; `pqc-bench load --threads 1 --mode reuse` opens
connections at --rate for --seconds, each making --requests requests --interval apart, so
that every connection is still open when the last one arrives. The client's resident memory
is sampled from /proc while it runs; the peak number of simultaneously open connections comes
from the per-connection CSV (the tool's own timestamps), and memory per connection is
(peak RSS - RSS before the first connection) / peak open connections.

usage: bench/concurrency.py [--build DIR] [--rate 700] [--seconds 15] [--requests 20]
"""
import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def rss_kib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


def peak_open(samples_csv):
    events = []
    for row in csv.DictReader(open(samples_csv)):
        if row["tcp_established_us"] and row["closed_us"]:
            events.append((float(row["tcp_established_us"]), 1))
            events.append((float(row["closed_us"]), -1))
    events.sort()
    open_now = peak = 0
    for _, delta in events:
        open_now += delta
        peak = max(peak, open_now)
    return peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rate", type=int, default=700)
    ap.add_argument("--seconds", type=int, default=15)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--interval", default="1s")
    args = ap.parse_args()
    binary = os.path.join(args.build, "src", "pqc-bench")
    work = tempfile.mkdtemp(prefix="pqc-bench-concurrency-")
    server = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--threads", "2",
                               "--cert", "ecdsa-p256", "--groups", "X25519"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = server.stdout.readline()
    if "listening on" not in line:
        sys.exit("server did not start: " + line)
    target = line.split()[2]
    js, samples = os.path.join(work, "load.json"), os.path.join(work, "samples.csv")
    cmd = [binary, "load", "--target", target, "--threads", "1", "--mode", "reuse",
           "--requests", str(args.requests), "--request-interval", args.interval,
           "--rate", str(args.rate), "--duration", f"{args.seconds}s", "--warmup", "0s",
           "--groups", "X25519", "--max-inflight", "15000", "--timeout", "30s",
           "--json", js, "--samples", samples]
    load = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    time.sleep(0.05)
    baseline = rss_kib(load.pid)
    peak_rss = baseline or 0
    while load.poll() is None:
        r = rss_kib(load.pid)
        if r:
            peak_rss = max(peak_rss, r)
        time.sleep(0.2)
    server.send_signal(signal.SIGTERM)
    server_out = server.communicate(timeout=30)[0]
    j = json.load(open(js))
    peak = peak_open(samples)
    print(f"connections: {j['connections']}, errors: {j['errors']['total']} "
          f"{j['errors']['by_class']}, client threads: 1")
    print(f"peak simultaneously open connections: {peak}")
    print(f"client RSS: {baseline} KiB before, {peak_rss} KiB at peak -> "
          f"{(peak_rss - baseline) / max(peak, 1):.1f} KiB per open connection")
    print(f"client CPU: {j['loadgen']['cpu_us_per_connection']:.1f} µs per connection, "
          f"lag p99 {j['loadgen']['lag_p99_us']:.1f} µs, valid: {j['valid']} "
          f"{j['invalid_reasons']}")
    print("server:", server_out.strip().splitlines()[-1] if server_out.strip() else "")
    print(f"raw: {work}")


if __name__ == "__main__":
    main()
