#!/usr/bin/env python3
"""h2load_crosscheck — `pqc-bench load --mode fresh --rate R` against a second, independent
load generator, nghttp2's h2load (HTTP/1.1 over TLS 1.3, one request per connection, a
connection-rate schedule), on the same embedded server arm: mean connect + handshake and mean
time to the first response byte of a new connection, on each side.

Like for like (read from h2load.cc and h2load_http1_session.cc of nghttp2, and from
src/client/connection.cc and summary.cc here):
- h2load "time for connect" = connect start (Client::connect(), before socket()) → the
  handshake done (connection_made(), after SSL_do_handshake() returned 1 and h2load printed
  its ALPN fallback lines). Ours: actual_start (before socket()) → tls_done (after
  SSL_do_handshake() returned 1) = the connect phase + the handshake phase, whose stamps
  telescope (tcp_established is the end of one and the start of the other).
- h2load "time to 1st byte" = connect start → the first response body byte parsed (its
  llhttp body callback, in the read that decrypted it). Ours: connect + handshake + ttfb,
  ttfb = request sent (after SSL_write() returned) → first decrypted response byte. Our sum
  leaves out the SSL_write() itself (tls_done → sent, which on loopback holds the send
  system call's delivery to the server); `gap` below is its mean, from --samples.
- h2load's --log-file: per request, the request submitted (right after the handshake,
  before its write, which the event loop does on its next turn) → the response complete.
  Ours: the response phase, sent → last byte, which leaves out the SSL_write(); the
  like-for-like is tls_done → last byte (`from tls_done`, from --samples).
- Both set TCP_NODELAY, sleep in epoll (no --busy-poll here), offer exactly one group (one
  key share) and one TLS 1.3 cipher suite, and send SNI "localhost"; h2load verifies no
  certificate, so load runs without --ca too (--verify adds it on our side).

Schedule: load's --rate R for S seconds (uniform arrivals, no warm-up) against h2load's rate
mode `-r 1 --rate-period 1000/R ms -c N -n N` (one new connection every 1/R, one request on
each: N = R·S on both sides). h2load's own `-r R --rate-period 1s` would open R connections
at once every second, a burst that queues at the one server thread (measured: "time for
connect" 16 ms against 2.6 ms at 20/s on loopback).

Server: the embedded one (`pqc-bench serve`, one thread, ecdsa-p256), offering the cell's
group only, so a connection that succeeds negotiated it (h2load prints no group for
hybrids; the test checks that h2load offering the other group fails). On loopback one server
per cell and round, warmed by a few connections, serves both clients; with --rtts 0,70 each
client also runs at 70 ms inside `pqc-bench link --rtt 70ms` (its own fresh server each; root).
Rounds are interleaved (h2load, load, next cell ...), and the median ratio per cell is reported.

usage: bench/h2load_crosscheck.py [--build DIR] [--h2load PATH] [--rounds K] [--rtts 0,70]
                                  [--groups X25519,X25519MLKEM768] [--rate R] [--rate-rtt R]
                                  [--seconds S] [--verify]
"""
import argparse
import csv
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GROUPS = ["X25519", "X25519MLKEM768"]
CIPHER = "TLS_AES_128_GCM_SHA256"  # h2load's first choice; pinned on both sides
CHAIN = "ecdsa-p256"
TARGET, CA = "@TARGET@", "@CA@"  # placeholders: the address and root of the run's server


def h2load_from_env():
    """$PQC_H2LOAD, else the set-up's env file (scripts/setup.sh prints its path last)."""
    if os.environ.get("PQC_H2LOAD"):
        return os.environ["PQC_H2LOAD"]
    env_sh = subprocess.run([os.path.join(ROOT, "scripts", "setup.sh")], capture_output=True,
                            text=True, check=True).stdout.strip().splitlines()[-1]
    for line in open(env_sh):
        k, _, v = line.strip().partition("=")
        if k == "PQC_H2LOAD":
            return v
    sys.exit(f"no PQC_H2LOAD in {env_sh}")


def server_flags(group, protocol="h1"):
    # h2: HTTP/2 beside HTTP/1.1 on the TCP listener (ALPN picks).
    return ["--cert", CHAIN, "--groups", group, "--threads", "1", "--protocol",
            "h1,h2" if protocol == "h2" else "h1"]


