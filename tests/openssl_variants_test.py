#!/usr/bin/env python3
"""openssl_variants_test — OpenSSL builds as things to compare, for real.

  errors CHECKOUT OPENSSL_PREFIX
      Bad PQC_OPENSSL values are refused by scripts/setup.sh with the value and what would be
      valid, non-zero: a word that is no version, a missing directory, a directory that is
      neither a source tree nor an install prefix, flags for a prefix, a source tree too old,
      and a source tree whose Configure fails (a real build failure, in seconds). Each runs
      against an empty cache of its own, so the real cache is never touched.
  across CHECKOUT PQC_BENCH_BIN
      `PQC_OPENSSL=3.6 scripts/build.sh --core release pqc-bench` (the tool alone, as the
      guide builds a variant: seconds once OpenSSL 3.6 and ccache are warm), then `probe --json` with this tree's binary (OpenSSL 3.5) and
      the 3.6 build's (skipped, 77, when this tree is the 3.6 variant itself), and `compare`
      of the two: the version facts differ, both probes list the
      same algorithms, and the comparison states what changed — or that no algorithm did —
      consistently in its JSON and its table, and `probe --compare` against the live 3.6 build
      agrees. The 3.6 nginx, when its peers were built (`PQC_OPENSSL=3.6 setup.sh peers`), is
      linked against 3.6.

Prints one line per check; exits 1 on the first failure. ctest label `openssl_variants`
(test.sh runs it in the release stage only: the ASan stage would build and run the same).
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(cmd, env=None, timeout=1500, cwd=None):
    p = subprocess.run(cmd, env={**os.environ, **(env or {})}, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def expect_refused(checkout, value, expected, flags="", then=""):
    """setup.sh with PQC_OPENSSL=value must exit non-zero naming the value and `expected`
    (and `then`, later in the same message)."""
    with tempfile.TemporaryDirectory(prefix="pqc-variant-") as cache:
        # (PQC_PREBUILT=0: a build in a cache of its own that fails in seconds is the point)
        env = {"PQC_BENCH_CACHE": cache, "PQC_OPENSSL": value, "PQC_OPENSSL_FLAGS": flags,
               "PQC_PREBUILT": "0"}
        rc, out, err = run([os.path.join(checkout, "scripts", "setup.sh")], env, timeout=300)
    if rc == 0:
        fail(f"PQC_OPENSSL={value} was accepted:\n{out}{err}")
    last = err.strip().splitlines()[-1] if err.strip() else ""
    named = f"PQC_OPENSSL={value}" in last or f"PQC_OPENSSL_FLAGS={flags}" in last
    if not named or expected not in last or then not in last.split(expected, 1)[-1]:
        fail(f"PQC_OPENSSL={value}: expected an error naming it and '{expected}', got:\n{err}")
    print(f"refused PQC_OPENSSL={value}{' PQC_OPENSSL_FLAGS=' + flags if flags else ''}: "
          f"exit {rc}: {last[:140]}")


def fake_tree(root, minor, configure):
    os.makedirs(root)
    with open(os.path.join(root, "VERSION.dat"), "w") as f:
        f.write(f"MAJOR=3\nMINOR={minor}\nPATCH=0\nPRE_RELEASE_TAG=dev\nBUILD_METADATA=\n")
    path = os.path.join(root, "Configure")
    with open(path, "w") as f:
        f.write(configure)
    os.chmod(path, 0o755)
    return root


def errors(checkout, prefix):
    valid = "valid: a version prefix that Debian 13 or unstable lists"
    expect_refused(checkout, "three-point-six", valid)
    expect_refused(checkout, "3.6-rc", valid)
    with tempfile.TemporaryDirectory(prefix="pqc-variant-tree-") as tmp:
        expect_refused(checkout, os.path.join(tmp, "missing"), "no such directory; " + valid)
        expect_refused(checkout, tmp, "neither an OpenSSL source tree (no Configure) nor an "
                       "install prefix")
        expect_refused(checkout, prefix, "is an install prefix, used as it is", flags="no-asm")
        old = fake_tree(os.path.join(tmp, "old"), 0, "#!/bin/sh\nexit 0\n")
        expect_refused(checkout, old, "is OpenSSL 3.0; pqc-bench needs 3.5 or newer")
        broken = fake_tree(os.path.join(tmp, "broken"), 9,
                           "#!/bin/sh\necho 'Configure: this tree does not build' >&2\nexit 1\n")
        expect_refused(checkout, broken, "3.9.0-dev from the source tree", then="configure "
                       "failed; see ")
        # Under PQC_PREBUILT=1 (test.sh's tests) a build the cache lacks is refused before it
        # starts, naming what is missing: no test compiles OpenSSL inside its timeout.
        fine = fake_tree(os.path.join(tmp, "fine"), 9, "#!/bin/sh\nexit 0\n")
        with tempfile.TemporaryDirectory(prefix="pqc-variant-") as cache:
            env = {"PQC_BENCH_CACHE": cache, "PQC_OPENSSL": fine, "PQC_PREBUILT": "1"}
            rc, out, err = run([os.path.join(checkout, "scripts", "setup.sh")], env, timeout=300)
        last = err.strip().splitlines()[-1] if err.strip() else ""
        if rc == 0 or "PQC_PREBUILT=1" not in last or "OpenSSL 3.9.0-dev from the source tree" \
                not in last or "test.sh's prepare step" not in last:
            fail(f"PQC_PREBUILT=1 with OpenSSL to build: expected a refusal naming it, got exit "
                 f"{rc}:\n{err}")
        print(f"refused a build under PQC_PREBUILT=1: exit {rc}: {last[:140]}")


def across(checkout, bin35):
    start = time.monotonic()
    rc, out, err = run([os.path.join(checkout, "scripts", "build.sh"), "--core", "release",
                        "pqc-bench"], {"PQC_OPENSSL": "3.6"}, cwd=checkout)
    if rc != 0:
        fail(f"PQC_OPENSSL=3.6 scripts/build.sh --core release pqc-bench: exit {rc}\n"
             f"{err[-3000:]}")
    tree = out.strip().splitlines()[-1]
    if os.path.basename(tree) != "build-openssl-3.6":
        fail(f"the 3.6 build tree is {tree}, expected build-openssl-3.6/")
    print(f"built the 3.6 variant in {time.monotonic() - start:.0f} s")
    bin36 = os.path.join(tree, "src", "pqc-bench")

    with tempfile.TemporaryDirectory(prefix="pqc-variant-probe-") as tmp:
        # Both probes at once (two cores; the test runs alone): each is 15-25 s of handshakes.
        files = [os.path.join(tmp, f"probe-{name}.json") for name in ("3.5", "3.6")]
        probes = [subprocess.Popen([binary, "probe", "--json"], stdout=open(path, "w"),
                                   stderr=subprocess.PIPE, text=True)
                  for binary, path in zip((bin35, bin36), files)]
        docs = []
        for name, p, path in zip(("3.5", "3.6"), probes, files):
            err = p.communicate(timeout=300)[1]
            if p.returncode != 0:
                fail(f"probe --json with the {name} build: exit {p.returncode}\n{err}")
            with open(path) as f:
                docs.append(json.load(f))
        a, b = docs
        if not b["openssl"].startswith("3.6."):
            fail(f"the 3.6 variant's probe says OpenSSL {b['openssl']}")
        if a["openssl"] == b["openssl"]:
            # test.sh run with PQC_OPENSSL=3.6: this tree is the variant itself.
            print(f"SKIP: this tree is built against OpenSSL {a['openssl']} too")
            sys.exit(77)
        for doc in docs:
            texts = [p["version"] for p in doc["build"]["providers"] if p["name"] == "default"]
            if texts != [doc["openssl"]]:
                fail(f"OpenSSL {doc['openssl']}: default provider versions {texts}")
        print(f"probed OpenSSL {a['openssl']} and {b['openssl']}")

        rc, out, err = run([bin35, "compare", files[0], files[1], "--format", "json"])
        if rc != 0:
            fail(f"compare of the two probes: exit {rc}\n{err}")
        c = json.loads(out)
        facts = {f["fact"]: f for f in c["facts"]}
        for fact in ("version", "version text", "provider default"):
            if not facts[fact]["differs"]:
                fail(f"the fact '{fact}' is the same in both builds: {facts[fact]}")
        if facts["version"]["values"] != [a["openssl"], b["openssl"]]:
            fail(f"version facts {facts['version']['values']}")
        if facts["platform"]["differs"]:
            fail(f"one machine, two platforms: {facts['platform']}")
        names = lambda doc: {(k, r["name"]) for k in ("groups", "signatures") for r in doc[k]}
        if names(a) != names(b) or c["only_in"] or c["common"] != len(names(a)):
            fail(f"the two builds' probes list other algorithms: {c['only_in']}, common "
                 f"{c['common']} of {len(names(a))}")
        # What changed, computed from the two probes here, must be what compare says.
        layers = ("primitive", "x509", "tls")
        expected = {}
        for kind in ("groups", "signatures"):
            rows_b = {r["name"]: r for r in b[kind]}
            for r in a[kind]:
                moved = [(l, r[l], rows_b[r["name"]][l]) for l in layers
                         if l in r and r[l] != rows_b[r["name"]][l]]
                if moved:
                    expected[r["name"]] = moved
        said = {ch["name"]: [(l["layer"], l["from"], l["to"]) for l in ch["layers"]]
                for ch in c["changes"] if ch["layers"]}
        if said != expected or c["algorithm_changed"] != bool(expected):
            fail(f"compare says {said} (algorithm_changed {c['algorithm_changed']}), the probes "
                 f"say {expected}")

        rc, table, err = run([bin35, "compare", files[0], files[1]])
        if rc != 0:
            fail(f"compare (table): exit {rc}\n{err}")
        if expected:
            for ch in c["changes"]:
                if ch["layers"] and ch["summary"] not in table:
                    fail(f"the table lacks '{ch['summary']}':\n{table}")
        elif "No algorithm changed" not in table:
            fail(f"no layer changed, and the table does not say so:\n{table}")
        headline = [l for l in table.splitlines() if "changed" in l][0]
        print("compare: " + headline + "".join("\n  " + ch["summary"] for ch in c["changes"]))

        rc, live, err = run([bin36, "probe", "--compare", files[0], "--format", "json"],
                            timeout=300)
        if rc != 0:
            fail(f"probe --compare with the 3.6 build: exit {rc}\n{err}")
        live = json.loads(live)
        if live["algorithm_changed"] != c["algorithm_changed"] or \
                live["builds"][1] != f"this build ({b['openssl']})":
            fail(f"probe --compare against the live 3.6 build disagrees: {live['builds']}, "
                 f"algorithm_changed {live['algorithm_changed']}")
        print(f"probe --compare: {live['builds'][0]} vs {live['builds'][1]}: agrees")

    cache = os.environ.get("PQC_BENCH_CACHE", os.path.expanduser("~/.cache/pqc-bench"))
    with open(os.path.join(cache, "env-openssl-3.6.sh")) as f:
        env = dict(line.strip().split("=", 1) for line in f if "=" in line)
    # The suite builds the variant's tool alone (its nginx, HAProxy and h2load were 5 minutes of
    # a cold run's critical path, and setup.sh checks `nginx -V` itself as it builds a peer,
    # the same code for every OpenSSL, the default's every cold run); a developer's cache
    # that has them is checked here.
    if not os.path.exists(env["PQC_NGINX"]):
        print("the 3.6 variant's nginx: not built (PQC_OPENSSL=3.6 ./scripts/setup.sh peers)")
        return
    rc, out, err = run([env["PQC_NGINX"], "-V"])
    if f"built with OpenSSL {b['openssl']}" not in out + err or "running with" in out + err:
        fail(f"the 3.6 variant's nginx: {out}{err}")
    print(f"the 3.6 variant's nginx is built with OpenSSL {b['openssl']}")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("errors", "across"):
        print(__doc__)
        return 2
    checkout = os.path.abspath(sys.argv[2])
    if sys.argv[1] == "errors":
        errors(checkout, sys.argv[3])
    else:
        across(checkout, sys.argv[3])
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
