#!/usr/bin/env python3
"""slurm_test.py PQC_BENCH SOURCE_DIR — shards started by an existing scheduler: a private
one-machine Slurm cluster (tests/slurm_harness.py) runs

  (a) `srun -n 3`: three tasks, which see SLURM_PROCID 0, 1, 2 and SLURM_NTASKS 3 — what
      `pqc-bench run --shard slurm` takes its shard from;
  (b) the study: deploy/slurm/pqc-bench.sbatch through `sbatch --wait` with a short copy of
      scenarios/quick.toml. Three shard directories, each with its results.sqlite; a merged
      database holding every shard's connections (row counts add up, `shard` is 0, 1, 2);
      each shard's `run` row says which shard of 3 it was; `pqc-bench report` on the merge.

A binary without `run --shard` or `merge` fails (b): the deployment it would test cannot
work. Exit 77 (skipped) only when not root (slurmd must run job steps as their user).

SOURCE_DIR is the checkout (its scenarios/ and deploy/slurm/); a directory holding quick.toml
itself is accepted as the scenario directory too."""
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import slurm_harness  # noqa: E402

SHARDS = 3
# Short enough for a test on 2 cores, long enough that every shard records connections in
# every arm: 1 s measured after 1 s of warm-up, one trial per arm. Three shards and the
# target share 2 cores here, so their schedules lag by milliseconds: a trial judged on lag
# would be invalid, and a run with no valid trial exits 1. The lag is not what this test
# judges (the plumbing is), so its limit is raised and the rate kept low; so is the shards'
# start tolerance (10 ms by default): the test runs beside the release stage's other tests.
RUN_ARGS = ("--set duration=1s --set warmup=1s --trials 1 --set rate=60 "
            "--set max_lag_p99=5s --set max_link_late_p99=5s --start-tolerance 250ms")
JOB_TIMEOUT = 420  # s; ctest's TIMEOUT is 600 and the cluster takes seconds to start


class Failure(Exception):
    pass


def check(cond, what, detail=""):
    if not cond:
        raise Failure(f"{what}{': ' + detail if detail else ''}")
    print(f"  ok: {what}", flush=True)


def overcommit(cluster):
    # Three tasks on a machine with fewer CPUs pend forever unless they may share CPUs;
    # the node is declared with its real count (slurmd drains a node that claims more).
    if cluster.cpus < SHARDS:
        return ["--overcommit"]
    return []


def part_a(cluster):
    print(f"(a) srun -n {SHARDS}: one task per shard, each with its SLURM_PROCID", flush=True)
    started = time.monotonic()
    cmd = ["srun", "-n", str(SHARDS), *overcommit(cluster), "sh", "-c",
           'echo "task $SLURM_PROCID $SLURM_NTASKS"']
    out = cluster.run(cmd, timeout=60)
    check(out.returncode == 0, f"{' '.join(cmd)} exits 0",
          f"exit {out.returncode}\n{out.stdout}{out.stderr}")
    lines = [ln.split() for ln in out.stdout.splitlines() if ln.startswith("task ")]
    check(len(lines) == SHARDS, f"{SHARDS} tasks ran", f"output {out.stdout!r}")
    procids = sorted(int(ln[1]) for ln in lines)
    check(procids == list(range(SHARDS)), f"SLURM_PROCID values are {list(range(SHARDS))}",
          f"got {procids}")
    ntasks = {ln[2] for ln in lines}
    check(ntasks == {str(SHARDS)}, f"every task sees SLURM_NTASKS={SHARDS}", f"got {ntasks}")
    print(f"(a) passed in {time.monotonic() - started:.1f} s", flush=True)


def find_inputs(bench, source):
    src = pathlib.Path(source)
    quick = next((p for p in (src / "scenarios" / "quick.toml", src / "quick.toml")
                  if p.is_file()), None)
    if quick is None:
        raise Failure(f"no quick.toml in {src}/scenarios or {src}")
    here = pathlib.Path(__file__).resolve().parent.parent
    script = next((p for p in (src / "deploy" / "slurm" / "pqc-bench.sbatch",
                               here / "deploy" / "slurm" / "pqc-bench.sbatch")
                   if p.is_file()), None)
    if script is None:
        raise Failure(f"no deploy/slurm/pqc-bench.sbatch in {src} or {here}")
    if not os.access(bench, os.X_OK):
        raise Failure(f"{bench} is not an executable")
    return quick, script


def supports_shards(bench):
    """Fail (not skip) when the binary predates the sharded CLI: what (b) tests is missing."""
    run_help = subprocess.run([bench, "run", "--help"], capture_output=True, text=True,
                              timeout=30)
    if "--shard" not in run_help.stdout or "--rendezvous" not in run_help.stdout:
        raise Failure(f"{bench} run --help lists no --shard/--rendezvous: this binary cannot "
                      "run shards, so the Slurm study cannot run (build the tree that has "
                      "`run --shard`)")
    merge_help = subprocess.run([bench, "merge", "--help"], capture_output=True, text=True,
                                timeout=30)
    if merge_help.returncode != 0:
        raise Failure(f"{bench} merge --help exited {merge_help.returncode}: no `merge` "
                      f"command to join the shards\n{merge_help.stderr[-1000:]}")
    print(f"  ok: {bench} has run --shard/--rendezvous and merge", flush=True)


