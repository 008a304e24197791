#!/usr/bin/env python3
"""aa_ab_test.py PQC_BENCH — the intervals over trials against what is known to be true.

(a) A/A, on loopback (no root): one small study (X25519 and X25519MLKEM768, each arm twice
    through `copy = [{ value = "a" }, { value = "b" }]`, 4 trials) run four times. Nothing
    differs between the runs. Within each run, the A/A control pairs' cells may call a
    difference detectable in at most 20 % (cells move in clusters), their handshake p50 must have an interval, at most
    3 of the 8 may be detectable (a 95 % interval misses 1 in 20: demanding none fails honest
    runs), and `run`'s findings must say of each pair what its summary found. `compare` of
    two runs, one per side, must say that drift between runs is not in its intervals — it is
    not, and it is real: 0 to 29 of 80 cells flagged on this machine, and once two arms of one
    run +28 % and +31 % slower than the other run throughout, failing a 5 % gate while the
    runs' own controls were clean — so its gates and cells are logged, not judged. With the
    runs as replicates, the sides alternating in time as docs/cli.md asks of CI gates
    (`compare 1 3 --against 2 4`), the two 5 % gates may fail for at most one of the four arms
    (each gate is a one-sided 2.5 % test: demanding all eight pass failed an honest run in CI)
    and at most 20 % of its cells (arm × phase × mean/p50/p95/p99) be detectable — with
    intervals over connections the same two runs "differed" in 68 of 80.
(b) A/B with a known difference (root: the emulated link; skipped otherwise): one X25519 arm
    over `[networks.rtt20]` at rtt = "20ms", then the same network at "21ms". Connect is one
    round trip, so compare must find its p50 +1 ms (the handshake's too), with an interval
    above zero that reaches +1 ms within the link's accuracy, and a gate on
    `connect.p50 > +0.5ms` must fail with exit status 4.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

AA_SCENARIO = """title = "A/A: identical runs and identical arms"
[tls]
chain = "ecdsa-p256"
[load]
mode = "fresh"
rate = 150
duration = "1s"
warmup = "1s"
# A busy host's schedule lag is not what this test judges: it must not invalidate trials.
max_lag_p99 = "5s"
max_link_late_p99 = "5s"
[trials]
count = 4
seed = 5
[matrix]
group = ["X25519", "X25519MLKEM768"]
copy = [{ value = "a" }, { value = "b" }]
"""

AB_SCENARIO = """title = "A/B: one round trip 1 ms longer"
[tls]
group = "X25519"
chain = "ecdsa-p256"
[load]
mode = "fresh"
busy_poll = true
rate = 40
duration = "1s"
warmup = "1s"
network = "rtt20"
max_lag_p99 = "5s"
max_link_late_p99 = "5s"
[networks.rtt20]
rtt = "{rtt}"
[trials]
count = 6
seed = 7
"""

STATISTICS = ("mean", "p50", "p95", "p99")
# At most this share of an A/A comparison's cells may be detectable. 5 % is the nominal rate of a
# 95 % interval, but the cells move in clusters — ttfb and response are one interval on a
# one-shot request, one drifting block (or, over runs, one of only two runs per side) moves an
# arm's mean, p50, p95 and p99 together — so their count spreads like that of a few arms, not of
# 80 or 160 independent cells: measured up to 6 of 80 and 10 of 160 on an honest machine.
# Intervals over connections flagged 65-85 %.
AA_MAX_DETECTABLE = 0.20
# Of the eight control pairs' handshake p50 (4 runs x 2 groups), each detectable with 5 %
# probability at nominal coverage: requiring none would fail a third of honest runs (4 pairs
# failed 19 % of the time: it did, in CI); more than 3 of 8 happens 0.04 % of the time, and
# 94 % of the time with intervals over connections, which called ~70 % of identical pairs
# different.
AA_MAX_HANDSHAKE_P50 = 3
# Of compare's eight gates with the runs as replicates (4 arms x handshake and total p50, each
# `> +5%`): each fails an A/A pair with at most 2.5 % probability (the interval's lower end above
# +5 %), and an arm's two gates move together (the handshake is most of the total), so one arm
# crosses in up to about 10 % of honest runs (it did, in CI); two arms, if they drift apart
# from each other, in under 1 % (a drift a run's arms share is what alternating the sides puts
# inside each side's spread).
AA_MAX_GATED_ARMS = 1
# (b): the known difference, and how far from it an interval may end. Connect is the network
# alone (the emulator's release error is tens of microseconds, docs/link.md); the handshake
# adds both sides' cryptography, whose CPU time varies between two runs on a shared machine.
KNOWN_US = 1000
TOLERANCE_US = {"connect": 300, "handshake": 1000}


def log(msg=""):
    print(msg, flush=True)


def run_study(bench, workdir, scenario, results, timeout):
    """`run SCENARIO --results RESULTS`: the run's directory, and what it printed."""
    started = time.monotonic()
    out = subprocess.run([bench, "run", scenario, "--results", results], cwd=workdir,
                         capture_output=True, text=True, timeout=timeout)
    elapsed = time.monotonic() - started
    if out.returncode != 0:
        sys.exit(f"FAIL: run {scenario} --results {results} exited {out.returncode}:\n"
                 f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    dirs = sorted(p for p in (pathlib.Path(workdir) / results).iterdir() if p.is_dir())
    if len(dirs) != 1:
        sys.exit(f"FAIL: expected one run directory in {results}, found {dirs}")
    log(f"run {scenario} -> {dirs[0].name}: {elapsed:.0f} s")
    return dirs[0], out.stdout


def compare(bench, a, b, out_json, *gates, against=()):
    args = [bench, "compare", str(a), str(b), "--format", "json", "-o", str(out_json)]
    if against:
        args += ["--against"] + [str(r) for r in against]
    for g in gates:
        args += ["--fail-if", g]
    started = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True, timeout=300)
    log(f"compare ({', '.join(gates)}): exit {out.returncode}, "
        f"{time.monotonic() - started:.1f} s")
    if out.stderr.strip():
        log(out.stderr.rstrip())
    if out.returncode not in (0, 4):
        sys.exit(f"FAIL: compare exited {out.returncode}")
    return out, json.loads(pathlib.Path(out_json).read_text())


