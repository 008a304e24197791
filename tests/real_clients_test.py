#!/usr/bin/env python3
"""real_clients_test.py PQC_BENCH CHROMIUM NODE WEB_MODULES OPENSSL — real browsers and TLS
libraries as clients (issue 17): what they negotiate with the three servers `serve` starts
(embedded, nginx, HAProxy; default groups, X25519MLKEM768 first), and what the observatory
(`serve --clients`) recorded of them. All on 127.0.0.1. Asserted:
- Debian's headless Chromium (tests/browser/fetch_tls.mjs, trusting exactly each server's leaf
  key) gets 200 "OK\\n" from every server over TLS 1.3, group X25519MLKEM768, cipher
  AES_128_GCM, as Chromium's own network stack reports them (CDP securityDetails); and over
  HTTP/3 from the embedded server, nginx and HAProxy (`serve [--nginx|--haproxy] --protocol
  h1,h3`, QUIC forced for their origins): protocol h3, QUIC, X25519MLKEM768, with no HTTP/3 error on the embedded
  server's side; and over HTTP/2 from the three (`serve [--nginx|--haproxy] --protocol h1,h2`):
  protocol h2 (Chromium offers ALPN h2 first), TLS 1.3, X25519MLKEM768, and no HTTP/2 error
  on the embedded server's side.
- The system's curl and Python (urllib; Debian's OpenSSL 3.0, no ML-KEM) get "OK\\n" from every
  server, verifying it against the CA `serve --write-ca` wrote.
- The set-up's OpenSSL 3.5 `s_client -sigalgs mldsa65` against an embedded server holding an
  ML-DSA-65 chain verifies it and gets "OK\\n".
- The embedded servers' SQLite files say what each client really did: Chromium sent an
  X25519MLKEM768 key share and negotiated it with TLS_AES_128_GCM_SHA256 and no
  HelloRetryRequest; curl and Python offered no post-quantum group and negotiated X25519;
  s_client negotiated the signature scheme mldsa65. `report --clients --format json` counts
  every Chrome connection as a PQ key share and every curl one as classical.
A missing tool fails the test (scripts/setup.sh installs them all; CI has them)."""
import base64
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FETCH_TLS = os.path.join(HERE, "browser", "fetch_tls.mjs")
PQ_GROUPS = ("X25519MLKEM768", "SecP256r1MLKEM768", "SecP384r1MLKEM1024", "MLKEM512",
             "MLKEM768", "MLKEM1024")
S_CLIENT_REQUEST = ("GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: openssl-s_client\r\n"
                    "Connection: close\r\n\r\n")


class Server:
    """One `pqc-bench serve …` child, its stdout in a file; stop() is SIGTERM, then its output."""

    def __init__(self, name, bench, args, work):
        self.name = name
        self.ca = os.path.join(work, f"{name}-ca.pem")
        self.out_path = os.path.join(work, f"{name}.out")
        self.proc = None
        argv = [bench, "serve", "--listen", "127.0.0.1:0", "--write-ca", self.ca, *args]
        with open(self.out_path, "w") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            text = self.output()
            found = re.search(r"listening on (127\.0\.0\.1:\d+) ", text)
            if found:
                self.address = found.group(1)
                self.url = f"https://{self.address}/"
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{name}: serve printed no 'listening on' line:\n{text}")
            time.sleep(0.05)

    def output(self):
        with open(self.out_path) as f:
            return f.read()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.output()


def python_fetch(url, ca):
    """urllib with cafile=ca; returns (body, TLS version, cipher, the leaf certificate's DER)."""
    seen = {}

    class Recording(ssl.SSLSocket):
        def do_handshake(self, *args, **kwargs):
            super().do_handshake(*args, **kwargs)
            seen["leaf"] = self.getpeercert(binary_form=True)
            seen["version"] = self.version()
            seen["cipher"] = self.cipher()[0]

    context = ssl.create_default_context(cafile=ca)
    context.sslsocket_class = Recording
    with urllib.request.urlopen(url, context=context, timeout=10) as response:
        body = response.read().decode()
    return body, seen["version"], seen["cipher"], seen["leaf"]


