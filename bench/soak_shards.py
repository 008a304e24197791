#!/usr/bin/env python3
"""soak_shards — the distributed path for half an hour: 3 shards, one stalled, one killed (issue 30).

Three `pqc-bench run --shard I/3` processes on this machine, with a rendezvous key, run a
study planned for longer than the soak (2 arms, X25519 and X25519MLKEM768, trials of
--trial-seconds). At --stall-at minutes shard 2 is stopped (SIGSTOP) for --stall-seconds and
continued; at --kill-at minutes shard 1 is killed (SIGKILL). Every 10 s the resident memory,
open descriptors and threads of each shard are sampled from /proc.

Checked (the verdict; exit 1 when any fails):
- the stall: shard 2's trials that straddle it are invalid ("after the start barrier" when
  stopped across a start, "load generator saturated: lag …" when stopped during the load), shard
  0 marks the same trials invalid ("shard(s) 2 measured an invalid trial"), and the study goes
  on: trials after the stall are valid again;
- the kill: shard 0 stores that trial invalid naming shard 1, stops the study and exits 1
  within two trials' time; shard 2 is told ("shard 0 stopped the study") and exits 1; no
  process of the study is left (shard 0's embedded targets included);
- merge: one database holding every connection the three shards stored, its last trial
  naming shard 1;
- memory: shard 0's resident memory after the first fifth of the soak grows by less than
  10 % to its end (a leak over 70 trials would show).

usage: bench/soak_shards.py [--build DIR] [--minutes 30] [--stall-at 10] [--kill-at 28]
                            [--stall-seconds 45] [--trial-seconds 20] [--rate 60] [--keep DIR]
                            [--json FILE]
       bench/soak_shards.py --recheck WORK   (the databases' checks again, on a kept soak)
"""
import argparse
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SCENARIO = """title = "soak of three shards"
[tls]
chain = "ecdsa-p256"
[load]
rate = {rate}
duration = "{seconds}s"
warmup = "2s"
# Three shards and their target share this machine's cores: lateness of milliseconds is the
# machine's, not what the soak is about.
max_lag_p99 = "500ms"
max_link_late_p99 = "500ms"
[trials]
count = {count}
seed = 30
[matrix]
group = ["X25519", "X25519MLKEM768"]
"""


def sample(pid):
    try:
        out = {"fds": len(os.listdir(f"/proc/{pid}/fd"))}
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "Threads"):
                    out[k] = int(v.split()[0])
        return out
    except OSError:
        return None