def has_interval(d):
    return d.get("ci") is not None and d["ci"][0] is not None and d["ci"][1] is not None


def ci_text(d):
    lo, hi = d["ci"]
    return f"{d['estimate']:+.1f} µs [{lo:+.1f}, {hi:+.1f}]" if has_interval(d) else \
        f"{d['estimate']} µs (no interval)"


def check_controls(label, run_dir, stdout):
    """The run's own A/A pairs: every cell with an interval, and findings that say what it found.

    Returns (failures, detectable cells, cells with an interval, detectable handshake p50s)."""
    failures = []
    summary = json.loads((run_dir / "summary.json").read_text())
    if summary.get("schema") != "pqc-bench/summary/2":
        failures.append(f"{label}: summary schema {summary.get('schema')!r}, "
                        "not pqc-bench/summary/2")
    controls = [c for c in summary.get("comparisons", []) if c.get("control")]
    handshake = [c for c in controls if c.get("phase") == "handshake"]
    if len(handshake) != 2:
        failures.append(f"{label}: {len(handshake)} A/A control comparisons of the handshake, "
                        "expected 2 (one per group)")
    cells = flagged = 0
    for c in controls:
        for s in STATISTICS:
            d = c["diffs"].get(s)
            if d is None or d["lo"] is None or d["hi"] is None:
                continue
            cells += 1
            if d["detectable"]:
                flagged += 1
                log(f"  {label}: control {c['arm']} vs {c['baseline']} {c['phase']} {s}: "
                    f"detectable, {d['verdict']}")
    hs_flagged = 0
    for c in handshake:
        d = c["diffs"]["p50"]
        interval = (f"{d['estimate']:+.1f} µs [{d['lo']:+.1f}, {d['hi']:+.1f}]"
                    if d["lo"] is not None and d["hi"] is not None else f"{d['estimate']} µs")
        log(f"{label}: A/A control arm {c['arm']} vs {c['baseline']} ({c['from']} -> "
            f"{c['to']}): handshake p50 {interval}, detectable {d['detectable']}, "
            f"{d.get('replicates')} replicates")
        if d["lo"] is None or d["hi"] is None:
            failures.append(f"{label}: control {c['arm']} vs {c['baseline']} has no interval")
        hs_flagged += bool(d["detectable"])
    lines = [ln.strip() for ln in stdout.splitlines() if "A/A control (" in ln]
    for ln in lines:
        log(f"{label}: {ln}")
    if len(lines) != len(handshake) or not lines:
        failures.append(f"{label}: run printed {len(lines)} 'A/A control (' findings for "
                        f"{len(handshake)} control comparisons")
    # Each finding must say what its comparison found: nothing, or a drift to distrust.
    said_clean = sum("no difference detectable" in ln for ln in lines)
    said_drift = sum("a difference between identical arms" in ln for ln in lines)
    if said_drift != hs_flagged or said_clean != len(handshake) - hs_flagged:
        failures.append(f"{label}: findings say {said_clean} clean and {said_drift} drifted, "
                        f"the summary has {hs_flagged} of {len(handshake)} detectable")
    return failures, flagged, cells, hs_flagged