def spki_hash(openssl, leaf_der):
    """base64(SHA-256(SubjectPublicKeyInfo)): what --ignore-certificate-errors-spki-list takes."""
    pem = subprocess.run([openssl, "x509", "-inform", "DER", "-pubkey", "-noout"],
                         input=leaf_der, capture_output=True, check=True, timeout=10).stdout
    der = subprocess.run([openssl, "pkey", "-pubin", "-outform", "DER"], input=pem,
                         capture_output=True, check=True, timeout=10).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def curl_fetch(url, ca):
    """curl --cacert ca; returns (exit status, body, the 'SSL connection using' line)."""
    out = subprocess.run(["curl", "-sS", "-v", "--cacert", ca, url], capture_output=True,
                         text=True, timeout=20)
    using = re.search(r"SSL connection using (.*)", out.stderr)
    return out.returncode, out.stdout, using.group(1).strip() if using else out.stderr[-500:]


def missing_tools(paths):
    missing = [f"{what} not found at '{path}'" for what, path in paths
               if not path or not os.path.exists(path)]
    if not shutil.which("curl"):
        missing.append("curl not found on PATH")
    return missing


def rows(db_path):
    db = sqlite3.connect(db_path)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM client_connections ORDER BY id")]
    finally:
        db.close()


def check_browser(node, modules, chromium, servers, spkis, failures, quic=False, h2=False):
    """Chromium fetches every server's / once: over TLS over TCP, or with `quic` over HTTP/3
    (QUIC forced for those origins: Chromium's network stack then reports protocol h3 and, for
    the TLS inside QUIC, "QUIC" as the security protocol)."""
    forced = ["--quic", ",".join(s.address for s in servers)] if quic else []
    out = subprocess.run([node, FETCH_TLS, "--modules", modules, "--chromium", chromium,
                          "--spki", ",".join(spkis), *forced, *[s.url for s in servers]],
                         capture_output=True, text=True, timeout=90)
    try:
        result = json.loads(out.stdout)
    except json.JSONDecodeError:
        failures.append(f"fetch_tls.mjs exited {out.returncode} without a result:\n"
                        f"{out.stdout[-2000:]}{out.stderr[-3000:]}")
        return
    print(f"chromium: user agent {result.get('userAgent')}")
    if result.get("exception"):
        failures.append(f"chromium: {result['exception']}\n{out.stderr[-2000:]}")
    for server, fetch in zip(servers, result["fetches"]):
        if fetch.get("error"):
            failures.append(f"chromium ← {server.name}: {fetch['error']}")
            continue
        details = fetch.get("securityDetails") or {}
        got = (details.get("protocol"), details.get("keyExchangeGroup"), details.get("cipher"))
        print(f"chromium ← {server.name:8} status {fetch['status']} body {fetch['body']!r} "
              f"{fetch.get('protocol')} {got[0]} group {got[1]} cipher {got[2]}")
        if fetch["status"] != 200 or fetch["body"] != "OK\n":
            failures.append(f"chromium ← {server.name}: status {fetch['status']} body "
                            f"{fetch['body']!r}, expected 200 'OK\\n'")
        wanted = ("QUIC" if quic else "TLS 1.3", "X25519MLKEM768", "AES_128_GCM")
        # Over QUIC HAProxy's listener picks the suite in its own order (AES_256_GCM), not the
        # client's as its TCP bind is told to (prefer-client-ciphers): any TLS 1.3 AEAD then.
        ciphers = ("AES_128_GCM", "AES_256_GCM", "CHACHA20_POLY1305") if quic else (wanted[2],)
        if got[:2] != wanted[:2] or got[2] not in ciphers:
            failures.append(f"chromium ← {server.name}: negotiated {got}, expected {wanted[:2]} "
                            f"with one of {ciphers}")
        if quic and fetch.get("protocol") != "h3":
            failures.append(f"chromium ← {server.name}: HTTP version {fetch.get('protocol')!r}, "
                            f"expected 'h3'")
        if h2 and fetch.get("protocol") != "h2":
            failures.append(f"chromium ← {server.name}: HTTP version {fetch.get('protocol')!r}, "
                            f"expected 'h2'")
    if len(result["fetches"]) != len(servers):
        failures.append(f"chromium: {len(result['fetches'])} fetches, expected {len(servers)}")


def check_s_client(openssl, server, failures):
    out = subprocess.run([openssl, "s_client", "-quiet", "-connect", server.address,
                          "-sigalgs", "mldsa65", "-CAfile", server.ca, "-verify_return_error",
                          "-verify_ip", "127.0.0.1"],
                         input=S_CLIENT_REQUEST, capture_output=True, text=True, timeout=20)
    # text=True reads "\r\n" as "\n".
    ok = (out.returncode == 0 and out.stdout.startswith("HTTP/1.1 200 ")
          and out.stdout.endswith("\n\nOK\n"))
    print(f"s_client → {server.name}: exit {out.returncode}, response "
          f"{out.stdout.splitlines()[0] if out.stdout else '(none)'!r}")
    if not ok:
        failures.append(f"s_client → {server.name}: exit {out.returncode}, stdout "
                        f"{out.stdout[-500:]!r}, stderr {out.stderr[-1000:]!r}")


