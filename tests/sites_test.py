#!/usr/bin/env python3
"""sites_test.py BIN — several client sites in one trial, and shards in separate client
namespaces (issue 18). Needs root (the emulated network); skips otherwise, saying so.

1. One process, a network of three sites (30, 70 and 150 ms of RTT): every site loads the
   target at once with a third of the arm's connections; each connection records its site.
   Checked from the SQLite file and summary.json: the sites' counts are equal and add up to
   the arm's; each site's connect and handshake take one of its own round trips (TCP's
   connect and a fresh TLS 1.3 handshake whose ECDSA flight fits the initial window); the
   trial's link record has each site's wire; summary.json is valid against the documented
   schema; `report` prints the table by site.
2. Three shards (`run --shard I/3`) on the same network: shard 0 makes the link, every shard
   loads from its own site's namespace (shard k = site k, so its connect time is site k's
   RTT); `merge` keeps every connection exactly once with its shard and site, and the merged
   trial's handshake percentiles are those of the union of the shards' raw rows.
3. Refusals: two shards for three sites, exit 2 saying how many are needed.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import jsonschema

# The sharded study's helpers: checks that print what passed, read-only queries, a free port.
from shard_test import check, free_port, percentile, rows

SITES = {"near": 30, "mid": 70, "far": 150}

SCENARIO = """title = "sites test"
[tls]
chain = "ecdsa-p256"
group = "X25519"
[load]
mode = "fresh"
rate = 30
duration = "3s"
warmup = "1s"
network = "regions"
# Three sites' threads, the server and the mover share two cores here: the schedule's lag is
# not what this test judges (the round trips are).
max_lag_p99 = "500ms"
max_link_late_p99 = "500ms"
[trials]
count = 1
seed = 11
[networks.near]
rtt = "30ms"
[networks.mid]
rtt = "70ms"
[networks.far]
rtt = "150ms"
[networks.regions]
sites = ["near", "mid", "far"]
"""


def median(values):
    v = sorted(values)
    return v[len(v) // 2]


def run_dirs(results):
    return sorted(p for p in pathlib.Path(results).iterdir() if p.is_dir())


def site_connects(db, where=""):
    """Median connect time in ms per site, from the raw rows."""
    out = {}
    for site, start, est in rows(db, "SELECT site, actual_start, tcp_established FROM connections "
                                 f"WHERE measured = 1 AND tcp_established > 0 {where}"):
        out.setdefault(site, []).append((est - start) / 1e6)
    return {k: median(v) for k, v in out.items()}


def one_process(bin_, tmp):
    proc = subprocess.run([bin_, "run", "scenario.toml"], cwd=tmp, capture_output=True,
                          text=True, timeout=300)
    check(proc.returncode == 0, f"run on three sites exits 0 (got {proc.returncode}): "
          f"{proc.stderr[-2000:]}")
    (d,) = run_dirs(tmp / "results")
    db = d / "results.sqlite"
    counts = dict(rows(db, "SELECT site, count(*) FROM connections WHERE measured = 1 "
                       "GROUP BY site"))
    check(sorted(counts) == [0, 1, 2], f"connections came from sites 0, 1 and 2: {counts}")
    # The arm's 30/s for 3 s: 90 measured connections, a third from each site.
    check(sum(counts.values()) == 90 and set(counts.values()) == {30},
          f"each site a third of the arm's 90 connections: {counts}")
    summary = json.loads((d / "summary.json").read_text())
    arm = summary["arms"][0]
    sites = arm["sites"]
    check([s["name"] for s in sites] == list(SITES), f"summary names the sites in order: "
          f"{[s['name'] for s in sites]}")
    check(sum(s["connections"] for s in sites) == arm["connections"],
          "the sites' connections add up to the arm's")
    for s in sites:
        rtt = SITES[s["name"]]
        check(s["rtt_ms"] == rtt, f"{s['name']}: RTT {s['rtt_ms']} ms stored")
        c, h = s["connect_round_trips"], s["handshake_round_trips"]
        # The emulator is never early and releases within tens of µs (docs/link.md): connect
        # is the RTT plus the kernel's work. The handshake adds both sides' ECDSA and X25519,
        # about 1-3 ms here (more under ASan): still 1 round trip, not 2.
        check(0.98 <= c <= 1.15, f"{s['name']}: connect {c:.3f} round trips (one RTT)")
        check(round(h) == 1 and h >= 0.98, f"{s['name']}: handshake {h:.3f} round trips")
        check(s["errors"] == 0, f"{s['name']}: no errors")
    # The documented schema holds the sites too (it forbids fields it does not list).
    schema = json.loads((pathlib.Path(__file__).parent.parent / "docs" /
                         "summary.schema.json").read_text())
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(summary)]
    check(not errors, f"summary.json with sites is valid against docs/summary.schema.json: "
          f"{errors[:5]}")
    trial = rows(db, "SELECT link_json, valid, reasons_json FROM trials")[0]
    link = json.loads(trial[0])
    check([w["site"] for w in link.get("sites", [])] == list(SITES) and
          all(w["packets"] > 0 for w in link["sites"]),
          "the trial's link record has each site's wire, each carried packets")
    html = (d / "report.html").read_text()
    check('id="sites"' in html and all(f"<td>{name}</td>" in html for name in SITES),
          "report.html has the table by client site")
    report = subprocess.run([bin_, "report", str(d.relative_to(tmp))], cwd=tmp,
                            capture_output=True, text=True, timeout=120)
    check(report.returncode == 0 and "by client site" in report.stdout and
          all(name in report.stdout for name in SITES),
          f"report prints the table by client site:\n{report.stdout[-1500:]}")


def sharded(bin_, tmp):
    port = free_port()
    procs = [subprocess.Popen([bin_, "run", "scenario.toml", "--shard", f"{i}/3", "--rendezvous",
                               f"127.0.0.1:{port}", "--results", "shards",
                               "--rendezvous-timeout", "60s", "--start-tolerance", "50ms"],
                              cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(3)]
    outs = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
        outs.append((p.returncode, e))
    for i, (code, err) in enumerate(outs):
        check(code == 0, f"shard {i} exits 0 (got {code}): {err[-1500:]}")
    dirs = sorted(run_dirs(tmp / "shards"), key=lambda p: p.name.rsplit("-shard-", 1)[1])
    check(len(dirs) == 3, f"three shard directories: {[d.name for d in dirs]}")
    for i, d in enumerate(dirs):
        db = d / "results.sqlite"
        got = rows(db, "SELECT DISTINCT site FROM connections")
        check(got == [(i,)], f"shard {i}'s connections all came from site {i}: {got}")
        rtt = list(SITES.values())[i]
        connect = site_connects(db)[i]
        check(rtt <= connect <= rtt * 1.15,
              f"shard {i} loaded from its own namespace: connect p50 {connect:.2f} ms at "
              f"{rtt} ms RTT")
    merge = subprocess.run([bin_, "merge", *[str(d.relative_to(tmp)) for d in dirs], "-o",
                            "merged"], cwd=tmp, capture_output=True, text=True, timeout=300)
    check(merge.returncode == 0, f"merge exits 0: {merge.stderr[-1500:]}")
    merged = tmp / "merged" / "results.sqlite"
    key = "site, thread, intended_start, actual_start, tcp_established, tls_done, closed, grp"
    union = []
    for i, d in enumerate(dirs):
        union += [(i,) + r for r in rows(d / "results.sqlite", f"SELECT {key} FROM connections")]
    got = rows(merged, f"SELECT shard, {key} FROM connections")
    check(sorted(got) == sorted(union) and len(got) == len(set(got)),
          f"every shard's connection is in the merged database exactly once, with its shard "
          f"and site ({len(got)} rows)")
    check(all(shard == site for shard, site, *_ in got), "in the merged file, shard k is site k")
    # The merged trial's pooled percentiles are those of the union of the shards' raw rows.
    measured = []
    for d in dirs:
        measured += rows(d / "results.sqlite", "SELECT tcp_established, tls_done FROM connections "
                         "WHERE measured = 1 AND tcp_established != 0 AND tls_done != 0")
    hs = sorted((done - est) / 1e3 for est, done in measured)
    (merged_summary,), = rows(merged, "SELECT summary_json FROM trials")
    phase = json.loads(merged_summary)["phases"]["handshake"]
    for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
        want = percentile(hs, q)
        check(abs(phase[key] - want) <= 1e-6 * max(1.0, abs(want)),
              f"merged handshake {key} {phase[key]:.3f} µs = the union's {want:.3f} µs")
    summary = json.loads((tmp / "merged" / "summary.json").read_text())
    sites = summary["arms"][0]["sites"]
    check([s["name"] for s in sites] == list(SITES) and all(s["connections"] > 0 for s in sites),
          f"the merged summary splits by site: {[(s['name'], s['connections']) for s in sites]}")


def refusals(bin_, tmp):
    proc = subprocess.run([bin_, "run", "scenario.toml", "--shard", "0/2", "--rendezvous",
                           f"127.0.0.1:{free_port()}"], cwd=tmp, capture_output=True, text=True,
                          timeout=60)
    check(proc.returncode == 2 and "network 'regions' of 3 sites" in proc.stderr and
          "needs 3 shards" in proc.stderr,
          f"two shards for three sites refused with exit 2 and how many are needed: "
          f"{proc.stderr.strip()[-400:]}")


def main():
    bin_ = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0:
        print("skipped: the emulated network needs root (network namespaces, TUN devices)")
        return 77
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="pqc-sites-test-"))
    try:
        (tmp / "scenario.toml").write_text(SCENARIO)
        refusals(bin_, tmp)
        one_process(bin_, tmp)
        sharded(bin_, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("sites test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