def rows(db, sql):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def check_databases(bin_, work, check):
    """The soak's verdict from its databases: the stall's trials, the kill's, the merge."""
    results = os.path.join(work, "results")
    dirs = sorted(os.path.join(results, d) for d in os.listdir(results))
    by_shard = {int(d.rsplit("-shard-", 1)[1].split("-of-")[0]): d for d in dirs}
    db = {i: os.path.join(d, "results.sqlite") for i, d in by_shard.items()}
    trials = {i: rows(db[i], "SELECT seq, valid, reasons_json FROM trials ORDER BY seq")
              for i in db}
    # A stall shows as a late start (stopped across the start instant) or as the schedule's lag
    # (stopped during the load: "load generator saturated: lag p99 …").
    late = [seq for seq, valid, r in trials[2]
            if not valid and ("after the start barrier" in r or "saturated" in r)]
    check(bool(late), f"shard 2's trials around the stall are invalid (late or lagging): {late}")
    lead = {seq: (valid, r) for seq, valid, r in trials[0]}
    marked = [seq for seq in late if seq in lead and not lead[seq][0] and
              "shard(s) 2 measured an invalid trial" in lead[seq][1]]
    check(late and set(marked) == set(s for s in late if s in lead),
          f"shard 0 marks the same trials invalid: {marked}")
    later_valid = [seq for seq, valid, _ in trials[0] if late and seq > max(late) and valid]
    check(len(later_valid) >= 3, f"the study went on after the stall: {len(later_valid)} valid "
          "trials of shard 0 after it")
    last_seq, last_valid, last_reasons = trials[0][-1]
    check(not last_valid and "lost shard 1" in last_reasons,
          f"shard 0's last trial ({last_seq}) is invalid, naming shard 1")
    stored = {i: rows(db[i], "SELECT count(*) FROM connections")[0][0] for i in db}
    merged = os.path.join(work, "merged")
    shutil.rmtree(merged, ignore_errors=True)
    m = subprocess.run([bin_, "merge", *dirs, "-o", merged], capture_output=True, text=True)
    mdb = os.path.join(merged, "results.sqlite")
    check(os.path.exists(mdb), f"merge makes a database (exit {m.returncode}: "
          f"{m.stderr.strip().splitlines()[-1] if m.stderr.strip() else ''})")
    merged_n = rows(mdb, "SELECT count(*) FROM connections")[0][0] if os.path.exists(mdb) else 0
    check(merged_n == sum(stored.values()),
          f"the merged database holds every stored connection: {merged_n} = "
          f"{' + '.join(str(stored[i]) for i in sorted(stored))}")
    if os.path.exists(mdb):
        (mr,), = rows(mdb, "SELECT reasons_json FROM trials ORDER BY seq DESC LIMIT 1")
        check("shard 1" in mr, "the merged last trial names shard 1")

    return {"trials_stored": {i: len(v) for i, v in trials.items()},
            "trials_invalid": {i: sum(1 for _, ok, _ in v if not ok) for i, v in trials.items()},
            "stalled_trials_shard2": late, "connections_stored": stored,
            "connections_merged": merged_n}


