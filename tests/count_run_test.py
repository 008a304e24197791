#!/usr/bin/env python3
"""count_run_test.py PQC_BENCH — `pqc-bench count` as a user runs it, against known answers.

Four counts of real handshakes under callgrind (from a fresh directory, default results
directory): X25519 with tickets, the same without tickets, MLKEM768 resumed and X25519 over
HTTP/3. Each must add its
stages up to its total, attribute almost nothing ambiguously, repeat its total within 0.25 %
between repetitions (the A/A control: a count does not drift), put signing on the server alone
and verification on the client alone (and neither in a resumption), and agree with its primitives counted alone where the
stage is one primitive (the key exchange). Then `compare` must find the known difference — the
server's two tickets per handshake — with a gate that fails (exit 4), pass a gate on a stage
the tickets do not touch, and `report` must print a count result again. Bad input: a damaged
count.json, a mode count refuses and a gate on a stage that does not exist are refused (exit 2)
with what would be valid."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HANDSHAKES = 30


def count(bench, cwd, *args):
    out = subprocess.run([bench, "count", "--handshakes", str(HANDSHAKES),
                          "--warmup-connections", "5", "--repeat", "2", *args],
                         cwd=cwd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"count {args} exited {out.returncode}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
    if "server stage" not in out.stdout or "client stage" not in out.stdout:
        sys.exit(f"count {args}: no stage tables on stdout:\n{out.stdout}")
    dirs = sorted(p for p in (pathlib.Path(cwd) / "results").iterdir()
                  if p.name.startswith("count-"))
    return dirs[-1], json.loads((dirs[-1] / "count.json").read_text())


def stage(doc, side, name):
    for row in doc["sides"][side]["stages"]:
        if row["stage"] == name:
            return row
    sys.exit(f"no stage {name} on the {side}")


# The A/A bound: on a quiet machine the repetitions differ by 0.02–0.04 % (MLKEM768 resumed,
# 2026-12-07), but beside CI's other tests the server's by 0.100 % once (the event loop's work per
# handshake follows when bytes arrive: more wake-ups and partial reads on a busy machine), which
# failed a 0.1 % bound. 0.25 % is several times a busy machine's spread and a quarter of the
# smallest gate the docs show (`server.instructions > +1%`).
def check_counts(label, doc, failures, resumed=False, max_spread=0.0025):
    for side in ("client", "server"):
        s = doc["sides"][side]
        for rep, total in enumerate(s["instructions"]):
            parts = sum(row["instructions"][rep] for row in s["stages"])
            if abs(parts - total) > 0.01 * total:
                failures.append(f"{label} {side}: stages add up to {parts:.0f}, total {total:.0f}")
        if s["ambiguous_share"] > 0.01:
            failures.append(f"{label} {side}: {100 * s['ambiguous_share']:.1f} % attributed "
                            "ambiguously (over 1 %)")
        if s["spread"] > max_spread:
            failures.append(f"{label} {side}: repetitions differ by {100 * s['spread']:.3f} % "
                            f"(A/A: over {100 * max_spread} %)")
        if stage(doc, side, "kernel")["syscalls"] <= 0:
            failures.append(f"{label} {side}: no syscalls counted")
    if resumed:
        # A resumption has no CertificateVerify; its PSK binder is an HMAC (computed with
        # EVP_DigestSign), which is key schedule work, not signing.
        for side in ("client", "server"):
            for name in ("sign", "verify", "chain"):
                if stage(doc, side, name)["instructions_mean"] != 0:
                    failures.append(f"{label} {side}: {name} in a resumed handshake")
    else:
        if stage(doc, "server", "sign")["instructions_mean"] <= 0:
            failures.append(f"{label}: the server did not sign")
        if stage(doc, "client", "sign")["instructions_mean"] != 0:
            failures.append(f"{label}: the client signed")
        if stage(doc, "client", "verify")["instructions_mean"] <= 0:
            failures.append(f"{label}: the client did not verify")
        if stage(doc, "server", "verify")["instructions_mean"] != 0:
            failures.append(f"{label}: the server verified")
    for side in ("client", "server"):
        kex = stage(doc, side, "kex")
        floor = kex.get("floor_instructions")
        if not floor or abs(kex["instructions_mean"] - floor) > 0.05 * floor:
            failures.append(f"{label} {side}: key exchange {kex['instructions_mean']:.0f} "
                            f"against {floor} counted alone (over 5 % apart)")


def expect_refused(bench, cwd, args, needle, failures):
    out = subprocess.run([bench, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    if out.returncode != 2 or needle not in out.stderr:
        failures.append(f"{args}: exit {out.returncode}, stderr {out.stderr[-500:]!r} "
                        f"(expected exit 2 naming {needle!r})")


def main():
    bench = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory(prefix="pqc-count-") as tmp:
        with_tickets, a = count(bench, tmp, "--group", "X25519", "--chain", "ecdsa-p256",
                                "--time", "1s")
        without, b = count(bench, tmp, "--group", "X25519", "--chain", "ecdsa-p256",
                           "--set", "tickets=false", "--time", "1s")
        _, kem = count(bench, tmp, "--group", "MLKEM768", "--chain", "ecdsa-p256", "--mode",
                       "resume", "--no-time")
        for side in ("client", "server"):
            if not a["sides"][side].get("cpu_us_per_handshake", 0) > 0:
                failures.append(f"no native CPU per handshake for the {side}")
            if "cpu_us_per_handshake" in kem["sides"][side]:
                failures.append("--no-time timed natively all the same")
        check_counts("X25519", a, failures)
        check_counts("X25519 without tickets", b, failures)
        check_counts("MLKEM768 resumed", kem, failures, resumed=True)
        _, h3 = count(bench, tmp, "--group", "X25519", "--chain", "ecdsa-p256", "--protocol", "h3",
                      "--no-time")
        # Over QUIC the packets and acknowledgements depend on timing (ACK delay, probe
        # timeouts, a server loop woken by its timers): a few tenths of a percent, not 0.
        check_counts("X25519 over h3", h3, failures, max_spread=0.01)
        for side in ("client", "server"):
            if stage(h3, side, "record")["instructions_mean"] <= 0:
                failures.append(f"h3 {side}: no QUIC packets in the record layer")
        if stage(b, "server", "tickets")["instructions_mean"] > 0.1 * \
                stage(a, "server", "tickets")["instructions_mean"]:
            failures.append("the server without tickets still spends on tickets")
        print(f"server: {b['sides']['server']['instructions_mean']:.0f} instructions per "
              f"handshake without tickets, {a['sides']['server']['instructions_mean']:.0f} with")

        rel = lambda p: os.path.relpath(p, tmp)  # noqa: E731 — as a user types it
        cmp = subprocess.run([bench, "compare", rel(without), rel(with_tickets),
                              "--fail-if", "server.instructions > +1%"],
                             cwd=tmp, capture_output=True, text=True, timeout=120)
        if cmp.returncode != 4 or "gate 'server.instructions > +1%' failed" not in cmp.stderr:
            failures.append(f"the tickets' cost was not caught: exit {cmp.returncode}\n"
                            f"{cmp.stdout}\n{cmp.stderr}")
        if "µs of CPU per handshake natively" not in cmp.stdout:
            failures.append(f"compare did not put the time beside the count:\n{cmp.stdout}")
        if "session tickets" not in cmp.stdout:
            failures.append(f"compare printed no stage table:\n{cmp.stdout}")
        ok = subprocess.run([bench, "compare", rel(without), rel(with_tickets),
                             "--fail-if", "server.kex > +1%", "--fail-if", "client.sign > +1%"],
                            cwd=tmp, capture_output=True, text=True, timeout=120)
        if ok.returncode != 0:
            failures.append(f"gates on stages tickets do not touch failed: {ok.returncode}\n"
                            f"{ok.stdout}\n{ok.stderr}")
        rep = subprocess.run([bench, "report", rel(with_tickets)], cwd=tmp, capture_output=True,
                             text=True, timeout=120)
        if rep.returncode != 0 or "server stage" not in rep.stdout:
            failures.append(f"report of a count: exit {rep.returncode}\n{rep.stdout}{rep.stderr}")

        damaged = pathlib.Path(tmp) / "damaged"
        damaged.mkdir()
        doc = json.loads((with_tickets / "count.json").read_text())
        doc["sides"]["server"]["instructions"] = [1]
        (damaged / "count.json").write_text(json.dumps(doc))
        expect_refused(bench, tmp, ["compare", rel(with_tickets), "damaged"],
                       "one number per repetition", failures)
        expect_refused(bench, tmp, ["count", "--mode", "reuse"], "fresh, resume or early",
                       failures)
        expect_refused(bench, tmp, ["serve", "--count-control"], "under callgrind", failures)
        expect_refused(bench, tmp, ["compare", rel(without), rel(with_tickets), "--fail-if",
                                    "server.handshake > +1%"], "valid:", failures)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