class Server:
    """`pqc-bench serve` on a free loopback port; stops on SIGTERM."""

    def __init__(self, bench, group, workdir, protocol="h1"):
        self.ca = os.path.join(workdir, f"ca-{group}.pem")
        self.proc = subprocess.Popen([bench, "serve", "--listen", "127.0.0.1:0", "--write-ca",
                                      self.ca, *server_flags(group, protocol)],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"listening on (\S+)", line)
        if not m:
            self.proc.kill()
            sys.exit(f"serve did not start: {line}")
        self.addr = m.group(1)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=15)


class Place:
    """Where a client runs: against a loopback Server, or inside `pqc-bench link` at an RTT
    (then the placeholders become $PQC_TARGET and $PQC_CA in the client namespace)."""

    def __init__(self, bench, rtt_ms, group, server=None, protocol="h1"):
        self.bench, self.rtt_ms, self.group, self.server = bench, rtt_ms, group, server
        self.protocol = protocol

    def run(self, cmd, out_path, timeout):
        """Runs cmd with its stdout and stderr in out_path; returns its exit status."""
        if self.rtt_ms == 0:
            args = [a.replace(TARGET, self.server.addr).replace(CA, self.server.ca) for a in cmd]
            with open(out_path, "w") as out:
                return subprocess.run(args, stdout=out, stderr=subprocess.STDOUT,
                                      timeout=timeout).returncode
        inner = " ".join(shell_word(a) for a in cmd) + f" >{shlex.quote(out_path)} 2>&1"
        link = [self.bench, "link", "--rtt", f"{self.rtt_ms}ms",
                "--server=" + " ".join(server_flags(self.group, self.protocol)), "--", "sh", "-c",
                inner]
        p = subprocess.run(link, capture_output=True, text=True, timeout=timeout)
        if "link: rtt" not in p.stderr + p.stdout:
            sys.exit(f"link did not come up ({p.returncode}):\n{p.stderr[-2000:]}")
        return p.returncode


def shell_word(arg):
    """arg quoted for sh, with the placeholders expanded from the link's environment."""
    for placeholder, var in ((TARGET, "PQC_TARGET"), (CA, "PQC_CA")):
        if placeholder in arg:
            return f'"${var}"'.join(shlex.quote(p) if p else "" for p in arg.split(placeholder))
    return shlex.quote(arg)


UNITS_US = {"us": 1.0, "ms": 1e3, "s": 1e6}


def parse_h2load(text):
    """h2load's summary: request counts, status classes and, for "time for connect", "time to
    1st byte" and "time for request", {min, max, mean, sd} in µs."""
    m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                  r"(\d+) failed, (\d+) errored, (\d+) timeout", text)
    if not m:
        raise ValueError("no h2load summary in:\n" + text[-2000:])
    out = dict(zip(("total", "started", "done", "succeeded", "failed", "errored", "timeout"),
                   map(int, m.groups())))
    out["2xx"] = int(re.search(r"status codes: (\d+) 2xx", text).group(1))
    value = r"([\d.]+)(us|ms|s)\s+"
    for key, label in (("connect", "time for connect"), ("ttfb", "time to 1st byte"),
                       ("request", "time for request")):
        m = re.search(label + r":\s+" + value * 4, text)
        nums = [float(m.group(i)) * UNITS_US[m.group(i + 1)] for i in (1, 3, 5, 7)]
        out[key] = dict(zip(("min", "max", "mean", "sd"), nums))
    out["x25519_key"] = "Server Temp Key: X25519 " in text
    return out


def parse_log(path):
    """h2load's --log-file rows: (request start µs since the epoch, status or -1, µs from
    the request submitted to the end of its response)."""
    rows = []
    with open(path) as f:
        for line in f:
            start, status, us = line.split("\t")
            rows.append((int(start), int(status), int(us)))
    return rows


def h2load_cmd(h2load, group, rate, count, log, protocol="h1"):
    # Without --h1 h2load offers ALPN h2 (and speaks HTTP/2), as our `--protocol h2` does.
    return [h2load, *(["--h1"] if protocol == "h1" else []), "-t", "1", "-r", "1",
            "--rate-period", f"{1000 // rate}ms", "-c", str(count), "-n", str(count),
            "--groups", group, "--tls13-ciphers", CIPHER, "--sni", "localhost", "--log-file", log,
            f"https://{TARGET}/"]


def run_h2load(h2load, place, rate, count, work, tag):
    log, out = os.path.join(work, f"h2load-{tag}.log"), os.path.join(work, f"h2load-{tag}.out")
    if os.path.exists(log):
        os.remove(log)  # h2load appends
    place.run(h2load_cmd(h2load, place.group, rate, count, log, place.protocol), out, timeout=300)
    text = open(out).read()
    res = parse_h2load(text)
    res["log"] = parse_log(log) if os.path.exists(log) else []
    return res


