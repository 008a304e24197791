#!/usr/bin/env python3
"""k8s_manifest_test.py REPO_ROOT — static checks of the Kubernetes deployment (deploy/k8s/),
no cluster needed:

  pqc-bench-shards.yaml: a headless Service, an Indexed Job of shards, a ReadWriteMany
    PersistentVolumeClaim and a merge Job; the shard Job's completions = parallelism = N of
    `--shard k8s/N`; the rendezvous host is `<job>-0.<service>` with the Service's port, the
    pod template's subdomain is the Service, whose selector picks the shard pods (and not the
    merge pod); restartPolicy Never; `--results` lies on a mount of the claim; the merge Job
    runs `merge` and `report` on that claim; one image everywhere; requests = limits.
  Containerfile: FROM debian:12 (bookworm), runs scripts/build.sh (or setup.sh), ENTRYPOINT.

Every failure says what was expected and what was found; exit status 1 on any. The checks
are then run on altered copies of the manifest (completions != N, and others) and must fail
on each: a check that cannot fail checks nothing."""
import copy
import re
import shlex
import sys
from pathlib import Path

import yaml

MANIFEST = Path("deploy/k8s/pqc-bench-shards.yaml")
CONTAINERFILE = Path("deploy/k8s/Containerfile")
# Where the Containerfile puts the checkout (WORKDIR): a command path under it names a file of
# the repository.
IMAGE_CHECKOUT = "/opt/pqc-bench/"
SHELLS = {"sh", "/bin/sh", "bash", "/bin/bash"}
DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


class Checks:
    def __init__(self):
        self.failures = []

    def expect(self, what, expected, found, ok=None):
        """Records a failure unless ok (default: expected == found)."""
        if ok is None:
            ok = expected == found
        if not ok:
            self.failures.append(f"{what}: expected {expected}, found {found!r}")
        return ok


def pod_spec(job):
    return ((job.get("spec") or {}).get("template") or {}).get("spec") or {}


def pod_labels(job):
    return (((job.get("spec") or {}).get("template") or {}).get("metadata") or {}).get(
        "labels") or {}


def containers(job):
    spec = pod_spec(job)
    return (spec.get("initContainers") or []) + (spec.get("containers") or [])


