#!/usr/bin/env python3
"""h2load_crosscheck_test.py PQC_BENCH H2LOAD [sanitized] — `pqc-bench load` against a second
opinion, nghttp2's h2load, on the same embedded arm (X25519MLKEM768, ecdsa-p256, one server
thread) at the same connection rate and count (bench/h2load_crosscheck.py does the measuring
and says what each side's numbers span). Asserted:
- h2load offers exactly the group it is given: against a server holding only the other group
  every connection fails, against one holding it every connection succeeds; so each measured
  h2load connection (server: that group only) negotiated it. Ours: the JSON's negotiated
  groups are that group for every connection.
- Every h2load request logged status 200, one per connection.
- The means agree within 10 % (median over interleaved rounds of ours ÷ h2load): connect +
  handshake (h2load "time for connect") and time to the first response byte (h2load "time to
  1st byte"), on loopback and at 70 ms of emulated RTT, over HTTP/1.1 (h2load --h1) and over
  HTTP/2 (both offering ALPN h2 to `serve --protocol h1,h2`). A sanitizer build (third argument)
  instruments our client but not h2load: its loopback timing is printed, not judged; at 70 ms
  the wire dominates and is judged.
Skips (77) when h2load is missing; without root it runs the loopback part and then skips,
since the 70 ms part needs the emulated link."""
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import h2load_crosscheck as hc  # noqa: E402

GROUP, OTHER = "X25519MLKEM768", "X25519"
TOLERANCE = 0.10
# Loopback is the noisy side (2 shared cores: a mean of 60 handshakes moves by several % from
# one run to the next), hence more rounds there; at 70 ms the wire dominates.
ROUNDS = {0: 5, 70: 3}


def check_groups(bench, h2load, work):
    """h2load with one group against servers holding one group: only the same one connects."""
    failures = []
    for server_group in (GROUP, OTHER):
        server = hc.Server(bench, server_group, work)
        try:
            place = hc.Place(bench, 0, server_group, server)
            for offered in (GROUP, OTHER):
                log, out = os.path.join(work, "g.log"), os.path.join(work, "g.out")
                if os.path.exists(log):
                    os.remove(log)
                place.run(hc.h2load_cmd(h2load, offered, 50, 3, log), out, timeout=60)
                res = hc.parse_h2load(open(out).read())
                want = 3 if offered == server_group else 0
                print(f"groups: server {server_group:15} h2load offers {offered:15} "
                      f"succeeded {res['succeeded']}/3 (expected {want})")
                if res["succeeded"] != want:
                    failures.append(f"h2load offering {offered} to a {server_group} server: "
                                    f"{res['succeeded']} of 3 succeeded, expected {want}")
        finally:
            server.stop()
    return failures


def check_cell(bench, h2load, rtt_ms, work, judge_timing, protocol, attempt=1):
    """Interleaved rounds of both clients at one RTT. A timing beyond ±10 % is measured once
    more (all rounds again) before it fails: a burst of other jobs on the two shared cores once
    put a whole loopback cell at 0.87-0.89 (CI, 2026-12-03); a real difference in what the
    clients time is beyond it both times."""
    # Per client and round: on loopback 60 handshakes over 3 s (at 50/s over 1 s our HTTP/2
    # connect+handshake came out 10-13 % above h2load's twice in CI, 2026-12-07, and within 1 %
    # alone: a rate the loopback verdicts were never tuned for); at 70 ms, where the wire
    # dominates and the test only waits, 25 over 1 s (each over 200 ms, about five at once)
    # instead of 30 over 3 s: the same 0.998-1.002 ratios in a third of the time.
    if rtt_ms == 0:
        args = hc.parse_args(["--rate", "20", "--seconds", "3"])
    else:
        args = hc.parse_args(["--rate-rtt", "25", "--seconds", "1"])
    failures, cs, timing = [], [], []
    for rnd in range(1, ROUNDS[rtt_ms] + 1):
        c = hc.measure_cell(bench, h2load, rtt_ms, GROUP, args, work, f"{rtt_ms}", protocol)
        print(f"{protocol}: ", end="")
        hc.print_round(rnd, rtt_ms, GROUP, c)
        cs.append(c)
        n = hc.rate_for(rtt_ms, args) * args.seconds
        if c["h2_n"] != n or c["h2_200"] != n:
            failures.append(f"{protocol} rtt {rtt_ms} round {rnd}: h2load logged {c['h2_n']} requests, "
                            f"{c['h2_200']} with status 200, expected {n}")
        if c["ours_groups"] != {GROUP: n} or c["ours_errors"] != 0:
            failures.append(f"{protocol} rtt {rtt_ms} round {rnd}: ours negotiated {c['ours_groups']}, "
                            f"{c['ours_errors']} errors, expected {GROUP} × {n}")
    for key, what in (("hs_ratio", "connect+handshake"), ("ttfb_ratio", "time to first byte")):
        ratio = statistics.median(c[key] for c in cs)
        verdict = "ok" if abs(ratio - 1) <= TOLERANCE else "FAIL"
        if not judge_timing:
            verdict = "not judged (sanitizer build)"
        print(f"{protocol} rtt {rtt_ms} ms: {what} ours/h2load median {ratio:.3f} over {len(cs)} rounds "
              f"(attempt {attempt}): {verdict}")
        if judge_timing and verdict == "FAIL":
            timing.append(f"{protocol} rtt {rtt_ms} ms: {what} ours/h2load = {ratio:.3f}, beyond ±10 %")
    if timing and attempt == 1 and not failures:
        print(f"{protocol} rtt {rtt_ms} ms: beyond ±10 % on the first attempt: measuring once "
              f"more")
        return check_cell(bench, h2load, rtt_ms, work, judge_timing, protocol, attempt=2)
    return failures + timing


def main():
    bench = sys.argv[1]
    h2load = sys.argv[2] if len(sys.argv) > 2 else ""
    sanitized = len(sys.argv) > 3 and sys.argv[3] == "sanitized"
    if not h2load or not os.access(h2load, os.X_OK):
        print(f"skipped: no h2load ({h2load!r}; scripts/setup.sh builds it, cmake gets "
              f"-DPQC_H2LOAD)")
        return 77
    failures = []
    with tempfile.TemporaryDirectory(prefix="pqc-h2load-test-") as work:
        failures += check_groups(bench, h2load, work)
        root = os.geteuid() == 0
        for protocol in ("h1", "h2"):
            failures += check_cell(bench, h2load, 0, work, not sanitized, protocol)
            if root:
                failures += check_cell(bench, h2load, 70, work, True, protocol)
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    if not root:
        print("skipped: the 70 ms part needs root (the emulated link); loopback passed")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