def part_aa(bench, tmp):
    log("== (a) A/A: the same study four times, identical arms within each ==")
    (tmp / "aa.toml").write_text(AA_SCENARIO)
    failures = []
    runs = []
    control_flagged = control_cells = hs_flagged = 0
    for name in ("aa-1", "aa-2", "aa-3", "aa-4"):
        run_dir, stdout = run_study(bench, tmp, "aa.toml", name, timeout=400)
        f, flagged, cells, hs = check_controls(name, run_dir, stdout)
        failures += f
        control_flagged += flagged
        control_cells += cells
        hs_flagged += hs
        runs.append(run_dir)
    log(f"A/A controls within the runs: {control_flagged} of {control_cells} cells detectable "
        f"(limit {AA_MAX_DETECTABLE:.0%}); handshake p50: {hs_flagged} of 8 "
        f"(limit {AA_MAX_HANDSHAKE_P50})")
    if control_cells < 4 * 2 * 3 * 4:
        failures.append(f"only {control_cells} control cells have an interval (expected at "
                        "least 96: 4 runs, 2 pairs, 3 phases or more, 4 statistics)")
    if control_flagged > AA_MAX_DETECTABLE * control_cells:
        failures.append(f"{control_flagged} of {control_cells} cells of identical arms are "
                        f"detectable (more than {AA_MAX_DETECTABLE:.0%})")
    if hs_flagged > AA_MAX_HANDSHAKE_P50:
        failures.append(f"{hs_flagged} of 8 A/A control pairs' handshake p50 differ "
                        f"detectably (more than {AA_MAX_HANDSHAKE_P50})")
    # One run per side: the intervals are over each run's trials, so drift between the two runs
    # is not in them (the machine's state differs from run to run: measured 0 to 29 of 80 cells
    # flagged, and a 5 % gate failed once at +31 %). Compare must say what its intervals leave
    # out; its gates and cells are logged, not judged.
    cmp, doc, flagged, total, arms, f = aa_compare(bench, runs[:2], [], tmp / "aa-single.json",
                                                   "one run per side", "trial")
    failures += f
    log(f"A/A compare, one run per side: {flagged} of {total} cells detectable, gates exit "
        f"{cmp.returncode} (drift between runs is not in these intervals; not judged)")
    if "drift between the runs themselves is not in them" not in cmp.stdout + cmp.stderr + \
            json.dumps(doc):
        failures.append("compare of one run per side does not say that drift between runs is "
                        "not in its intervals")
    # Runs as the replicates: two runs per side, so the variance between runs is in the
    # interval. The sides alternate in time (runs 1 and 3 against 2 and 4), as a user's CI
    # should run them: the machine's drift is correlated in time, and 1 2 against 3 4 put
    # adjacent runs on one side — in CI both of one side's runs of an arm sat +23 % above the
    # other's while agreeing with each other, and its 5 % gate failed. Alternating, a drift
    # lands within each side's spread, where the interval counts it.
    cmp, doc, flagged, total, arms, f = aa_compare(bench, runs[0::2], runs[1::2],
                                                   tmp / "aa-against.json", "runs as replicates",
                                                   "run", max_gated_arms=AA_MAX_GATED_ARMS)
    failures += f
    log(f"A/A compare, runs as replicates (1 3 --against 2 4): {flagged} of {total} cells "
        f"detectable ({arms} matched arms; limit {AA_MAX_DETECTABLE:.0%})")
    if arms != 4:
        failures.append(f"compare matched {arms} arms, expected 4 (2 groups x 2 copies)")
    if total < 4 * 4 * 3:
        failures.append(f"only {total} cells have an interval (expected at least 48: 4 arms, "
                        "3 phases or more, 4 statistics)")
    if flagged > AA_MAX_DETECTABLE * total:
        failures.append(f"{flagged} of {total} cells of identical runs are detectable with the "
                        f"runs as replicates (more than {AA_MAX_DETECTABLE:.0%})")
    return failures


