#!/usr/bin/env python3
"""crosscheck — `pqc-bench load --mode fresh` against an independent client, `openssl s_time
-new`, on the same server arm over loopback: mean time of one connection on each side.

Like for like (see apps/s_time.c of the cached OpenSSL): s_time -new -www / makes one
connection at a time: TCP connect, full TLS 1.3 handshake, "GET / HTTP/1.0", read until the
server closes, close (SO_LINGER 0). Groups from an OPENSSL_CONF system_default section (one
group, so one key share, as load's --groups); -CAfile so that it verifies the chain's
signature as load does with --ca. s_time's time per connection = the slope of its wall time
(spawn → exit) over connections between a 1-second and a longer run (its own "real seconds"
are whole seconds, and each run pays ~0.3 s once). load runs with one connection in flight at most
(`--closed-loop 1`: the next starts when the previous ended, as in s_time's loop). Its mean is actual start → last response byte per
measured connection, from --samples.

Servers: nginx (`pqc-bench serve --nginx`, one worker) and the embedded server (`pqc-bench
serve`, one thread); groups X25519 and X25519MLKEM768; ecdsa-p256 certificate. Rounds are
interleaved (s_time, load, next cell ...) and the median ratio per cell is reported.

With --rtts 0,70 the same runs also at 70 ms of emulated RTT (needs root): each side runs
inside `pqc-bench link --rtt 70ms`, the server (`serve [--nginx]`) in the server namespace,
the client in the client namespace; s_time's wall time is taken by the shell around it.

usage: bench/crosscheck.py [--build DIR] [--seconds N] [--rounds K] [--rate R] [--rtts 0,70]
"""
import argparse
import csv
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GROUPS = ["X25519", "X25519MLKEM768"]


def cache_env():
    env_sh = subprocess.run([os.path.join(ROOT, "scripts", "setup.sh")], capture_output=True,
                            text=True, check=True).stdout.strip().splitlines()[-1]
    out = {}
    for line in open(env_sh):
        k, _, v = line.strip().partition("=")
        out[k] = v
    return out


class Server:
    """`pqc-bench serve [--nginx]` on a free port; stops on SIGTERM."""

    def __init__(self, binary, kind, group, workdir):
        self.ca = os.path.join(workdir, f"ca-{kind}-{group}.pem")
        cmd = [binary, "serve", "--listen", "127.0.0.1:0", "--cert", "ecdsa-p256", "--groups",
               group, "--threads", "1", "--write-ca", self.ca]
        if kind == "nginx":
            cmd += ["--nginx", "--work-dir", os.path.join(workdir, f"nginx-{group}")]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"listening on (\S+)", line)
        if not m:
            self.proc.kill()
            sys.exit(f"{kind} did not start: {line}")
        self.addr = m.group(1)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=15)


def s_time_conf(group, workdir):
    conf = os.path.join(workdir, f"s_time-{group}.cnf")
    with open(conf, "w") as f:
        f.write("openssl_conf = init\n[init]\nssl_conf = ssl\n[ssl]\nsystem_default = sd\n"
                f"[sd]\nGroups = {group}\nMinProtocol = TLSv1.3\n")
    return conf


def s_time_count(out):
    m = re.search(r"(\d+) connections in [\d.]+s;", out)
    if not m or "ERROR" in out:
        sys.exit("s_time failed:\n" + out)
    return int(m.group(1))


def load_mean(samples):
    """(connections, mean start → last byte µs, mean cycle µs): the cycle is the span from the
    first measured start to the last measured end over the connections, the closed loop's
    like-for-like with s_time's slope (it also holds teardown and the gap to the next)."""
    times = []
    first, last = None, None
    with open(samples) as f:
        for row in csv.DictReader(f):
            if row["measured"] not in ("1", "true") or row["error"] not in ("", "none"):
                continue
            start, end = float(row["actual_start_us"]), float(row["req_last_byte_us"])
            times.append(end - start)
            first = start if first is None else min(first, start)
            last = end if last is None else max(last, end)
    return len(times), statistics.fmean(times), (last - first) / len(times)


def slope(short, long):
    """µs per connection from two s_time runs (n, wall s) of different lengths: the
    difference cancels what every run pays once (start-up, loading the CA, the exit), which
    is about 0.3 s here and would add ~10 % to a 3-second run's wall / n."""
    (n1, w1), (n2, w2) = short, long
    if n2 <= n1:
        sys.exit(f"s_time: the longer run made no more connections ({n1} vs {n2})")
    return n2, 1e6 * (w2 - w1) / (n2 - n1)


