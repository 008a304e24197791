#!/usr/bin/env python3
"""block_order — does running a question's two arms back to back make their difference steadier?
(issue 40; docs/methodology.md, "Why trials disagree", and scenarios.md, "The order within a
block").

The quick study's four arms (X25519 and X25519MLKEM768, fresh and resumed; 200 connections/s,
trials of 2 s after 1 s of warm-up), --blocks blocks per run, in two block orders run
alternately (the order of the two rotated every round, so a slow minute falls on both alike):

- shuffled: every block a full shuffle of the four arms (the order without [trials] adjacent);
- adjacent: [trials] adjacent = "group": each mode's two groups back to back.

From each run's summary.json, the per-block paired differences of the handshake p50 and p99 —
hybrid − X25519 at each mode (the group questions, which `adjacent` favours) and resume − fresh
at each group (the mode questions, which it does not) — in % of the baseline arm's median, each
run's mean difference taken out; pooled over the runs of a setting, their SD, and the blocks
±5 % at p50 and ±15 % at p99 would take by n = (1.96 · SD / target)². In the shuffled runs, the
group questions' differences are also split by how far apart the two trials ran (1, 2 or 3).

usage: bench/block_order.py [--build DIR] [--runs 3] [--blocks 16] [--json FILE]
       bench/block_order.py --from FILE   (the tables again, from a --json file)
"""
import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from variance_sources import QUICK_LOAD, TARGET_PCT, fmt, run_once  # noqa: E402

SCENARIO = """title = "block order: the quick study's arms"
""" + QUICK_LOAD + """[trials]
count = {blocks}
seed = {seed}
{adjacent}
[matrix]
group = ["X25519", "X25519MLKEM768"]
mode = ["fresh", "resume"]
"""
SETTINGS = {"shuffled": "", "adjacent": 'adjacent = "group"'}


def questions(summary):
    """Per question (factor, the other factor's value): (baseline arm id, other arm id)."""
    by = {}
    for arm in summary["arms"]:
        f = arm["factors"]
        by[(f["group"], f["mode"])] = arm["id"]
    return {("group", "fresh"): (by[("X25519", "fresh")], by[("X25519MLKEM768", "fresh")]),
            ("group", "resume"): (by[("X25519", "resume")], by[("X25519MLKEM768", "resume")]),
            ("mode", "X25519"): (by[("X25519", "fresh")], by[("X25519", "resume")]),
            ("mode", "X25519MLKEM768"): (by[("X25519MLKEM768", "fresh")],
                                         by[("X25519MLKEM768", "resume")])}


def analyse(summary):
    """One run: per question and statistic, the centred per-block differences (% of baseline)
    with the distance between the two trials."""
    out = {}
    trials = {}
    for t in summary["trials"]:
        trials.setdefault(t["block"], {})[t["arm"]] = t
    for q, (a, b) in questions(summary).items():
        for stat in ("p50", "p99"):
            key = f"handshake_{stat}"
            pairs = [(blk[a], blk[b]) for blk in trials.values()
                     if a in blk and b in blk and blk[a]["valid"] and blk[b]["valid"]
                     and blk[a].get(key) is not None and blk[b].get(key) is not None]
            if len(pairs) < 3:
                continue
            base = statistics.median(p[0][key] for p in pairs)
            diffs = [100 * (p[1][key] - p[0][key]) / base for p in pairs]
            mean = statistics.fmean(diffs)
            out[f"{q[0]}:{q[1]}:{stat}"] = [
                (d - mean, abs(p[1]["seq"] - p[0]["seq"]), len(pairs)) for d, p in zip(diffs, pairs)]
    return out


def variance(rows):
    """Pooled variance of centred differences (each run's question's mean removed: n − strata
    d.f.)."""
    dof = len(rows) - len({r[3] for r in rows})
    return sum(r[0] ** 2 for r in rows) / dof if dof > 0 else None