def recheck(work, bin_):
    failures = []

    def check(ok, what):
        print(("ok: " if ok else "FAIL: ") + what, flush=True)
        if not ok:
            failures.append(what)

    print(json.dumps(check_databases(bin_, work, check), indent=1))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--stall-at", type=float, default=10)
    ap.add_argument("--stall-seconds", type=float, default=45)
    ap.add_argument("--kill-at", type=float, default=28)
    ap.add_argument("--trial-seconds", type=int, default=20)
    ap.add_argument("--rate", type=int, default=60)
    ap.add_argument("--keep", help="the work directory (default: a new temporary one)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--recheck", metavar="WORK", help="only the databases' checks, on a kept soak")
    a = ap.parse_args()
    if a.recheck:
        return recheck(a.recheck, os.path.join(a.build, "src", "pqc-bench"))
    if not a.stall_at + a.stall_seconds / 60 < a.kill_at <= a.minutes:
        sys.exit("soak_shards: need --stall-at + stall < --kill-at <= --minutes")
    bin_ = os.path.join(a.build, "src", "pqc-bench")
    work = a.keep or tempfile.mkdtemp(prefix="pqc-soak-shards-")
    os.makedirs(work, exist_ok=True)
    # Planned for longer than the soak: the kill, not the plan, ends it.
    count = int(a.minutes * 60 / (a.trial_seconds + 4) / 2) + 4
    scen = os.path.join(work, "soak.toml")
    with open(scen, "w") as f:
        f.write(SCENARIO.format(rate=a.rate, seconds=a.trial_seconds, count=count))
    key = os.path.join(work, "rendezvous.key")
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, os.urandom(32))
    os.close(fd)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    results = os.path.join(work, "results")
    logs = [open(os.path.join(work, f"shard-{i}.log"), "w") for i in range(3)]
    procs = [subprocess.Popen([bin_, "run", scen, "--shard", f"{i}/3", "--rendezvous",
                               f"127.0.0.1:{port}", "--rendezvous-key", key, "--results", results,
                               "--start-tolerance", "100ms"],
                              stdout=logs[i], stderr=subprocess.STDOUT, cwd=work)
             for i in range(3)]
    print(f"soak: 3 shards of {count} trials per arm in {work}; stall shard 2 at {a.stall_at} "
          f"min for {a.stall_seconds} s, kill shard 1 at {a.kill_at} min", flush=True)
    t0 = time.monotonic()
    samples = {i: [] for i in range(3)}
    events = {}
    stop = threading.Event()

    def sampler():
        while not stop.is_set():
            for i, p in enumerate(procs):
                if p.poll() is None:
                    got = sample(p.pid)
                    if got:
                        samples[i].append((time.monotonic() - t0, got))
            stop.wait(10)

    th = threading.Thread(target=sampler)
    th.start()
    try:
        time.sleep(max(0, a.stall_at * 60 - (time.monotonic() - t0)))
        events["stall_start_s"] = time.monotonic() - t0
        os.kill(procs[2].pid, signal.SIGSTOP)
        time.sleep(a.stall_seconds)
        os.kill(procs[2].pid, signal.SIGCONT)
        events["stall_end_s"] = time.monotonic() - t0
        print(f"soak: shard 2 stalled {events['stall_start_s']:.0f}–"
              f"{events['stall_end_s']:.0f} s", flush=True)
        time.sleep(max(0, a.kill_at * 60 - (time.monotonic() - t0)))
        events["kill_s"] = time.monotonic() - t0
        os.kill(procs[1].pid, signal.SIGKILL)
        print(f"soak: shard 1 killed at {events['kill_s']:.0f} s", flush=True)
        limit = 2 * (a.trial_seconds + 2) + 60
        ends = {}
        for i in (0, 2):
            try:
                procs[i].wait(timeout=max(1, limit - (time.monotonic() - events["kill_s"] - t0)))
            except subprocess.TimeoutExpired:
                pass
            ends[i] = time.monotonic() - t0
        procs[1].wait(timeout=10)
    finally:
        stop.set()
        th.join()
        hung = [i for i, p in enumerate(procs) if p.poll() is None]
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for f in logs:
            f.close()

    failures = []

    def check(ok, what):
        print(("ok: " if ok else "FAIL: ") + what, flush=True)
        if not ok:
            failures.append(what)

    text = [open(os.path.join(work, f"shard-{i}.log")).read() for i in range(3)]
    check(not hung, f"no shard hung after the kill (still running: {hung})")
    after = {i: ends[i] - events["kill_s"] for i in ends}
    check(all(v < limit for v in after.values()),
          f"shards 0 and 2 ended {after.get(0, -1):.1f} s and {after.get(2, -1):.1f} s after "
          f"the kill (limit {limit} s)")
    check(procs[0].returncode == 1 and "lost shard 1" in text[0],
          f"shard 0 exits 1 naming the lost shard (exit {procs[0].returncode})")
    check(procs[2].returncode == 1 and "shard 0 stopped the study" in text[2],
          f"shard 2 is told and exits 1 (exit {procs[2].returncode})")
    left = subprocess.run(["pgrep", "-f", results], capture_output=True, text=True).stdout.split()
    check(not left, f"no process of the study left (pgrep -f the results directory: {left})")

    db_figures = check_databases(bin_, work, check)
    rss = [(t, s["VmRSS"]) for t, s in samples[0]]
    warm = [v for t, v in rss if t >= 0.2 * events["kill_s"]]
    growth = (warm[-1] - warm[0]) / warm[0] if len(warm) >= 2 else 0.0
    check(len(warm) >= 2 and growth < 0.10,
          f"shard 0's resident memory after the warm-up: {warm[0] if warm else 0} → "
          f"{warm[-1] if warm else 0} KiB ({growth:+.1%})")
    fds = [s["fds"] for _, s in samples[0]]
    figures = {
        "minutes_run": events["kill_s"] / 60, "events_s": events,
        "ended_after_kill_s": after, **db_figures,
        "rss_kib_shard0": {"first": rss[0][1] if rss else 0, "after_warmup": warm[0] if warm else 0,
                           "last": warm[-1] if warm else 0, "max": max(v for _, v in rss) if rss else 0},
        "fds_shard0": {"min": min(fds) if fds else 0, "max": max(fds) if fds else 0},
        "failures": failures, "work": work,
    }
    print(json.dumps(figures, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