def count(db, sql):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def part_b(cluster, bench, source):
    print(f"(b) the study through deploy/slurm/pqc-bench.sbatch, {SHARDS} shards", flush=True)
    quick, script = find_inputs(bench, source)
    supports_shards(bench)
    work = pathlib.Path(tempfile.mkdtemp(prefix="pqc-slurm-study-"))
    try:
        scenario = work / "quick.toml"
        shutil.copyfile(quick, scenario)
        results = work / "results"
        job_out = work / "job.out"
        env = dict(cluster.env, PQC_BENCH=str(bench), PQC_SCENARIO=str(scenario),
                   PQC_RESULTS=str(results), PQC_RUN_ARGS=RUN_ARGS)
        cmd = ["sbatch", "--wait", *overcommit(cluster), f"--ntasks={SHARDS}",
               f"--output={job_out}", str(script)]
        print(f"  sbatch: {' '.join(cmd)} (PQC_RUN_ARGS={RUN_ARGS!r})", flush=True)
        started = time.monotonic()
        try:
            out = cluster.run(cmd, cwd=work, env=env, timeout=JOB_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Failure(f"sbatch --wait did not return in {JOB_TIMEOUT} s\n" +
                          tail(job_out) + cluster.logs())
        print(f"  job finished in {time.monotonic() - started:.1f} s", flush=True)
        check(out.returncode == 0, "sbatch --wait exits 0 (srun, merge and report succeeded)",
              f"exit {out.returncode}\n{out.stdout}{out.stderr}\n" + tail(job_out))
        print(tail(job_out, 3000), flush=True)

        job_dirs = sorted(p for p in results.glob("slurm-*") if p.is_dir())
        check(len(job_dirs) == 1, "one job directory under the results",
              f"found {[p.name for p in job_dirs]}")
        job_dir = job_dirs[0]
        # The recipe's rendezvous key: shard 0 required it, and it is gone after the job.
        log = job_out.read_text(errors="replace")
        check("each must prove the rendezvous key" in log,
              "shard 0 required the rendezvous key the recipe made", tail(job_out))
        check(not (job_dir / ".rendezvous.key").exists(),
              "the job's rendezvous key is removed after the shards")
        shards = sorted(p for p in job_dir.glob(f"*-shard-*-of-{SHARDS}") if p.is_dir())
        check(len(shards) == SHARDS, f"{SHARDS} shard directories",
              f"found {[p.name for p in shards]}")
        for i in range(SHARDS):
            check(any(p.name.endswith(f"-shard-{i}-of-{SHARDS}") for p in shards),
                  f"a directory of shard {i}")
        dbs = [p / "results.sqlite" for p in shards]
        for db in dbs:
            check(db.is_file(), f"{db.parent.name}/results.sqlite exists")
        merged = job_dir / "merged" / "results.sqlite"
        check(merged.is_file(), f"merged database {merged.relative_to(work)} exists")

        per_shard = [count(db, "SELECT COUNT(*) FROM connections")[0][0] for db in dbs]
        total = count(merged, "SELECT COUNT(*) FROM connections")[0][0]
        check(all(n > 0 for n in per_shard), "every shard recorded connections",
              f"{per_shard}")
        check(total == sum(per_shard),
              f"merged connections ({total}) = sum of the shards' ({' + '.join(map(str, per_shard))})",
              f"{total} != {sum(per_shard)}")
        values = {r[0] for r in count(merged, "SELECT DISTINCT shard FROM connections")}
        check(values == set(range(SHARDS)), f"merged connections.shard values are "
              f"{set(range(SHARDS))}", f"got {values}")
        index, counts = set(), set()
        for db in dbs:
            for shard_index, shard_count in count(db, "SELECT shard_index, shard_count FROM run"):
                index.add(shard_index)
                counts.add(shard_count)
        check(index == set(range(SHARDS)), f"shards' run.shard_index values are "
              f"{set(range(SHARDS))}", f"got {index}")
        check(counts == {SHARDS}, f"shards' run.shard_count is {SHARDS}", f"got {counts}")

        rep = subprocess.run([str(bench), "report", str(merged.parent)], capture_output=True,
                             text=True, timeout=120)
        check(rep.returncode == 0, f"{pathlib.Path(bench).name} report MERGED exits 0",
              f"exit {rep.returncode}\n{rep.stderr[-3000:]}")
        print("(b) passed", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tail(path, n=6000):
    try:
        text = pathlib.Path(path).read_text(errors="replace")
    except OSError:
        return f"(no job output at {path})\n"
    return f"----- job output ({path}) -----\n{text[-n:]}\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} PQC_BENCH SOURCE_DIR")
    slurm_harness.skip_unless_root()
    bench = str(pathlib.Path(sys.argv[1]).resolve())
    source = sys.argv[2]
    started = time.monotonic()
    try:
        with slurm_harness.SlurmCluster() as cluster:
            print(f"cluster up in {time.monotonic() - started:.1f} s", flush=True)
            part_a(cluster)
            part_b(cluster, bench, source)
    except (Failure, slurm_harness.SlurmError) as e:
        print(f"FAIL: {e}", flush=True)
        return 1
    print(f"PASS in {time.monotonic() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