def over_link(binary, openssl, kind, group, rtt_ms, seconds, rate, workdir):
    """Both sides at an emulated RTT: one `pqc-bench link` run each (a fresh server)."""
    conf = s_time_conf(group, workdir)
    server = f"--cert ecdsa-p256 --groups {group} --threads 1"
    if kind == "nginx":
        server += " --nginx"
    base = [binary, "link", "--rtt", f"{rtt_ms}ms", f"--server={server}", "--"]
    runs = []
    for t in (1, seconds):
        inner = (f"t0=$(date +%s%N); OPENSSL_CONF={conf} {openssl} s_time -connect $PQC_TARGET "
                 f"-new -www / -CAfile $PQC_CA -time {t}; t1=$(date +%s%N); "
                 f"echo wall_ns=$((t1 - t0))")
        p = subprocess.run(base + ["sh", "-c", inner], capture_output=True, text=True,
                           timeout=600)
        wall = int(re.search(r"wall_ns=(\d+)", p.stdout).group(1)) / 1e9
        runs.append((s_time_count(p.stdout), wall))
    n_st, us_st = slope(*runs)
    samples = os.path.join(workdir, f"load-{kind}-{group}-{rtt_ms}.csv")
    inner = (f"{binary} load --target $PQC_TARGET --ca $PQC_CA --mode fresh "
             f"--closed-loop 1 --duration {seconds}s --warmup 0.5s --groups {group} "
             f"--max-lag-p99 100s --samples {samples} >/dev/null 2>&1")
    subprocess.run(base + ["sh", "-c", inner], capture_output=True, text=True, timeout=600)
    n_ld, us_ld, cycle = load_mean(samples)
    return n_st, us_st, n_ld, us_ld, cycle


def run_s_time(openssl, addr, group, ca, seconds, workdir):
    conf = s_time_conf(group, workdir)
    env = dict(os.environ, OPENSSL_CONF=conf)
    runs = []
    for t in (1, seconds):
        t0 = time.monotonic()
        out = subprocess.run([openssl, "s_time", "-connect", addr, "-new", "-www", "/",
                              "-CAfile", ca, "-time", str(t)], env=env, capture_output=True,
                             text=True).stdout
        runs.append((s_time_count(out), time.monotonic() - t0))
    return slope(*runs)


def run_load(binary, addr, group, ca, seconds, rate, workdir):
    samples = os.path.join(workdir, f"load-{group}.csv")
    subprocess.run([binary, "load", "--target", addr, "--mode", "fresh", "--closed-loop", "1",
                    "--duration", f"{seconds}s", "--warmup", "0.5s", "--groups", group, "--ca",
                    ca, "--samples", samples], stdout=subprocess.DEVNULL,
                   check=False)
    return load_mean(samples)


def measure_cell(binary, openssl, rtt, kind, group, args, work):
    if rtt > 0:
        return over_link(binary, openssl, kind, group, rtt, args.seconds, args.rate, work)
    srv = Server(binary, kind, group, work)
    try:
        n_st, us_st = run_s_time(openssl, srv.addr, group, srv.ca, args.seconds, work)
        n_ld, us_ld, cycle = run_load(binary, srv.addr, group, srv.ca, args.seconds, args.rate,
                                      work)
    finally:
        srv.stop()
    return n_st, us_st, n_ld, us_ld, cycle


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rate", type=float, default=2000)
    ap.add_argument("--rtts", default="0", help="comma-separated ms; 0 = loopback")
    args = ap.parse_args()
    rtts = [int(x) for x in args.rtts.split(",")]
    env = cache_env()
    openssl = os.path.join(env["PQC_OPENSSL_ROOT"], "bin", "openssl")
    binary = os.path.join(args.build, "src", "pqc-bench")
    rows = {}
    cells = [(rtt, kind, group) for rtt in rtts for kind in ("nginx", "embedded")
             for group in GROUPS]
    with tempfile.TemporaryDirectory(prefix="pqc-crosscheck-") as work:
        for rnd in range(args.rounds):
            for rtt, kind, group in cells:
                n_st, us_st, n_ld, us_ld, cycle = measure_cell(binary, openssl, rtt, kind, group,
                                                               args, work)
                rows.setdefault((rtt, kind, group), []).append((n_st, us_st, n_ld, us_ld, cycle))
                print(f"round {rnd + 1}: rtt {rtt:3} ms {kind:8} {group:15} "
                      f"s_time {us_st:9.1f} us ({n_st})  load {us_ld:9.1f} us, cycle "
                      f"{cycle:9.1f} us ({n_ld})  load/s_time {us_ld / us_st:5.3f}, cycle "
                      f"{cycle / us_st:5.3f}", flush=True)
    print(f"\n{'rtt':>4} {'server':9} {'group':15} {'s_time µs':>10} {'load µs':>10} {'ratio':>6} "
          f"{'cycle µs':>10} {'ratio':>6} (medians of {args.rounds} rounds, {args.seconds} s "
          f"per side; s_time: slope between a 1 s and a {args.seconds} s run)")
    for (rtt, kind, group), rs in rows.items():
        st = statistics.median(r[1] for r in rs)
        ld = statistics.median(r[3] for r in rs)
        ratio = statistics.median(r[3] / r[1] for r in rs)
        cy = statistics.median(r[4] for r in rs)
        cratio = statistics.median(r[4] / r[1] for r in rs)
        print(f"{rtt:4} {kind:9} {group:15} {st:10.1f} {ld:10.1f} {ratio:6.3f} {cy:10.1f} "
              f"{cratio:6.3f}")


if __name__ == "__main__":
    main()