def ratio_interval(num, den, draws=4000, seed=40):
    """The ratio of two pooled variances and its 95 % percentile-bootstrap interval, resampling
    each run's differences within that run (the runs stay the strata)."""
    rng = random.Random(seed)

    def by_run(rows):
        runs = {}
        for r in rows:
            runs.setdefault(r[3], []).append(r)
        return list(runs.values())

    def resample(runs):
        return [rng.choice(run) for run in runs for _ in run]

    point = variance(num) / variance(den)
    a, b = by_run(num), by_run(den)
    ratios = sorted(variance(resample(a)) / variance(resample(b)) for _ in range(draws))
    return point, ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=16)
    ap.add_argument("--json", help="write every run's differences here")
    ap.add_argument("--from", dest="source", help="no runs: the tables from a --json file")
    args = ap.parse_args()
    if args.runs < 1 or args.blocks < 4:
        sys.exit("block_order: --runs must be ≥ 1 and --blocks ≥ 4")
    binary = os.path.join(args.build, "src", "pqc-bench")
    # rows[setting][question:stat] = [(centred difference, distance, pairs, run number)]
    rows = {n: {} for n in SETTINGS}
    seconds = {n: [] for n in SETTINGS}
    if args.source:
        with open(args.source) as f:
            saved = json.load(f)
        rows, seconds = saved["rows"], saved["seconds"]
        args.runs = max(len(v) for v in seconds.values())
        args.blocks = saved["blocks"]
        report(rows, seconds, args)
        return
    with tempfile.TemporaryDirectory(prefix="block-order-") as tmp:
        results = os.path.join(tmp, "results")
        for r in range(args.runs):
            order = list(SETTINGS) if r % 2 == 0 else list(reversed(SETTINGS))
            for n in order:
                scenario = os.path.join(tmp, f"{n}-{r}.toml")
                with open(scenario, "w") as f:
                    f.write(SCENARIO.format(blocks=args.blocks, seed=100 + r, adjacent=SETTINGS[n]))
                summary, secs = run_once(binary, scenario, [], results)
                seconds[n].append(secs)
                for key, diffs in analyse(summary).items():
                    rows[n].setdefault(key, []).extend((d, dist, n_, r) for d, dist, n_ in diffs)
                valid = sum(t["valid"] for t in summary["trials"])
                print(f"round {r + 1}/{args.runs} {n:9} {secs:5.0f} s, {valid} of "
                      f"{len(summary['trials'])} trials valid", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "seconds": seconds, "blocks": args.blocks}, f)
    report(rows, seconds, args)


def report(rows, seconds, args):
    """The tables, from every run's centred differences."""

    def sd_of(rs):
        v = variance(rs)
        return math.sqrt(v) if v is not None else None

    def rows_of(setting, factor, stat, dist=None):
        # a run's question is the stratum: its mean difference was taken out
        return [(r[0], r[1], r[2], f"{r[3]}:{key}") for key, v in rows[setting].items()
                if key.startswith(factor + ":") and key.endswith(":" + stat)
                for r in v if dist is None or r[1] in dist]

    print(f"\nSD of the per-block paired handshake difference (% of the baseline's median; "
          f"{args.runs} runs × {args.blocks} blocks per setting, each run's mean removed), and "
          f"the blocks ±{TARGET_PCT['p50']:g} % at p50 / ±{TARGET_PCT['p99']:g} % at p99 take:")
    print(f"{'questions':16} {'stat':4} " + " ".join(f"{n:>9} {'blocks':>6}" for n in SETTINGS)
          + "  pairs")
    for factor in ("group", "mode"):
        for stat in ("p50", "p99"):
            line = f"{factor + ' (both)':16} {stat:4} "
            count = []
            for n in SETTINGS:
                rs = rows_of(n, factor, stat)
                sd = sd_of(rs)
                blocks = (1.96 * sd / TARGET_PCT[stat]) ** 2 if sd is not None else None
                line += f"{fmt(sd, '8.1f')}% {fmt(blocks, '6.0f')} "
                count.append(str(len(rs)))
            print(line + " " + "/".join(count))
    print("\nvariance ratio adjacent / shuffled (95 % bootstrap interval; < 1: adjacent steadier):")
    for factor in ("group", "mode"):
        for stat in ("p50", "p99"):
            a, b = rows_of("adjacent", factor, stat), rows_of("shuffled", factor, stat)
            if len(a) > 3 and len(b) > 3:
                point, lo, hi = ratio_interval(a, b)
                print(f"  {factor} {stat}: {point:.2f} [{lo:.2f}, {hi:.2f}]")
    print("\nshuffled runs, group questions, by distance between the two trials in the block:")
    for stat in ("p50", "p99"):
        rs = rows_of("shuffled", "group", stat)
        parts = []
        for dist in (1, 2, 3):
            sub = [r for r in rs if r[1] == dist]
            # each run's mean was taken out over all its blocks: n − 1 per run is close enough
            sd = math.sqrt(sum(r[0] ** 2 for r in sub) / len(sub)) if sub else None
            parts.append(f"{dist} apart {fmt(sd, '.1f')} % (n={len(sub)})")
        print(f"  {stat}: " + ", ".join(parts))
        near, far = rows_of("shuffled", "group", stat, {1}), rows_of("shuffled", "group", stat, {2, 3})
        if len(near) > 3 and len(far) > 3:
            point, lo, hi = ratio_interval(near, far)
            print(f"        variance ratio 1 apart / 2–3 apart: {point:.2f} [{lo:.2f}, {hi:.2f}]")
    print("\nseconds per run: " + ", ".join(
        f"{n} {statistics.median(s):.0f}" for n, s in seconds.items() if s))


if __name__ == "__main__":
    main()
