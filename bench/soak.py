#!/usr/bin/env python3
"""soak — long mixed load against one embedded server: does anything grow? (issue: hardening)

One `pqc-bench serve` (one thread, ecdsa-p256, tickets and cache on) stays up for the whole
soak. Against it, `pqc-bench load` runs back to back in 60-second chunks, each chunk a new
client process with the next arm of a rotation: fresh / resume / keep-alive reuse / a mix, with
X25519 and X25519MLKEM768, payloads /, /payload/10K and /payload/1M, and one chunk in eight
of garbage: connections that send random bytes instead of a ClientHello, or nothing at all
(half-open), which the server must time out. Every 5 s the server's resident memory (VmRSS),
open file descriptors and threads are sampled from /proc.

Verdict: after a warm-up (the first 20 % of the soak: session cache, ticket keys and buffer
pools fill), the RSS slope (least squares) must stay under 1 MiB per 10 minutes and the last
sample within 10 % of the warm-up's end; open fds, sampled between chunks, must return to the
baseline. Each chunk's connection and error counts are printed.

usage: bench/soak.py [--build DIR] [--minutes 30] [--rate 150] [--json FILE]
"""
import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ROTATION = [
    ("fresh", "X25519", "/"),
    ("resume", "X25519MLKEM768", "/"),
    ("reuse", "X25519MLKEM768", "/payload/10K"),
    ("mix", "X25519MLKEM768", "/"),
    ("fresh", "X25519MLKEM768", "/payload/1M"),
    ("resume", "X25519", "/payload/10K"),
    ("reuse", "X25519", "/"),
    ("garbage", "", ""),
]


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "Threads"):
                out[k] = int(v.split()[0])
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


def abuse(host, port, seconds, rate):
    """Garbage instead of a ClientHello, and silent half-open connections."""
    rng = random.Random(7)
    end = time.monotonic() + seconds
    held = []
    sent = 0
    while time.monotonic() < end:
        try:
            s = socket.create_connection((host, port), timeout=2)
            if rng.random() < 0.5:
                s.sendall(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 600))))
                s.close()
            else:
                held.append(s)  # silent: the server's handshake timeout must close it
            sent += 1
        except OSError:
            pass
        held = held[-200:]  # bounded on our side too
        time.sleep(1.0 / rate)
    for s in held:
        s.close()
    return {"connections": sent, "errors": 0}


def chunk(binary, addr, ca, mode, group, path, seconds, rate, workdir):
    out = os.path.join(workdir, "chunk.json")
    cmd = [binary, "load", "--target", addr, "--ca", ca, "--groups", group, "--rate", str(rate),
           "--duration", f"{seconds}s", "--warmup", "1s", "--path", path, "--json", out,
           "--max-lag-p99", "100s", "--max-error-rate", "100%"]
    if mode == "mix":
        cmd += ["--mode", "fresh:30,resume:50,reuse:20"]
    else:
        cmd += ["--mode", mode]
    if mode in ("reuse", "mix"):
        cmd += ["--requests", "5", "--request-interval", "100ms"]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=seconds * 4)
    j = json.load(open(out))
    return {"connections": j["connections"], "errors": j["errors"]["total"],
            "by_class": j["errors"]["by_class"]}


def slope_per_10min(samples):
    n = len(samples)
    if n < 3:
        return 0.0
    xs = [t for t, _ in samples]
    ys = [v for _, v in samples]
    mx, my = sum(xs) / n, sum(ys) / n
    den = sum((x - mx) ** 2 for x in xs)
    return 600 * sum((x - mx) * (y - my) for x, y in samples) / den if den else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--rate", type=float, default=150)
    ap.add_argument("--json")
    args = ap.parse_args()
    binary = os.path.join(args.build, "src", "pqc-bench")
    total = args.minutes * 60
    with tempfile.TemporaryDirectory(prefix="pqc-soak-") as work:
        ca = os.path.join(work, "ca.pem")
        server = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--cert",
                                   "ecdsa-p256", "--threads", "1", "--write-ca", ca],
                                  stdout=subprocess.PIPE, text=True)
        m = re.match(r"listening on (\S+)", server.stdout.readline())
        if not m:
            sys.exit("serve did not start")
        addr = m.group(1)
        host, port = addr.rsplit(":", 1)
        samples = []  # (t, status)
        fds_between = []
        stop = threading.Event()
        t0 = time.monotonic()

        def sampler():
            while not stop.is_set():
                samples.append((time.monotonic() - t0, proc_status(server.pid)))
                stop.wait(5)

        th = threading.Thread(target=sampler, daemon=True)
        th.start()
        base = proc_status(server.pid)
        chunks = []
        i = 0
        while time.monotonic() - t0 < total:
            mode, group, path = ROTATION[i % len(ROTATION)]
            seconds = int(min(60, max(5, total - (time.monotonic() - t0))))
            if mode == "garbage":
                r = abuse(host, int(port), seconds, 50)
            else:
                r = chunk(binary, addr, ca, mode, group, path, seconds, args.rate, work)
            time.sleep(12)  # past the server's idle/handshake timeouts
            st = proc_status(server.pid)
            fds_between.append(st["fds"])
            r.update(mode=mode, group=group, path=path, rss_kib=st["VmRSS"], fds=st["fds"])
            chunks.append(r)
            print(f"[{(time.monotonic() - t0) / 60:5.1f} min] {mode:7} {group:15} {path:13} "
                  f"conns {r['connections']:6} errors {r['errors']:4}  server RSS "
                  f"{st['VmRSS'] / 1024:6.1f} MiB fds {st['fds']:3} threads {st['Threads']}"
                  + (f"  errors by class {r['by_class']}" if r.get("by_class") else ""),
                  flush=True)
            i += 1
        stop.set()
        th.join()
        server.terminate()
        server.wait(timeout=30)
    warm = 0.2 * total
    rss = [(t, s["VmRSS"] / 1024) for t, s in samples if t >= warm]
    slope = slope_per_10min(rss)
    at_warm = rss[0][1] if rss else 0
    last = rss[-1][1] if rss else 0
    fd_ok = all(f <= base["fds"] for f in fds_between)
    ok = slope < 1.0 and last <= at_warm * 1.10 and fd_ok
    print(f"\nsoak {args.minutes:g} min: server RSS {base['VmRSS'] / 1024:.1f} MiB at start, "
          f"{at_warm:.1f} after warm-up, {last:.1f} at the end; slope {slope:+.2f} MiB/10 min "
          f"after warm-up; fds between chunks {min(fds_between)}..{max(fds_between)} "
          f"(baseline {base['fds']}) -> {'PASS' if ok else 'FAIL'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"minutes": args.minutes, "chunks": chunks, "samples": samples,
                       "slope_mib_per_10min": slope, "pass": ok}, f, indent=1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
