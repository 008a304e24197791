#!/usr/bin/env python3
"""compare_rtt_test.py PQC_BENCH — `pqc-bench compare` against physics: the same arm run twice
over the emulated link, the second time with a round trip 5 ms longer. compare must report the
connect and handshake medians 5 ms slower (one round trip each) within the link's accuracy,
with an interval over the runs' trials (4 each: one trial would give an estimate and no
interval, and no gate could fail) that excludes zero and reaches +5 ms; a gate on
`connect.p50 > +1ms` must fail with exit status 4, and one the difference does not cross must
pass. Needs root (the emulated link), as the link tests do."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

SCENARIO = """title = "compare over rtt"
[tls]
group = "X25519"
chain = "ecdsa-p256"
[load]
mode = "fresh"
busy_poll = true
rate = 40
duration = "1.5s"
warmup = "1s"
network = "rtt2"
# The schedule's lag is not what this test judges.
max_lag_p99 = "5s"
max_link_late_p99 = "5s"
[networks.rtt2]
rtt = "2ms"
[networks.rtt7]
rtt = "7ms"
# Trials are the intervals' replicates: 4 per run give Student t 3 degrees of freedom per side.
[trials]
count = 4
seed = 3
"""

# Connect is the network alone: the emulator's release error is tens of microseconds
# (docs/link.md), and 0.5 ms leaves room for a busy machine. The handshake adds both sides'
# cryptography, whose CPU time varies between two runs on a shared 2-core machine by up to a
# millisecond at the median; neither tolerance admits a missing or doubled round trip (5 ms).
TOLERANCE_US = {"connect": 500, "handshake": 1000}
TRIALS = 4


def run(bench, workdir, *args):
    out = subprocess.run([bench, "run", "scenario.toml", *args], cwd=workdir,
                         capture_output=True, text=True, timeout=240)
    if out.returncode != 0:
        sys.exit(f"run {args} exited {out.returncode}:\n{out.stderr[-3000:]}")
    dirs = sorted(p for p in (pathlib.Path(workdir) / "results").iterdir() if p.is_dir())
    return dirs[-1]


def main():
    bench = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0:
        print("skipped: the emulated link needs root")
        return 77
    with tempfile.TemporaryDirectory(prefix="pqc-compare-rtt-") as tmp:
        (pathlib.Path(tmp) / "scenario.toml").write_text(SCENARIO)
        near = run(bench, tmp)
        far = run(bench, tmp, "--set", "network=rtt7")
        out_json = pathlib.Path(tmp) / "compare.json"
        cmp = subprocess.run([bench, "compare", str(near), str(far), "--format", "json",
                              "-o", str(out_json), "--fail-if", "connect.p50 > +1ms",
                              "--fail-if", "connect.p50 > +8ms"],
                             capture_output=True, text=True, timeout=120)
        print(cmp.stderr)
        if cmp.returncode != 4:
            sys.exit(f"compare with a crossed gate exited {cmp.returncode}, not 4")
        doc = json.loads(out_json.read_text())
        failed = False
        versus = doc["arms"][0]["versus"][0]
        for phase in ("connect", "handshake"):
            d = versus["phases"][phase]["p50"]["difference_us"]
            lo, hi = d["ci"]
            print(f"{phase} p50 difference: {d['verdict']} (interval over "
                  f"{d['replicates']} trials)")
            if d["estimate"] is None or abs(d["estimate"] - 5000) > TOLERANCE_US[phase]:
                print(f"  FAIL: expected +5 ms ± {TOLERANCE_US[phase]} µs")
                failed = True
            # Fewer than TRIALS only if a trial was invalid (its connections are then unused).
            if not 2 <= d["replicates"] <= TRIALS:
                print(f"  FAIL: the interval is over {d['replicates']} trials, not 2 to {TRIALS}")
                failed = True
            if lo is None or hi is None:
                print("  FAIL: no interval")
                failed = True
            elif not (0 < lo and lo <= 5000 + TOLERANCE_US[phase]
                      and hi >= 5000 - TOLERANCE_US[phase]) or not d["detectable"]:
                print(f"  FAIL: the interval must exclude 0 and reach +5 ms ± "
                      f"{TOLERANCE_US[phase]} µs")
                failed = True
        if not any("network" in s and "rtt7" in s for s in versus["setting_differences"]):
            print(f"FAIL: the network difference is not listed: {versus['setting_differences']}")
            failed = True
        gates = [(g["gate"], g["failed"]) for g in doc["gates"]]
        if gates != [("connect.p50 > +1ms", True), ("connect.p50 > +8ms", False)]:
            print(f"FAIL: gates {gates}")
            failed = True
        if "gate 'connect.p50 > +1ms' failed" not in cmp.stderr:
            print("FAIL: the failed gate is not named on stderr")
            failed = True
        ok = subprocess.run([bench, "compare", str(near), str(far), "--fail-if",
                             "handshake.p50 > +8ms"], capture_output=True, text=True, timeout=120)
        if ok.returncode != 0:
            print(f"FAIL: an uncrossed gate exited {ok.returncode}:\n{ok.stderr}")
            failed = True
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