def aa_compare(bench, side_a, side_b, out_json, label, replicate, max_gated_arms=None):
    """compare of identical runs with both 5 % gates, over the replicate named: they may fail for
    at most `max_gated_arms` arms (None: a failed gate is only logged, not judged). Returns
    (process, document, detectable cells, cells, matched arms, failures)."""
    cmp, doc = compare(bench, side_a[0], side_a[1], out_json, "handshake.p50 > +5%",
                       "total.p50 > +5%", against=side_b)
    crossed = failed_gates(cmp, doc)
    for g in crossed:
        log(f"  {label}: compare of identical runs failed a 5 % gate: {g}")
    failures = []
    gated_arms = {arm for _, arm, _ in crossed}
    if max_gated_arms is None:
        if crossed:
            log(f"  {label}: gates not judged (drift between runs is not in these intervals)")
    elif len(gated_arms) > max_gated_arms:
        failures.append(f"{label}: compare of identical runs failed a 5 % gate for "
                        f"{len(gated_arms)} arms (exit {cmp.returncode}; at most "
                        f"{max_gated_arms} may): {crossed}")
    if cmp.returncode not in (0, 4):
        failures.append(f"{label}: compare exit {cmp.returncode}: {cmp.stderr[-500:]}")
    if (cmp.returncode == 4) != bool(crossed):
        failures.append(f"{label}: compare exit {cmp.returncode} but {len(crossed)} failed "
                        "gates in its document")
    if doc.get("replicate") != replicate:
        failures.append(f"{label}: replicate {doc.get('replicate')!r}, not {replicate!r}")
    flagged, total, arms, f = count_cells(label, doc)
    return cmp, doc, flagged, total, arms, failures + f


def failed_gates(cmp, doc):
    """The gates compare failed: (gate, arm, verdict) each."""
    return [(g["gate"], g["arm"], g["difference_us"]["verdict"])
            for g in doc["gates"] if g["failed"]]


def count_cells(label, doc):
    """(detectable cells, cells with an interval, matched arms, failures) of a comparison."""
    failures = []
    total = flagged = arms = 0
    for arm in doc["arms"]:
        for v in arm["versus"]:
            arms += 1
            for phase, stats in v["phases"].items():
                for s in STATISTICS:
                    if s not in stats:
                        continue
                    d = stats[s]["difference_us"]
                    if not has_interval(d):
                        continue
                    total += 1
                    if d["replicates"] < 2:
                        failures.append(f"{label}: {arm['label']} {phase} {s}: an interval "
                                        f"over {d['replicates']} replicates")
                    if d["detectable"]:
                        flagged += 1
                        log(f"  {label}: detectable: {arm['label']} {phase} {s}: "
                            f"{ci_text(d)} (baseline {stats[s]['baseline_us']:.1f} µs)")
            for phase in ("handshake", "total"):
                d = v["phases"][phase]["p50"]["difference_us"]
                log(f"  {label}: {arm['label']}: {phase} p50 {ci_text(d)}, "
                    f"{d['replicates']} replicates")
    return flagged, total, arms, failures