def load_cmd(bench, group, rate, seconds, json_path, samples, verify, protocol="h1"):
    cmd = [bench, "load", "--target", TARGET, "--protocol", protocol, "--mode", "fresh",
           "--rate", str(rate),
           "--duration", f"{seconds}s", "--warmup", "0s", "--groups", group, "--ciphersuites",
           CIPHER, "--max-lag-p99", "100ms", "--json", json_path, "--samples", samples]
    return cmd + (["--ca", CA] if verify else [])


def run_load(bench, place, rate, seconds, work, tag, verify):
    js, samples = os.path.join(work, f"load-{tag}.json"), os.path.join(work, f"load-{tag}.csv")
    for p in (js, samples):
        if os.path.exists(p):
            os.remove(p)
    place.run(load_cmd(bench, place.group, rate, seconds, js, samples, verify, place.protocol),
              os.path.join(work, f"load-{tag}.out"), timeout=300)
    doc = json.load(open(js))
    gaps, tail = [], []
    with open(samples) as f:
        for row in csv.DictReader(f):
            if row["measured"] in ("1", "true") and row["error"] in ("", "none"):
                gaps.append(float(row["req_sent_us"]) - float(row["tls_done_us"]))
                tail.append(float(row["req_last_byte_us"]) - float(row["tls_done_us"]))
    doc["gap_mean_us"] = statistics.fmean(gaps) if gaps else None
    # h2load stamps its request when it queues it, right after the handshake: its log's
    # like-for-like is ours from tls_done (the SSL_write() included) to the last byte.
    doc["tail_mean_us"] = statistics.fmean(tail) if tail else None
    return doc


def compare(h2, ld):
    """One round's numbers of one cell: like-for-like means (µs) and their ratios
    (ours ÷ h2load)."""
    ph = ld["phases"]
    ours_hs = ph["connect"]["mean"] + ph["handshake"]["mean"]
    ours_ttfb = ours_hs + ph["ttfb"]["mean"]
    log_us = [r[2] for r in h2["log"]]
    h2_req = statistics.fmean(log_us) if log_us else float("nan")
    return {
        "h2_hs": h2["connect"]["mean"], "ours_hs": ours_hs,
        "hs_ratio": ours_hs / h2["connect"]["mean"],
        "h2_ttfb": h2["ttfb"]["mean"], "ours_ttfb": ours_ttfb,
        "ttfb_ratio": ours_ttfb / h2["ttfb"]["mean"],
        "h2_req": h2_req, "ours_resp": ph["response"]["mean"],
        "req_ratio": ph["response"]["mean"] / h2_req,
        "ours_tail": ld["tail_mean_us"], "tail_ratio": ld["tail_mean_us"] / h2_req,
        "gap": ld["gap_mean_us"],
        "h2_n": len(h2["log"]), "h2_200": sum(1 for r in h2["log"] if r[1] == 200),
        "h2_ok": h2["succeeded"], "ours_n": ld["connections"],
        "ours_groups": ld["negotiated"]["groups"], "ours_cipher": ld["negotiated"]["cipher"],
        "ours_errors": ld["errors"]["total"],
    }


def rate_for(rtt_ms, args):
    return args.rate if rtt_ms == 0 else args.rate_rtt


def measure_cell(bench, h2load, rtt_ms, group, args, work, tag, protocol="h1"):
    """One round of one cell: h2load, then load, at the same rate and count, both speaking
    `protocol` (h1 or h2)."""
    rate = rate_for(rtt_ms, args)
    count = rate * args.seconds
    if rtt_ms == 0:
        server = Server(bench, group, work, protocol)
        try:
            place = Place(bench, 0, group, server, protocol)
            # A few connections first, so that neither client meets a cold server.
            place.run(h2load_cmd(h2load, group, 50, 5, os.path.join(work, "warm.log"), protocol),
                      os.path.join(work, "warm.out"), timeout=60)
            h2 = run_h2load(h2load, place, rate, count, work, tag)
            ld = run_load(bench, place, rate, args.seconds, work, tag, args.verify)
        finally:
            server.stop()
    else:
        place = Place(bench, rtt_ms, group, protocol=protocol)
        h2 = run_h2load(h2load, place, rate, count, work, tag)
        ld = run_load(bench, place, rate, args.seconds, work, tag, args.verify)
    return compare(h2, ld)


