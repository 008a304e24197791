#!/usr/bin/env python3
"""speed_vs_openssl — `pqc-bench speed` against `openssl speed` of the same OpenSSL.

Both time the same primitives on one thread of this machine; pqc-bench through the EVP calls
a handshake makes (a fresh EVP_PKEY_CTX per operation, RSA-PSS, ECDH peer checks included),
`openssl speed` with its own loops (contexts prepared before the loop). So pqc-bench may be
somewhat slower on the cheapest operations; a large gap on an expensive one (ML-DSA, RSA) is
a bug in one of them. Prints one row per operation with both rates and their ratio.

`openssl speed -mr` lines used (one algorithm per invocation, so one line each):
  +F4:<i>:<bits>:<sign/s>:<verify/s>            ECDSA
  +F5:<i>:<bits>:<ops/s>:<s/op>                 ECDH (one derive)
  +F6:<i>:<bits>:<name>:<sign/s>:<verify/s>     EdDSA
  +F2:<i>:<bits>:<sign/s>:<verify/s>[:...]      RSA
  +F9:<i>:<keygen/s>:<encaps/s>:<decaps/s>      KEM (ML-KEM and the hybrids)
  +F10:<i>:<keygen/s>:<sign/s>:<verify/s>       signature algorithms (ML-DSA, SLH-DSA)

usage: bench/speed_vs_openssl.py [--build DIR] [--seconds S]
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# pqc-bench name → (openssl speed argument, parser of its line → {op: ops/s})
def f4(m): return {"sign": float(m[2]), "verify": float(m[3])}
def f5(m): return {"derive": float(m[2])}
def f6(m): return {"sign": float(m[3]), "verify": float(m[4])}
def f2(m): return {"sign": float(m[2]), "verify": float(m[3])}
def f9(m): return {"keygen": float(m[1]), "encaps": float(m[2]), "decaps": float(m[3])}
def f10(m): return {"keygen": float(m[1]), "sign": float(m[2]), "verify": float(m[3])}

ALGORITHMS = {
    "X25519": ("ecdhx25519", "F5", f5),
    "secp256r1": ("ecdhp256", "F5", f5),
    "X25519MLKEM768": ("X25519MLKEM768", "F9", f9),
    "SecP256r1MLKEM768": ("SecP256r1MLKEM768", "F9", f9),
    "MLKEM768": ("ML-KEM-768", "F9", f9),
    "MLKEM1024": ("ML-KEM-1024", "F9", f9),
    "ecdsa-p256": ("ecdsap256", "F4", f4),
    "ecdsa-p384": ("ecdsap384", "F4", f4),
    "ed25519": ("ed25519", "F6", f6),
    "rsa-2048": ("rsa2048", "F2", f2),
    "ml-dsa-44": ("ML-DSA-44", "F10", f10),
    "ml-dsa-65": ("ML-DSA-65", "F10", f10),
    "ml-dsa-87": ("ML-DSA-87", "F10", f10),
}


def cache_env():
    env_sh = subprocess.run([os.path.join(ROOT, "scripts", "setup.sh")], capture_output=True,
                            text=True, check=True).stdout.strip().splitlines()[-1]
    out = {}
    for line in open(env_sh):
        k, _, v = line.strip().partition("=")
        out[k] = v
    return out


def openssl_speed(openssl, arg, tag, parse, seconds):
    out = subprocess.run([openssl, "speed", "-mr", "-seconds", str(seconds), arg],
                         capture_output=True, text=True).stdout
    m = re.search(rf"^\+{tag}:(\d+):([^\n]*)$", out, re.M)
    if not m:
        sys.exit(f"openssl speed {arg}: no +{tag} line in:\n{out}")
    fields = [m.group(1)] + m.group(2).split(":")
    return parse(fields)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=float, default=1.0)
    args = ap.parse_args()
    env = cache_env()
    openssl = os.path.join(env["PQC_OPENSSL_ROOT"], "bin", "openssl")
    binary = os.path.join(args.build, "src", "pqc-bench")
    ours = json.loads(subprocess.run(
        [binary, "speed", "--json", "--seconds", f"{args.seconds}s", "--only",
         ",".join(ALGORITHMS)], capture_output=True, text=True, check=True).stdout)
    rate = {(e["algorithm"], e["op"]): e["ops_per_s"] for e in ours["entries"]}
    print(f"{ours['openssl']}; {args.seconds} s per operation on each side\n")
    print(f"{'algorithm':20} {'op':7} {'pqc-bench ops/s':>16} {'openssl ops/s':>14} {'ratio':>6}")
    for name, (arg, tag, parse) in ALGORITHMS.items():
        theirs = openssl_speed(openssl, arg, tag, parse, max(1, round(args.seconds)))
        for op, ops in theirs.items():
            mine = rate.get((name, op))
            if mine is None:
                continue
            print(f"{name:20} {op:7} {mine:16.1f} {ops:14.1f} {mine / ops:6.2f}")


if __name__ == "__main__":
    main()