def check_recorded(name, output, db_path, failures):
    """The summary's 'clients' line and the rows of one embedded server's observatory."""
    found = re.search(r"clients\s+(\d+) connections recorded in (\S+)", output)
    if not found or found.group(2) != db_path:
        failures.append(f"{name}: no 'clients N connections recorded in {db_path}' line:\n"
                        f"{output}")
        return []
    recorded = rows(db_path)
    if int(found.group(1)) != len(recorded):
        failures.append(f"{name}: the summary says {found.group(1)} connections, the file "
                        f"holds {len(recorded)}")
    for r in recorded:
        print(f"{name} recorded: {r['user_agent'] or '(no request)':60.60} {r['outcome']} "
              f"hello {r['hello_bytes']} B in {r['hello_segments']} segment(s), key shares "
              f"{r['key_shares']}, negotiated {r['negotiated_group']} {r['signature_scheme']} "
              f"{r['cipher']}, hrr {r['hrr']}, resumed {r['resumed']}, "
              f"fingerprint {r['fingerprint']}")
    return recorded


def expect_rows(recorded, what, match, checks, failures):
    """Every row that matches: each check (column, predicate, wanted) holds."""
    mine = [r for r in recorded if match(r)]
    if not mine:
        failures.append(f"observatory: no row for {what}; user agents "
                        f"{[r['user_agent'] for r in recorded]}")
    for r in mine:
        if r["outcome"] != "ok":
            failures.append(f"observatory: {what}: outcome {r['outcome']} ({r['failure']})")
        for column, holds, wanted in checks:
            if not holds(r[column]):
                failures.append(f"observatory: {what}: {column} = {r[column]!r}, expected "
                                f"{wanted}")
    return mine


def check_observatory(recorded, recorded_mldsa, failures):
    no_pq = lambda groups: not set(groups.split(":")) & set(PQ_GROUPS)  # noqa: E731
    # Chromium may open a connection it sends no request on (resumed, so no signature
    # scheme): its ClientHello's fingerprint says whose it is.
    chrome = {r["fingerprint"] for r in recorded if "Chrome" in r["user_agent"]}
    expect_rows(recorded, "Chromium", lambda r: r["fingerprint"] in chrome, [
        ("key_shares", lambda v: "X25519MLKEM768" in v.split(":"), "to hold X25519MLKEM768"),
        ("negotiated_group", lambda v: v == "X25519MLKEM768", "X25519MLKEM768"),
        ("cipher", lambda v: v == "TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"),
        ("hrr", lambda v: v == 0, "0")], failures)
    for what, prefix in (("curl", "curl/"), ("Python", "Python-urllib/")):
        expect_rows(recorded, what, lambda r, p=prefix: r["user_agent"].startswith(p), [
            ("groups", no_pq, "no post-quantum group"),
            ("negotiated_group", lambda v: v == "X25519", "X25519"),
            ("hrr", lambda v: v == 0, "0")], failures)
    expect_rows(recorded_mldsa, "s_client", lambda r: r["user_agent"] == "openssl-s_client", [
        ("sigalgs", lambda v: "mldsa65" in v.split(":"), "to hold mldsa65"),
        ("signature_scheme", lambda v: v == "mldsa65", "mldsa65")], failures)