def argv(container):
    """command + args; a `sh -c SCRIPT` is split into the script's words (and operators)."""
    words = [str(w) for w in (container.get("command") or []) + (container.get("args") or [])]
    if len(words) >= 3 and words[0] in SHELLS and words[1] == "-c":
        lexer = shlex.shlex(words[2], posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        return list(lexer)
    return words


def option(words, name):
    """The value of `name VALUE` or `name=VALUE`, None when absent."""
    for i, w in enumerate(words):
        if w == name and i + 1 < len(words):
            return words[i + 1]
        if w.startswith(name + "="):
            return w[len(name) + 1:]
    return None


def job_argv(job):
    return [w for c in containers(job) for w in argv(c)]


def check_manifest(docs, repo_root=None):
    """All checks of the manifest's documents; returns the failures (empty: all passed)."""
    c = Checks()
    docs = [d for d in docs if d is not None]
    for i, d in enumerate(docs):
        if not isinstance(d, dict) or "kind" not in d or "apiVersion" not in d:
            c.failures.append(f"document {i + 1}: expected an object with kind and apiVersion, "
                              f"found {str(d)[:80]!r}")
    docs = [d for d in docs if isinstance(d, dict)]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d.get("kind"), []).append(d)
    kinds = sorted(str(k) for k in by_kind)
    for kind, count in (("Service", 1), ("Job", 2), ("PersistentVolumeClaim", 1)):
        c.expect(f"number of {kind} documents", count, len(by_kind.get(kind, [])))
    versions = {"Service": "v1", "PersistentVolumeClaim": "v1", "Job": "batch/v1"}
    for d in docs:
        want = versions.get(d.get("kind"))
        name = (d.get("metadata") or {}).get("name")
        if want is None:
            c.failures.append(f"{d.get('kind')} {name}: expected only Service, Job and "
                              f"PersistentVolumeClaim documents, found kinds {kinds}")
            continue
        c.expect(f"{d['kind']} {name}: apiVersion", want, d.get("apiVersion"))
        c.expect(f"{d['kind']}: metadata.name, a DNS label of at most 63 characters",
                 "a name like 'pqc-bench'", name,
                 ok=isinstance(name, str) and DNS_LABEL.match(name) and len(name) <= 63)
    if c.failures and not all(by_kind.get(k) for k in versions):
        return c.failures  # the rest needs every kind

    jobs = by_kind["Job"]
    shard_jobs = [j for j in jobs if option(job_argv(j), "--shard") is not None]
    merge_jobs = [j for j in jobs if j not in shard_jobs]
    if not c.expect("Jobs running `pqc-bench run --shard ...` (the shards) and the other "
                    "(the merge)", "1 and 1", f"{len(shard_jobs)} and {len(merge_jobs)}",
                    ok=len(shard_jobs) == 1 and len(merge_jobs) == 1):
        return c.failures
    shard, merge = shard_jobs[0], merge_jobs[0]
    service, claim = by_kind["Service"][0], by_kind["PersistentVolumeClaim"][0]
    job_name = shard["metadata"]["name"]
    svc_name = service["metadata"]["name"]
    claim_name = claim["metadata"]["name"]
    spec = shard.get("spec") or {}
    words = job_argv(shard)

    # --- the shard count -------------------------------------------------------------------
    c.expect(f"Job {job_name}: spec.completionMode", "'Indexed'", spec.get("completionMode"),
             ok=spec.get("completionMode") == "Indexed")
    shard_arg = option(words, "--shard")
    m = re.fullmatch(r"k8s/(\d+)", shard_arg or "")
    if c.expect(f"Job {job_name}: --shard", "k8s/N", shard_arg, ok=m is not None):
        n = int(m.group(1))
        c.expect(f"Job {job_name}: spec.completions (= N of --shard {shard_arg})", n,
                 spec.get("completions"))
        c.expect(f"Job {job_name}: spec.parallelism (= N of --shard {shard_arg}: every shard "
                 f"runs at once)", n, spec.get("parallelism"))
        c.expect(f"Job {job_name}: N of --shard", "at least 2", n, ok=n >= 2)
        env = {e.get("name"): e.get("value") for ct in containers(merge)
               for e in (ct.get("env") or [])}
        if "PQC_SHARDS" in env:
            c.expect(f"Job {merge['metadata']['name']}: env PQC_SHARDS (= N of --shard "
                     f"{shard_arg})", repr(str(n)), env["PQC_SHARDS"],
                     ok=str(env["PQC_SHARDS"]) == str(n))
    c.expect(f"Job {job_name}: spec.backoffLimit", 0, spec.get("backoffLimit"))
    c.expect(f"Job {job_name}: `run` before --shard", "'run'", words,
             ok="run" in words and words.index("run") < words.index("--shard"))

    # --- rendezvous, DNS, the headless Service --------------------------------------------
    sspec = service.get("spec") or {}
    c.expect(f"Service {svc_name}: spec.clusterIP (headless)", "'None'", sspec.get("clusterIP"),
             ok=sspec.get("clusterIP") == "None")
    ports = [p.get("port") for p in (sspec.get("ports") or [])]
    rendezvous = option(words, "--rendezvous")
    leader = f"{job_name}-0.{svc_name}"
    m = re.fullmatch(r"(.+):(\d+)", rendezvous or "")
    if c.expect(f"Job {job_name}: --rendezvous", "HOST:PORT", rendezvous, ok=m is not None):
        c.expect(f"Job {job_name}: --rendezvous host (<job>-0.<service>)", repr(leader),
                 m.group(1), ok=m.group(1) == leader)
        c.expect(f"Service {svc_name}: ports (the rendezvous port {m.group(2)})",
                 f"[{m.group(2)}]", ports, ok=ports == [int(m.group(2))])
    serve = option(words, "--serve-host")
    c.expect(f"Job {job_name}: --serve-host (the leader's pod name)", repr(leader), serve,
             ok=serve == leader)
    def under(path, mounts):
        return path is not None and any(
            mp and (path == mp or path.startswith(mp.rstrip("/") + "/")) for mp in mounts)

    # The rendezvous key: a file on a Secret volume no other user can read (pqc-bench refuses
    # a key of another mode, and a key in the image or a ConfigMap would be no secret).
    key = option(words, "--rendezvous-key")
    secrets = {v.get("name"): v.get("secret") for v in pod_spec(shard).get("volumes") or []
               if v.get("secret")}
    key_mounts = [(m.get("mountPath"), secrets[m.get("name")]) for ct in containers(shard)
                  for m in ct.get("volumeMounts") or [] if m.get("name") in secrets]
    found = [sec for mp, sec in key_mounts if key and under(key, [mp])]
    if c.expect(f"Job {job_name}: --rendezvous-key under a mount of a Secret volume "
                f"(mounts {[mp for mp, _ in key_mounts]})", "a path on a Secret", key,
                ok=bool(found)):
        mode = found[0].get("defaultMode", 0o644)
        c.expect(f"Job {job_name}: the key Secret's defaultMode (no group or other bits)",
                 "0400 or 0600", oct(mode), ok=mode & 0o077 == 0)
    pspec = pod_spec(shard)
    c.expect(f"Job {job_name}: pod template subdomain (= the Service's name)", repr(svc_name),
             pspec.get("subdomain"), ok=pspec.get("subdomain") == svc_name)
    selector = sspec.get("selector") or {}
    labels = pod_labels(shard)
    c.expect(f"Service {svc_name}: selector (a non-empty subset of the shard pods' labels "
             f"{labels})", "matching labels", selector,
             ok=bool(selector) and all(labels.get(k) == v for k, v in selector.items()))
    mlabels = pod_labels(merge)
    c.expect(f"Service {svc_name}: selector must not pick the merge pods (labels {mlabels})",
             "no match", selector,
             ok=not selector or not all(mlabels.get(k) == v for k, v in selector.items()))

    # --- both Jobs: restart policy, image, resources, the results claim --------------------
    images = set()
    for job in (shard, merge):
        name = job["metadata"]["name"]
        p = pod_spec(job)
        c.expect(f"Job {name}: pod template restartPolicy", "'Never'", p.get("restartPolicy"),
                 ok=p.get("restartPolicy") == "Never")
        if not containers(job):
            c.failures.append(f"Job {name}: expected containers, found none")
        for ct in containers(job):
            cname = f"Job {name} container {ct.get('name')}"
            images.add(ct.get("image"))
            res = ct.get("resources") or {}
            req, lim = res.get("requests") or {}, res.get("limits") or {}
            c.expect(f"{cname}: resources.requests (= limits)", lim, req,
                     ok=bool(req) and req == lim)
            c.expect(f"{cname}: resources cpu and memory", "both", sorted(req),
                     ok={"cpu", "memory"} <= set(req))
            cmd = [str(w) for w in ct.get("command") or []]
            if repo_root is not None and cmd and cmd[0].startswith(IMAGE_CHECKOUT):
                f = Path(repo_root) / cmd[0][len(IMAGE_CHECKOUT):]
                c.expect(f"{cname}: command {cmd[0]} (a file of the checkout)",
                         "an executable file", str(f), ok=f.is_file() and f.stat().st_mode & 0o111)
    for ct in pod_spec(shard).get("containers") or []:
        cpu = str(((ct.get("resources") or {}).get("requests") or {}).get("cpu"))
        c.expect(f"Job {job_name} container {ct.get('name')}: CPU request in whole cores",
                 "an integer", cpu, ok=re.fullmatch(r"[1-9]\d*", cpu) is not None)
    c.expect("container images (one image in every container)", "exactly one", sorted(
        map(str, images)), ok=len(images) == 1 and None not in images)

    c.expect(f"PersistentVolumeClaim {claim_name}: accessModes", "['ReadWriteMany']",
             (claim.get("spec") or {}).get("accessModes"),
             ok="ReadWriteMany" in ((claim.get("spec") or {}).get("accessModes") or []))

    def claim_mounts(job):
        """mount paths of the job's containers backed by the claim"""
        vols = {v.get("name"): (v.get("persistentVolumeClaim") or {}).get("claimName")
                for v in pod_spec(job).get("volumes") or []}
        return [m.get("mountPath") for ct in containers(job) for m in ct.get("volumeMounts") or []
                if vols.get(m.get("name")) == claim_name]

    results = option(words, "--results")
    mounts = claim_mounts(shard)
    c.expect(f"Job {job_name}: --results under a mount of claim {claim_name} (mounts {mounts})",
             "a path under the claim", results, ok=under(results, mounts))
    c.expect(f"Job {job_name}: --results per shard", "$(JOB_COMPLETION_INDEX) in it", results,
             ok=results is not None and "$(JOB_COMPLETION_INDEX)" in results)

    mname = merge["metadata"]["name"]
    mwords = job_argv(merge)
    subcommands = [mwords[i + 1] for i, w in enumerate(mwords[:-1])
                   if w.rsplit("/", 1)[-1] == "pqc-bench"]
    c.expect(f"Job {mname}: pqc-bench subcommands", "'merge' then 'report'", subcommands,
             ok="merge" in subcommands and "report" in subcommands
             and subcommands.index("merge") < subcommands.index("report"))
    mounts = claim_mounts(merge)
    out = option(mwords, "-o") or option(mwords, "--out")
    c.expect(f"Job {mname}: merge -o under a mount of claim {claim_name} (mounts {mounts})",
             "a path under the claim", out, ok=under(out, mounts))
    if results is not None and "$(JOB_COMPLETION_INDEX)" in results:
        glob = results.replace("$(JOB_COMPLETION_INDEX)", "*").rstrip("/") + "/*/"
        c.expect(f"Job {mname}: the shards' run directories merged", repr(glob), mwords,
                 ok=glob in mwords)
    if out is not None:
        c.expect(f"Job {mname}: report of the merged directory", repr(out), mwords,
                 ok="report" in mwords and out in mwords[mwords.index("report"):])
    return c.failures


