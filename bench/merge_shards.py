#!/usr/bin/env python3
"""merge_shards — `pqc-bench merge` of 3 shards of 1,000,000 connections each (issue 18: under
10 s).

A real 3-shard study is run first (one arm, one trial, a few hundred connections per shard,
through the rendezvous on 127.0.0.1), so that the databases are what shards write. Each shard's
trial is then grown to --connections rows by copying its own connection and request rows
under new ids inside SQLite (the copies keep their timestamps: the merge's work per row is the
same, its statistics are those of repeated rows). Then `merge` is timed, end to end: reading
every row of every shard, the union's statistics, writing every row into the merged database,
and the summary files. The merged database is checked to hold every row exactly once.

usage: bench/merge_shards.py [--build DIR] [--connections 1000000] [--keep DIR]
"""
import argparse
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SCENARIO = """title = "merge benchmark"
[tls]
chain = "ecdsa-p256"
group = "X25519"
client_groups = "X25519"
[load]
rate = 150
duration = "2s"
warmup = "1s"
max_lag_p99 = "1s"
[trials]
count = 1
seed = 3
"""


def grow(db_path, target):
    con = sqlite3.connect(db_path)
    (trial,), = con.execute("SELECT id FROM trials").fetchall()
    n = con.execute("SELECT count(*) FROM connections WHERE trial_id = ?", (trial,)).fetchone()[0]
    span = con.execute("SELECT max(id) + 1 FROM connections").fetchone()[0]
    copies = -(-target // n) - 1  # so that n * (copies + 1) >= target
    conn_cols = [r[1] for r in con.execute("PRAGMA table_info(connections)")]
    req_cols = [r[1] for r in con.execute("PRAGMA table_info(requests)")]
    conn_sel = ", ".join(f"id + k.x * {span}" if c == "id" else f"c.{c}" for c in conn_cols)
    req_sel = ", ".join(f"conn_id + k.x * {span}" if c == "conn_id" else f"r.{c}"
                        for c in req_cols)
    with con:
        con.execute(f"WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM k WHERE x < "
                    f"{copies}) INSERT INTO connections SELECT {conn_sel} FROM connections c, k "
                    f"WHERE c.trial_id = {trial}")
        con.execute(f"WITH RECURSIVE k(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM k WHERE x < "
                    f"{copies}) INSERT INTO requests SELECT {req_sel} FROM requests r, k "
                    f"WHERE r.trial_id = {trial}")
        # Over the target by at most one copy: trim to exactly `target`.
        con.execute(f"DELETE FROM requests WHERE trial_id = {trial} AND conn_id IN (SELECT id "
                    f"FROM connections WHERE trial_id = {trial} ORDER BY id LIMIT -1 OFFSET "
                    f"{target})")
        con.execute(f"DELETE FROM connections WHERE trial_id = {trial} AND id IN (SELECT id FROM "
                    f"connections WHERE trial_id = {trial} ORDER BY id LIMIT -1 OFFSET {target})")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rows = con.execute("SELECT count(*) FROM connections").fetchone()[0]
    con.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--connections", type=int, default=1_000_000)
    ap.add_argument("--keep", help="keep the shard and merged databases in this directory")
    a = ap.parse_args()
    bin_ = os.path.join(a.build, "src", "pqc-bench")
    tmp = a.keep or tempfile.mkdtemp(prefix="pqc-merge-bench-")
    os.makedirs(tmp, exist_ok=True)
    scen = os.path.join(tmp, "merge.toml")
    with open(scen, "w") as f:
        f.write(SCENARIO)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    shards = os.path.join(tmp, "shards")
    procs = [subprocess.Popen([bin_, "run", scen, "--shard", f"{i}/3", "--rendezvous",
                               f"127.0.0.1:{port}", "--results", shards],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i in range(3)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        if p.returncode != 0:
            sys.exit(f"a shard failed ({p.returncode}):\n{err[-2000:]}")
    dirs = sorted(os.path.join(shards, d) for d in os.listdir(shards))
    t = time.monotonic()
    total = sum(grow(os.path.join(d, "results.sqlite"), a.connections) for d in dirs)
    print(f"shards grown to {total:,} connections in {time.monotonic() - t:.1f} s")
    out = os.path.join(tmp, "merged")
    shutil.rmtree(out, ignore_errors=True)
    t = time.monotonic()
    m = subprocess.run([bin_, "merge", *dirs, "-o", out], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    secs = time.monotonic() - t
    if m.returncode != 0:
        sys.exit(f"merge failed ({m.returncode}):\n{m.stderr[-2000:]}")
    con = sqlite3.connect(os.path.join(out, "results.sqlite"))
    merged = con.execute("SELECT count(*) FROM connections").fetchone()[0]
    per_shard = con.execute("SELECT shard, count(*) FROM connections GROUP BY shard").fetchall()
    con.close()
    assert merged == total, f"merged {merged} rows, the shards hold {total}"
    print(f"merge of 3 shards, {total:,} connections: {secs:.2f} s (target < 10 s) — "
          f"{'PASS' if secs < 10 else 'FAIL'}; rows per shard {per_shard}")
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if secs < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
