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
"""
import argparse
import json
import math
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from variance_sources import fmt, run_once  # noqa: E402  (one way to run a study and read it)

TARGET_PCT = {"p50": 5.0, "p99": 15.0}
SCENARIO = """title = "block order: the quick study's arms"
[tls]
chain = "ecdsa-p256"
[load]
rate = 200
duration = "2s"
warmup = "1s"
[trials]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=16)
    ap.add_argument("--json", help="write every run's differences here")
    args = ap.parse_args()
    if args.runs < 1 or args.blocks < 4:
        sys.exit("block_order: --runs must be ≥ 1 and --blocks ≥ 4")
    binary = os.path.join(args.build, "src", "pqc-bench")
    # rows[setting][question:stat] = [(centred difference, distance, run number)]
    rows = {n: {} for n in SETTINGS}
    seconds = {n: [] for n in SETTINGS}
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
            json.dump(rows, f)

    def sd_of(rs):
        dof = len(rs) - len({r[3] for r in rs})
        return math.sqrt(sum(r[0] ** 2 for r in rs) / dof) if dof > 0 else None

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
                rs = [r for key, v in rows[n].items() if key.startswith(factor + ":")
                      and key.endswith(":" + stat) for r in v]
                sd = sd_of(rs)
                blocks = (1.96 * sd / TARGET_PCT[stat]) ** 2 if sd is not None else None
                line += f"{fmt(sd, '8.1f')}% {fmt(blocks, '6.0f')} "
                count.append(str(len(rs)))
            print(line + " " + "/".join(count))
    print("\nshuffled runs, group questions, by distance between the two trials in the block:")
    for stat in ("p50", "p99"):
        rs = [r for key, v in rows["shuffled"].items() if key.startswith("group:")
              and key.endswith(":" + stat) for r in v]
        parts = []
        for dist in (1, 2, 3):
            sub = [r for r in rs if r[1] == dist]
            # each run's mean was taken out over all its blocks: n − 1 per run is close enough
            sd = math.sqrt(sum(r[0] ** 2 for r in sub) / len(sub)) if sub else None
            parts.append(f"{dist} apart {fmt(sd, '.1f')} % (n={len(sub)})")
        print(f"  {stat}: " + ", ".join(parts))
    print("\nseconds per run: " + ", ".join(
        f"{n} {statistics.median(s):.0f}" for n, s in seconds.items() if s))


if __name__ == "__main__":
    main()