def check_containerfile(text):
    c = Checks()
    lines, cur = [], ""
    for raw in text.splitlines():  # instructions with their continuation lines joined
        if not cur and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        cur += raw.rstrip("\\").strip() + " " if raw.rstrip().endswith("\\") else raw.strip()
        if not raw.rstrip().endswith("\\"):
            lines.append(cur)
            cur = ""
    instr = [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1] if " " in ln else "")
             for ln in lines]
    froms = [rest.split()[0] for kw, rest in instr if kw == "FROM" and rest.split()]
    c.expect("Containerfile: FROM", "debian:12 or debian:bookworm (-slim allowed)", froms,
             ok=bool(froms) and re.fullmatch(r"(docker\.io/)?(library/)?debian:(12|bookworm)"
                                             r"(-slim)?(@sha256:[0-9a-f]{64})?", froms[0])
             is not None)
    runs = [rest for kw, rest in instr if kw == "RUN"]
    c.expect("Containerfile: a RUN of scripts/build.sh (or scripts/setup.sh)",
             "'scripts/build.sh'", runs,
             ok=any(re.search(r"scripts/(build|setup)\.sh", r) for r in runs))
    c.expect("Containerfile: the build of pqc-bench",
             "'scripts/build.sh [--setup PARTS] release pqc-bench'", runs,
             ok=any(re.search(r"scripts/build\.sh (--setup \S+ )?release pqc-bench", r)
                    for r in runs))
    env = " ".join(rest for kw, rest in instr if kw in ("ENV", "ARG"))
    c.expect("Containerfile: PQC_BENCH_CACHE set (ENV or ARG)", "PQC_BENCH_CACHE=/...", env,
             ok=re.search(r"PQC_BENCH_CACHE[= ]/", env) is not None)
    entry = [rest for kw, rest in instr if kw == "ENTRYPOINT"]
    c.expect("Containerfile: ENTRYPOINT", "one naming pqc-bench", entry,
             ok=bool(entry) and "pqc-bench" in entry[-1])
    return c.failures


