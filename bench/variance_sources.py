#!/usr/bin/env python3
"""variance_sources — why trials disagree on this machine, and which defaults cut it
(issue 40, part 3; docs/methodology.md, "Why trials disagree").

One study, run again and again under each setting: the quick study's fresh arms (X25519 and
X25519MLKEM768, 200 connections/s, trials of 2 s after 1 s of warm-up, --blocks blocks). The
settings are run round-robin, the order rotated every round, so that a slow minute of the machine
falls on every setting alike. From each run's summary.json:

- design effect (DE) of the handshake p50 and p99, per arm: the between-trial variance as a
  multiple of what the connections alone would give (stats/variance_components.h);
- the between-trial SD of the per-trial handshake p50, in % of the arm's p50;
- block-shared: the correlation of the two arms' per-trial p50 within a block — the part of the
  between-trial variance that is drift in time (pairing by block removes it); and lag-1: the
  correlation of neighbouring blocks' means (slow drift across blocks);
- the handshake p50 itself (placement moves the level too: a setting that cuts variance by
  measuring a different machine is not a free default);
- and what a stopping study would pay: the SD of the per-block difference of the two arms'
  p50 and p99, and the blocks (and minutes) that ±5 % at p50 and ±15 % at p99 would take.

Settings: placement and polling (default, apart, together, busy, apart-busy), one server kept
for the whole run instead of one per trial (kept), the trial's length (1s, 5s), and the lag
check's old threshold (lag1ms).

Trials are judged with max_lag_p99 = 20ms (the tool's default since 2026-12-05; at the 1 ms it
used to be, most trials on this 2-core host were called saturated).

usage: bench/variance_sources.py [--build DIR] [--runs 3] [--blocks 8]
                                 [--settings default,apart,together,busy,apart-busy,kept,1s,5s,
                                             lag1ms]
                                 [--json FILE]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Each setting: what `run --set` changes, and what it says.
SETTINGS = {
    "default": ([], "unpinned, threads sleep (the tool's defaults)"),
    "apart": (["client_cpus=0", "server_cpus=1"], "client on CPU 0, server on CPU 1"),
    "together": (["client_cpus=0", "server_cpus=0"], "client and server share CPU 0"),
    "busy": (["busy_poll=true"], "unpinned, the client busy-polls"),
    "apart-busy": (["client_cpus=0", "server_cpus=1", "busy_poll=true"],
                   "apart, and the client busy-polls"),
    # The trial's length: does the between-trial variance shrink with longer trials (the
    # moment averaged out), or stay (stats/trial_plan.h's model, which AdviseTrialLength uses)?
    # Per-process state: one server for the whole run (the embedded server started once with
    # `serve`, the run pointed at it with --target) instead of a server started for each trial.
    "kept": (["@kept"], "one server kept for the run (serve + --target)"),
    "1s": (["duration=1s"], "trials of 1 s"),
    "5s": (["duration=5s"], "trials of 5 s"),
    # The lag check as it was before 2026-12-05: the design effect of the trials it let pass.
    "lag1ms": (["max_lag_p99=1ms"], "trials judged at max_lag_p99 = 1ms (the old default)"),
}
# What a stopping study is asked by default here (scenarios.md): the hybrid's p50 to ±5 % and
# its p99 to ±15 % of the baseline — the blocks each needs at this setting's spread of block
# differences, by the normal approximation n = (1.96 · SD / target)².
TARGET_PCT = {"p50": 5.0, "p99": 15.0}

# The quick study's load (scenarios/quick.toml), which bench/block_order.py shares.
QUICK_LOAD = """[tls]
chain = "ecdsa-p256"
[load]
rate = 200
duration = "2s"
warmup = "1s"
"""
SCENARIO = """title = "variance sources: the quick study's fresh arms"
""" + QUICK_LOAD + """mode = "fresh"
max_lag_p99 = "20ms"
[trials]
count = {blocks}
seed = 11
[matrix]
group = ["X25519", "X25519MLKEM768"]
"""


def corr(xs, ys):
    if len(xs) < 3:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / (sxx * syy) ** 0.5


def analyse(summary):
    """One run's numbers: per arm DE and level, and the drift measures over both arms."""
    out = {"arms": {}}
    by_block = {}
    for arm in summary["arms"]:
        hs = arm["phases"]["handshake"]
        var = hs.get("variance", {})
        trials = [t for t in summary["trials"] if t["arm"] == arm["id"] and t["valid"]]
        p50s = [t["handshake_p50"] for t in trials]
        level = statistics.median(p50s) if p50s else None
        reasons = [r.split(":")[0] for t in summary["trials"]
                   if t["arm"] == arm["id"] and not t["valid"] for r in t.get("reasons", [])[:1]]
        out["arms"][arm["label"]] = {
            "invalid_because": sorted(set(reasons)),
            "valid_trials": len(trials),
            "trials": sum(1 for t in summary["trials"] if t["arm"] == arm["id"]),
            "de_p50": var.get("p50", {}).get("design_effect"),
            "de_p99": var.get("p99", {}).get("design_effect"),
            "between_pct_p50": (100 * statistics.stdev(p50s) / level
                                if len(p50s) >= 2 and level else None),
            "p50_us": level,
        }
        for t in trials:
            by_block.setdefault(t["block"], {})[arm["id"]] = t["handshake_p50"]
    ids = [a["id"] for a in summary["arms"]]
    pairs = [(b[ids[0]], b[ids[1]]) for _, b in sorted(by_block.items())
             if ids[0] in b and ids[1] in b]
    out["block_shared"] = corr([p[0] for p in pairs], [p[1] for p in pairs])
    # Neighbouring blocks: each block's mean relative to its arms' medians.
    levels = {i: statistics.median([b[i] for b in by_block.values() if i in b])
              for i in ids if any(i in b for b in by_block.values())}
    means = [statistics.fmean(b[i] / levels[i] for i in b) for _, b in sorted(by_block.items())]
    out["lag1"] = corr(means[:-1], means[1:]) if len(means) >= 4 else None
    # The paired difference a stopping study judges: per block, hybrid − X25519, in % of the
    # X25519 arm's level; its SD sets the blocks a question needs.
    for stat in ("p50", "p99"):
        key = f"handshake_{stat}"
        per = {}
        for t in summary["trials"]:
            if t["valid"] and t.get(key) is not None:
                per.setdefault(t["block"], {})[t["arm"]] = t[key]
        base = [b[ids[0]] for b in per.values() if ids[0] in b]
        diffs = [b[ids[1]] - b[ids[0]] for b in per.values() if ids[0] in b and ids[1] in b]
        sd = (100 * statistics.stdev(diffs) / statistics.median(base)
              if len(diffs) >= 3 and base else None)
        out[f"sd_diff_{stat}"] = sd
        out[f"blocks_{stat}"] = (1.96 * sd / TARGET_PCT[stat]) ** 2 if sd is not None else None
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_once(binary, scenario, sets, results):
    before = set(os.listdir(results)) if os.path.isdir(results) else set()
    cmd = [binary, "run", scenario, "--results", results]
    server = None
    for s in sets:
        if s == "@kept":
            port = free_port()
            ca = os.path.join(results, f"kept-ca-{port}.pem")
            os.makedirs(results, exist_ok=True)
            server = subprocess.Popen([binary, "serve", "--listen", f"127.0.0.1:{port}",
                                       "--groups", "X25519MLKEM768/X25519", "--write-ca", ca,
                                       "--duration", "30m"], cwd=ROOT,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):  # the CA file is written once the server listens
                if os.path.exists(ca) and os.path.getsize(ca) > 0:
                    break
                time.sleep(0.1)
            cmd += ["--target", f"127.0.0.1:{port}", "--ca", ca]
        else:
            cmd += ["--set", s]
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    seconds = time.monotonic() - started
    before.update(f for f in os.listdir(results) if f.startswith("kept-ca-"))
    made = sorted(set(os.listdir(results)) - before)
    if p.returncode not in (0, 1) or not made:
        sys.exit(f"variance_sources: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-2000:]}")
    with open(os.path.join(results, made[-1], "summary.json")) as f:
        return json.load(f), seconds


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, spec):
    if v is not None:
        return format(v, spec)
    width = "".join(c for c in spec.split(".")[0] if c.isdigit())
    return "—".rjust(int(width) if width else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument("--json", help="write every run's numbers here")
    args = ap.parse_args()
    names = args.settings.split(",")
    for n in names:
        if n not in SETTINGS:
            sys.exit(f"variance_sources: unknown setting '{n}' (valid: {', '.join(SETTINGS)})")
    if args.runs < 1 or args.blocks < 4:
        sys.exit("variance_sources: --runs must be ≥ 1 and --blocks ≥ 4 (a design effect needs "
                 "trials to vary over)")
    binary = os.path.join(args.build, "src", "pqc-bench")
    runs = {n: [] for n in names}
    with tempfile.TemporaryDirectory(prefix="variance-sources-") as tmp:
        scenario = os.path.join(tmp, "variance.toml")
        with open(scenario, "w") as f:
            f.write(SCENARIO.format(blocks=args.blocks))
        results = os.path.join(tmp, "results")
        for r in range(args.runs):
            order = names[r % len(names):] + names[:r % len(names)]
            for n in order:
                summary, seconds = run_once(binary, scenario, SETTINGS[n][0], results)
                numbers = analyse(summary)
                numbers["seconds"] = seconds
                numbers["block_s"] = seconds / args.blocks
                runs[n].append(numbers)
                print(f"round {r + 1}/{args.runs} {n:11} {seconds:5.0f} s  " + "  ".join(
                    f"{label}: DE p50 {fmt(a['de_p50'], '.1f')} p99 {fmt(a['de_p99'], '.1f')}"
                    f" p50 {fmt(a['p50_us'], '.0f')} µs ({a['valid_trials']}/{a['trials']} valid"
                    + (f"; invalid: {', '.join(a['invalid_because'])}" if a['invalid_because']
                       else "") + ")"
                    for label, a in numbers["arms"].items()), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)
    print(f"\nmedians over {args.runs} runs of {args.blocks} blocks (2 arms; 2 s trials unless "
          "the setting says):")
    print(f"{'setting':11} {'DE p50':>7} {'DE p99':>7} {'SD p50':>7} {'shared':>7} {'lag-1':>6}"
          f" {'p50 µs X25519':>14} {'hybrid':>7}  what")
    for n in names:
        arms = [a for run in runs[n] for a in run["arms"].values()]
        levels = [list(run["arms"].values()) for run in runs[n]]
        print(f"{n:11} {fmt(median_of([a['de_p50'] for a in arms]), '7.1f')}"
              f" {fmt(median_of([a['de_p99'] for a in arms]), '7.1f')}"
              f" {fmt(median_of([a['between_pct_p50'] for a in arms]), '6.1f')}%"
              f" {fmt(median_of([run['block_shared'] for run in runs[n]]), '7.2f')}"
              f" {fmt(median_of([run['lag1'] for run in runs[n]]), '6.2f')}"
              f" {fmt(median_of([l[0]['p50_us'] for l in levels]), '14.0f')}"
              f" {fmt(median_of([l[1]['p50_us'] for l in levels if len(l) > 1]), '7.0f')}"
              f"  {SETTINGS[n][1]}")
    print(f"\nthe hybrid's handshake difference per block (SD in % of X25519's p50), and what "
          f"±{TARGET_PCT['p50']:g} % at p50 and ±{TARGET_PCT['p99']:g} % at p99 would cost:")
    print(f"{'setting':11} {'block s':>7} {'SD p50':>7} {'blocks':>7} {'minutes':>8}"
          f" {'SD p99':>7} {'blocks':>7} {'minutes':>8}")
    for n in names:
        block_s = median_of([run["block_s"] for run in runs[n]])
        row = f"{n:11} {fmt(block_s, '7.1f')}"
        for stat in ("p50", "p99"):
            blocks = median_of([run[f"blocks_{stat}"] for run in runs[n]])
            minutes = blocks * block_s / 60 if blocks is not None and block_s else None
            row += (f" {fmt(median_of([run[f'sd_diff_{stat}'] for run in runs[n]]), '6.1f')}%"
                    f" {fmt(blocks, '7.0f')} {fmt(minutes, '8.1f')}")
        print(row)


if __name__ == "__main__":
    main()