def check_report(bench, db_path, failures):
    text = subprocess.run([bench, "report", "--clients", db_path], capture_output=True,
                          text=True, timeout=30)
    if text.returncode != 0 or "Chrome" not in text.stdout:
        failures.append(f"report --clients exited {text.returncode}, Chrome "
                        f"{'listed' if 'Chrome' in text.stdout else 'not listed'}:\n"
                        f"{text.stdout[-2000:]}{text.stderr[-2000:]}")
    out = subprocess.run([bench, "report", "--clients", db_path, "--format", "json"],
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        failures.append(f"report --clients --format json exited {out.returncode}:\n"
                        f"{out.stderr[-2000:]}")
        return
    clients = json.loads(out.stdout)["clients"]
    for what, match, key in (("Chrome", lambda c: "Chrome" in c, "pq_key_share"),
                             ("curl", lambda c: c.startswith("curl/"), "classical")):
        mine = [c for c in clients if match(c["client"])]
        if not mine:
            failures.append(f"report json: no {what} client in {[c['client'] for c in clients]}")
        for c in mine:
            print(f"report: {c['client']}: {c['connections']} connections, {key} {c[key]}")
            if c[key] != c["connections"] or c["connections"] == 0:
                failures.append(f"report json: {c['client']}: {key} {c[key]}, connections "
                                f"{c['connections']}")


def main():
    if len(sys.argv) != 6:
        print(__doc__.splitlines()[0])
        return 2
    bench, chromium, node, modules, openssl = sys.argv[1:]
    missing = missing_tools([("pqc-bench", bench), ("Chromium", chromium), ("Node.js", node),
                             ("playwright-core", os.path.join(modules, "playwright-core")),
                             ("the set-up's OpenSSL", openssl)])
    if missing:
        print("FAIL: " + "; ".join(missing) + " (scripts/setup.sh installs Chromium, Node.js, "
              "the npm packages of web/package.json and OpenSSL; cmake finds them)")
        return 1
    started = time.monotonic()
    failures, servers = [], []
    with tempfile.TemporaryDirectory(prefix="pqc-real-clients-") as work:
        clients_db = os.path.join(work, "embedded.sqlite")
        mldsa_db = os.path.join(work, "mldsa.sqlite")
        try:
            embedded = Server("embedded", bench, ["--cert", "ecdsa-p256", "--clients", clients_db,
                                                  "--duration", "120s"], work)
            servers.append(embedded)
            for kind in ("nginx", "haproxy"):
                servers.append(Server(kind, bench, [f"--{kind}", "--work-dir",
                                                    os.path.join(work, kind)], work))
            servers.append(Server("mldsa", bench, ["--cert", "ml-dsa-65", "--clients", mldsa_db,
                                                   "--duration", "120s"], work))
            # HTTP/3: the embedded server on TCP and UDP, one port number.
            servers.append(Server("h3", bench, ["--protocol", "h1,h3", "--cert", "ecdsa-p256",
                                                "--duration", "120s"], work))
            for kind in ("nginx", "haproxy"):
                servers.append(Server(f"{kind}-h3", bench, [f"--{kind}", "--protocol", "h1,h3",
                                                            "--work-dir",
                                                            os.path.join(work, f"{kind}-h3")],
                                      work))
            # HTTP/2 beside HTTP/1.1 on TCP: the embedded server, nginx and HAProxy.
            servers.append(Server("h2", bench, ["--protocol", "h1,h2", "--cert", "ecdsa-p256",
                                                "--duration", "120s"], work))
            for kind in ("nginx", "haproxy"):
                servers.append(Server(f"{kind}-h2", bench, [f"--{kind}", "--protocol", "h1,h2",
                                                            "--work-dir",
                                                            os.path.join(work, f"{kind}-h2")],
                                      work))
            web, mldsa, h3, h2 = servers[:3], servers[3], servers[4:7], servers[7:10]
            spkis = []
            for s in web:
                body, version, cipher, leaf = python_fetch(s.url, s.ca)
                print(f"python   ← {s.name:8} body {body!r} {version} {cipher}")
                if body != "OK\n":
                    failures.append(f"python ← {s.name}: body {body!r}")
                spkis.append(spki_hash(openssl, leaf))
                rc, body, using = curl_fetch(s.url, s.ca)
                print(f"curl     ← {s.name:8} exit {rc} body {body!r} {using}")
                if rc != 0 or body != "OK\n":
                    failures.append(f"curl ← {s.name}: exit {rc}, body {body!r}: {using}")
            check_browser(node, modules, chromium, web, spkis, failures)
            h3_spkis = [spki_hash(openssl, python_fetch(s.url, s.ca)[3]) for s in h3]
            check_browser(node, modules, chromium, h3, h3_spkis, failures, quic=True)
            h2_spkis = [spki_hash(openssl, python_fetch(s.url, s.ca)[3]) for s in h2]
            check_browser(node, modules, chromium, h2, h2_spkis, failures, h2=True)
            check_s_client(openssl, mldsa, failures)
        finally:
            outputs = {s.name: s.stop() for s in servers}
        # The HTTP/3 server saw Chromium's QUIC connection through without an HTTP/3 error.
        for name in ("h3", "h2"):
            if re.search(r"errors\s+none", outputs[name]) is None:
                failures.append(f"{name} server: errors at stop:\n{outputs[name]}")
        recorded = check_recorded("embedded", outputs["embedded"], clients_db, failures)
        recorded_mldsa = check_recorded("mldsa", outputs["mldsa"], mldsa_db, failures)
        check_observatory(recorded, recorded_mldsa, failures)
        check_report(bench, clients_db, failures)
    print(f"took {time.monotonic() - started:.1f} s")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