# The altered copies that must fail: (what is changed, change).
def _shard(docs):
    return next(d for d in docs if d and d.get("kind") == "Job"
                and option(job_argv(d), "--shard") is not None)


def _merge(docs):
    return next(d for d in docs if d and d.get("kind") == "Job" and d is not _shard(docs))


def _kind(docs, kind):
    return next(d for d in docs if d and d.get("kind") == kind)


def _set_arg(docs, name, value):
    ct = pod_spec(_shard(docs))["containers"][0]
    args = ct["args"]
    args[args.index(name) + 1] = value


MUTATIONS = [
    ("completions differs from N", lambda d: _shard(d)["spec"].update(
        completions=_shard(d)["spec"]["completions"] + 1)),
    ("parallelism below completions", lambda d: _shard(d)["spec"].update(parallelism=1)),
    ("--shard k8s/N with another N", lambda d: _set_arg(d, "--shard", "k8s/5")),
    ("rendezvous host of another job", lambda d: _set_arg(
        d, "--rendezvous", "other-0." + _kind(d, "Service")["metadata"]["name"] + ":40000")),
    ("subdomain not the Service", lambda d: pod_spec(_shard(d)).update(subdomain="elsewhere")),
    ("Service not headless", lambda d: _kind(d, "Service")["spec"].pop("clusterIP")),
    ("NonIndexed", lambda d: _shard(d)["spec"].update(completionMode="NonIndexed")),
    ("requests below limits", lambda d: pod_spec(_shard(d))["containers"][0]["resources"][
        "requests"].update(cpu="1")),
    ("another claim", lambda d: pod_spec(_shard(d))["volumes"][0]["persistentVolumeClaim"]
     .update(claimName="other")),
    ("another image in the merge", lambda d: pod_spec(_merge(d))["containers"][0].update(
        image="example.org/other:1")),
    ("restartPolicy OnFailure", lambda d: pod_spec(_merge(d)).update(
        restartPolicy="OnFailure")),
    ("no PersistentVolumeClaim", lambda d: d.remove(_kind(d, "PersistentVolumeClaim"))),
    ("no --rendezvous-key", lambda d: _set_arg(d, "--rendezvous-key", "/results/key")),
    ("the key Secret readable by all", lambda d: pod_spec(_shard(d))["volumes"][1]["secret"]
     .update(defaultMode=0o444)),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    root = Path(sys.argv[1])
    failures = []
    try:
        docs = list(yaml.safe_load_all((root / MANIFEST).read_text()))
    except (OSError, yaml.YAMLError) as e:
        print(f"FAIL {MANIFEST}: expected a readable YAML stream, found: {e}")
        return 1
    failures += [f"{MANIFEST}: {f}" for f in check_manifest(docs, root)]
    try:
        failures += [f"{CONTAINERFILE}: {f}"
                     for f in check_containerfile((root / CONTAINERFILE).read_text())]
    except OSError as e:
        failures.append(f"{CONTAINERFILE}: expected a readable file, found: {e}")

    # The checks must be able to fail: each altered copy of a manifest that passes must fail.
    if not failures:
        for what, change in MUTATIONS:
            mutated = copy.deepcopy(docs)
            change(mutated)
            found = check_manifest(mutated, root)
            if found:
                print(f"self-check ({what}): detected: {found[0]}")
            else:
                failures.append(f"self-check: expected the checks to fail on a copy with "
                                f"{what}, found no failure")
    for f in failures:
        print(f"FAIL {f}")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print(f"ok: {MANIFEST} ({len([d for d in docs if d])} documents) and {CONTAINERFILE}; "
          f"{len(MUTATIONS)} altered copies all failed as they should")
    return 0


if __name__ == "__main__":
    sys.exit(main())