def part_ab(bench, tmp):
    log("== (b) A/B: the same arm at RTT 20 ms and 21 ms ==")
    if os.geteuid() != 0:
        log("SKIP (b): the emulated link needs root")
        return []
    runs = []
    for rtt in ("20ms", "21ms"):
        (tmp / f"ab-{rtt}.toml").write_text(AB_SCENARIO.format(rtt=rtt))
        run_dir, _ = run_study(bench, tmp, f"ab-{rtt}.toml", f"ab-{rtt}", timeout=300)
        runs.append(run_dir)
    cmp, doc = compare(bench, runs[0], runs[1], tmp / "ab.json", "connect.p50 > +0.5ms")
    failures = []
    if cmp.returncode != 4:
        failures.append(f"compare with the crossed gate 'connect.p50 > +0.5ms' exited "
                        f"{cmp.returncode}, not 4: {doc['gates']}")
    if len(doc["arms"]) != 1 or len(doc["arms"][0]["versus"]) != 1:
        return failures + [f"expected one matched arm, got {len(doc['arms'])}: "
                           f"{doc['arms_not_in_every_run']}"]
    v = doc["arms"][0]["versus"][0]
    for phase in ("connect", "handshake"):
        d = v["phases"][phase]["p50"]["difference_us"]
        tol = TOLERANCE_US[phase]
        log(f"{phase} p50 difference: {ci_text(d)}, {d['replicates']} replicates "
            f"(expected +{KNOWN_US} µs ± {tol}): {d['verdict']}")
        if not has_interval(d):
            failures.append(f"{phase}: no interval ({d['verdict']})")
            continue
        lo, hi = d["ci"]
        if abs(d["estimate"] - KNOWN_US) > tol:
            failures.append(f"{phase} p50: estimate {d['estimate']:+.1f} µs, expected "
                            f"+{KNOWN_US} µs ± {tol}")
        if not lo > 0:
            failures.append(f"{phase} p50: interval [{lo:+.1f}, {hi:+.1f}] does not exclude 0")
        if lo > KNOWN_US + tol or hi < KNOWN_US - tol:
            failures.append(f"{phase} p50: interval [{lo:+.1f}, {hi:+.1f}] is more than "
                            f"{tol} µs from +{KNOWN_US} µs")
        if not d["detectable"]:
            failures.append(f"{phase} p50: the difference is not detectable")
    gates = [(g["gate"], g["failed"]) for g in doc["gates"]]
    if gates != [("connect.p50 > +0.5ms", True)]:
        failures.append(f"gates {gates}, expected the connect gate failed")
    if "gate 'connect.p50 > +0.5ms' failed" not in cmp.stderr:
        failures.append("the failed gate is not named on stderr")
    return failures


PARTS = {"aa": part_aa, "ab": part_ab}


def main():
    # CTest runs the parts as two tests (tests/CMakeLists.txt): the A/A beside other tests, as a
    # user's study shares a machine, and the A/B alone, since its known difference is a round
    # trip of the emulated link, whose packet release a busy neighbour delays.
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] not in PARTS):
        sys.exit("usage: aa_ab_test.py PQC_BENCH [aa|ab]   (both parts without the second)")
    bench = os.path.abspath(sys.argv[1])
    parts = [sys.argv[2]] if len(sys.argv) == 3 else list(PARTS)
    started = time.monotonic()
    failures = []
    with tempfile.TemporaryDirectory(prefix="pqc-aa-ab-") as tmp:
        tmp = pathlib.Path(tmp)
        for part in parts:
            failures += PARTS[part](bench, tmp)
    log(f"aa_ab {' '.join(parts)}: {time.monotonic() - started:.0f} s in all")
    for f in failures:
        log(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