def print_round(rnd, rtt_ms, group, c):
    print(f"round {rnd}: rtt {rtt_ms:3} ms {group:15} "
          f"c+h h2load {c['h2_hs']:9.1f} ours {c['ours_hs']:9.1f} ({c['hs_ratio']:5.3f})  "
          f"ttfb h2load {c['h2_ttfb']:9.1f} ours {c['ours_ttfb']:9.1f} ({c['ttfb_ratio']:5.3f})  "
          f"req h2load {c['h2_req']:8.1f} ours {c['ours_resp']:8.1f}, from tls_done "
          f"{c['ours_tail']:8.1f} ({c['tail_ratio']:5.3f})  gap {c['gap']:5.1f}  "
          f"n {c['h2_200']}/{c['h2_n']} 200, ours {c['ours_n']} {c['ours_groups']}", flush=True)


def summary_table(rows, rounds):
    """Medians over rounds per cell, µs; ratio = ours ÷ h2load (median of the rounds' ratios)."""
    med = statistics.median
    lines = [f"| RTT | group | h2load connect µs | ours connect+handshake µs | ratio | "
             f"h2load ttfb µs | ours c+h+ttfb µs | ratio | h2load req→resp µs (log) | "
             f"ours response µs | ratio | ours tls_done→last µs | ratio | tls_done→sent µs | "
             f"requests 200 (h2load) |",
             "| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
             "---: | ---: | ---: | ---: |"]
    for (rtt_ms, group), cs in rows.items():
        rtt = "loopback" if rtt_ms == 0 else f"{rtt_ms} ms"
        ok = sum(c["h2_200"] for c in cs)
        n = sum(c["h2_n"] for c in cs)
        lines.append(
            f"| {rtt} | {group} | {med(c['h2_hs'] for c in cs):.1f} | "
            f"{med(c['ours_hs'] for c in cs):.1f} | {med(c['hs_ratio'] for c in cs):.3f} | "
            f"{med(c['h2_ttfb'] for c in cs):.1f} | {med(c['ours_ttfb'] for c in cs):.1f} | "
            f"{med(c['ttfb_ratio'] for c in cs):.3f} | {med(c['h2_req'] for c in cs):.1f} | "
            f"{med(c['ours_resp'] for c in cs):.1f} | {med(c['req_ratio'] for c in cs):.3f} | "
            f"{med(c['ours_tail'] for c in cs):.1f} | {med(c['tail_ratio'] for c in cs):.3f} | "
            f"{med(c['gap'] for c in cs):.1f} | {ok}/{n} |")
    return "\n".join(lines) + f"\n(medians of {rounds} interleaved rounds)"


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--bench", help="the pqc-bench binary (default: BUILD/src/pqc-bench)")
    ap.add_argument("--h2load", help="h2load (default: $PQC_H2LOAD, else the set-up's)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rtts", default="0", help="comma-separated ms; 0 = loopback")
    ap.add_argument("--groups", default=",".join(GROUPS))
    ap.add_argument("--rate", type=int, default=20, help="connections/s on loopback")
    ap.add_argument("--rate-rtt", type=int, default=10, help="connections/s over the link")
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--protocol", default="h1", choices=["h1", "h2"],
                    help="what both clients speak: HTTP/1.1 (h2load --h1) or HTTP/2")
    ap.add_argument("--verify", action="store_true",
                    help="load verifies the chain (--ca); h2load never does")
    args = ap.parse_args(argv)
    for r in (args.rate, args.rate_rtt):
        if r <= 0 or 1000 % r:
            ap.error(f"rate {r}: h2load's --rate-period takes whole milliseconds (1000/rate)")
    return args


def main():
    args = parse_args()
    bench = args.bench or os.path.join(args.build, "src", "pqc-bench")
    h2load = args.h2load or h2load_from_env()
    rtts = [int(x) for x in args.rtts.split(",")]
    if any(rtts) and os.geteuid() != 0:
        sys.exit("the emulated link (--rtts other than 0) needs root")
    cells = [(rtt, g) for rtt in rtts for g in args.groups.split(",")]
    rows = {}
    with tempfile.TemporaryDirectory(prefix="pqc-h2load-") as work:
        for rnd in range(1, args.rounds + 1):
            for rtt_ms, group in cells:
                c = measure_cell(bench, h2load, rtt_ms, group, args, work, f"{rtt_ms}-{group}",
                                 args.protocol)
                rows.setdefault((rtt_ms, group), []).append(c)
                print_round(rnd, rtt_ms, group, c)
    print()
    print(summary_table(rows, args.rounds))


if __name__ == "__main__":
    main()
