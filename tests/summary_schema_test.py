#!/usr/bin/env python3
"""summary_schema_test.py SCHEMA PQC_BENCH FIXTURE... — docs/summary.schema.json against the
summaries real runs write: every fixture (tests/data/summary_*.json), then the summary.json of
a short run made here, and `report --format json` of its database. A known-bad copy of a
fixture must be refused too, so that a schema that accepts anything cannot pass."""
import copy
import json
import pathlib
import subprocess
import sys
import tempfile

import jsonschema

SCENARIO = """title = "schema check"
[tls]
chain = "ecdsa-p256"
[load]
mode = "fresh"
rate = 50
duration = "1s"
warmup = "1s"
# The schedule's lag is not what this test judges: on a loaded machine (or under ASan) a 1 ms
# limit would leave no valid trial, and such a run exits 1.
max_lag_p99 = "5s"
max_link_late_p99 = "5s"
[trials]
count = 1
seed = 1
[matrix]
group = ["X25519", "X25519MLKEM768"]
"""


def problems(validator, document):
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(document)]


def main():
    schema_path, bench, *fixtures = sys.argv[1:]
    schema = json.loads(pathlib.Path(schema_path).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = False

    def check(name, document):
        nonlocal failed
        found = problems(validator, document)
        print(f"{name}: {'valid' if not found else 'INVALID'}")
        for p in found[:20]:
            print(f"  {p}")
        failed = failed or bool(found)

    for f in fixtures:
        check(f, json.loads(pathlib.Path(f).read_text()))

    bad = copy.deepcopy(json.loads(pathlib.Path(fixtures[0]).read_text()))
    bad["arms"][0]["phases"]["handshake"]["p50"] = "fast"
    bad["arms"][0]["cpu"]["surprise"] = 0
    if len(problems(validator, bad)) < 2:
        print("the schema accepted a mistyped p50 or an unknown field")
        failed = True

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "schema_check.toml").write_text(SCENARIO)
        run = subprocess.run([bench, "run", "schema_check.toml", "--results", "results"],
                             cwd=tmp, capture_output=True, text=True, timeout=240)
        if run.returncode != 0:
            print(f"pqc-bench run failed ({run.returncode}):\n{run.stderr[-3000:]}")
            return 1
        dirs = sorted((tmp / "results").glob("*-schema_check"))
        if len(dirs) != 1:
            print(f"expected one run directory, found {dirs}")
            return 1
        check("summary.json of a fresh run", json.loads((dirs[0] / "summary.json").read_text()))
        report = subprocess.run([bench, "report", str(dirs[0]), "--format", "json"],
                                capture_output=True, text=True, timeout=240)
        if report.returncode != 0:
            print(f"pqc-bench report failed ({report.returncode}):\n{report.stderr[-3000:]}")
            return 1
        check("report --format json of it", json.loads(report.stdout))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
