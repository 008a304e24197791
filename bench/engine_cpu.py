#!/usr/bin/env python3
"""engine_cpu — the measurement engine's own cost, side by side in one run (issue: serve/load).

For X25519 and X25519MLKEM768 with an ecdsa-p256 certificate, fresh handshakes, against
nginx (one worker) and the embedded server (one thread), both on 127.0.0.1:
  * client CPU per connection: `pqc-bench load --mode fresh` (which also sends a request and
    records every phase) vs `openssl s_time -new` from the same OpenSSL (no request);
  * server CPU per handshake, from the server process's own /proc accounting;
  * the crypto floor from `openssl speed` (keygen + decapsulation/agreement + ECDSA verify on
    the client, encapsulation/agreement + ECDSA sign on the server) and the ratios to it.
Ratios are what count: the machine is shared and noisy, so absolute numbers vary by run.

Each (server, group) cell is measured --rounds times in interleaved order and the median of
each number is reported, so that drift of a shared machine does not favour one cell.

usage: bench/engine_cpu.py [--build DIR] [--seconds N] [--rate R] [--rounds K]
"""
import argparse
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GROUPS = ["X25519", "X25519MLKEM768"]
TICK = os.sysconf("SC_CLK_TCK")


def cache_env():
    env_file = subprocess.run([os.path.join(ROOT, "scripts", "setup.sh")], check=True,
                              capture_output=True, text=True).stdout.strip().splitlines()[-1]
    values = dict(line.split("=", 1) for line in open(env_file).read().split())
    return values["PQC_OPENSSL_ROOT"], values["PQC_NGINX"]


def proc_cpu(pid):
    """User+sys CPU seconds of one process, from /proc (its own accounting)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Nginx:
    def __init__(self, nginx, workdir, chain, key, group):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(dir=workdir, prefix="nginx-")
        os.makedirs(os.path.join(self.dir, "logs"))  # opened before the configuration is read
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off; master_process on; worker_processes 1; user root;
pid {self.dir}/nginx.pid; error_log {self.dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{ access_log off;
  server {{ listen 127.0.0.1:{self.port} ssl; ssl_protocols TLSv1.3;
    ssl_certificate {chain}; ssl_certificate_key {key};
    ssl_session_tickets off; ssl_session_cache off;
    ssl_conf_command Groups {group};
    location / {{ return 200 "OK\\n"; }} }} }}
""")
        self.proc = subprocess.Popen([nginx, "-p", self.dir, "-c", conf],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        self.worker = None
        while time.time() < deadline and self.worker is None:
            time.sleep(0.1)
            kids = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True,
                                  text=True).stdout.split()
            self.worker = int(kids[0]) if kids else None
        if self.worker is None:
            sys.exit("nginx did not start: " + open(os.path.join(self.dir, "error.log")).read())

    def cpu(self):
        return proc_cpu(self.worker)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)


class Embedded:
    def __init__(self, binary, chain, key, group):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", f"127.0.0.1:{self.port}", "--threads", "1",
             "--cert-file", chain, "--key-file", key, "--groups", group, "--tickets", "off",
             "--cache", "off"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        if "listening" not in line:
            sys.exit("embedded server did not start: " + line)

    def cpu(self):
        return proc_cpu(self.proc.pid)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)


def run_s_time(openssl, port, group, seconds, workdir):
    conf = os.path.join(workdir, f"s_time-{group}.cnf")
    with open(conf, "w") as f:
        f.write("openssl_conf = init\n[init]\nssl_conf = ssl\n[ssl]\nsystem_default = sd\n"
                f"[sd]\nGroups = {group}\nMinProtocol = TLSv1.3\n")
    env = dict(os.environ, OPENSSL_CONF=conf)
    before = children_cpu()
    out = subprocess.run([openssl, "s_time", "-connect", f"127.0.0.1:{port}", "-new", "-time",
                          str(seconds)], env=env, capture_output=True, text=True).stdout
    cpu = children_cpu() - before
    m = re.search(r"(\d+) connections in ([\d.]+)s", out)
    if not m:
        sys.exit("could not read s_time's output:\n" + out)
    return int(m.group(1)), cpu


def run_load(binary, port, group, seconds, rate, workdir):
    js = os.path.join(workdir, f"load-{group}-{port}.json")
    before = children_cpu()
    subprocess.run([binary, "load", "--target", f"127.0.0.1:{port}", "--mode", "fresh",
                    "--rate", str(rate), "--duration", f"{seconds}s", "--warmup", "0s",
                    "--groups", group, "--json", js], stdout=subprocess.DEVNULL)
    cpu = children_cpu() - before
    j = json.load(open(js))
    return j["connections"], cpu, j


def crypto_floor(openssl):
    """µs of crypto per fresh handshake on each side, from `openssl speed`."""
    out = subprocess.run([openssl, "speed", "-seconds", "2", "-mr", "ecdsap256", "ecdhx25519",
                          "ML-KEM-768"], capture_output=True, text=True).stdout
    f4 = re.search(r"^\+F4:\d+:256:([\d.]+):([\d.]+)", out, re.M)
    f5 = re.search(r"^\+F5:\d+:253:([\d.]+)", out, re.M)
    # +F9:<index>:keygens/s:encaps/s:decaps/s (the KEM summary line)
    f9 = re.search(r"^\+F9:\d+:([\d.]+):([\d.]+):([\d.]+)", out, re.M)
    sign_us, verify_us = 1e6 / float(f4.group(1)), 1e6 / float(f4.group(2))
    x25519_us = 1e6 / float(f5.group(1))  # one scalar multiplication (keygen costs the same)
    keygen_us, encaps_us, decaps_us = (1e6 / float(f9.group(i)) for i in (1, 2, 3))
    return {
        "X25519": {"client": 2 * x25519_us + verify_us, "server": 2 * x25519_us + sign_us},
        "X25519MLKEM768": {"client": 2 * x25519_us + keygen_us + decaps_us + verify_us,
                           "server": 2 * x25519_us + encaps_us + sign_us},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rate", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    binary = os.path.join(args.build, "src", "pqc-bench")
    openssl_root, nginx = cache_env()
    openssl = os.path.join(openssl_root, "bin", "openssl")
    work = tempfile.mkdtemp(prefix="pqc-bench-engine-")
    subprocess.run([binary, "certs", "--sig", "ecdsa-p256", "--out", work], check=True,
                   stdout=subprocess.DEVNULL)
    chain, key = os.path.join(work, "chain.pem"), os.path.join(work, "leaf.key.pem")
    floor = crypto_floor(openssl)
    samples = []
    for _ in range(args.rounds):
        for server_kind in ("nginx", "embedded"):
            for group in GROUPS:
                srv = (Nginx(nginx, work, chain, key, group) if server_kind == "nginx"
                       else Embedded(binary, chain, key, group))
                try:
                    s0 = srv.cpu()
                    n_st, cpu_st = run_s_time(openssl, srv.port, group, args.seconds, work)
                    s1 = srv.cpu()
                    n_ld, cpu_ld, j = run_load(binary, srv.port, group, args.seconds, args.rate,
                                               work)
                    s2 = srv.cpu()
                finally:
                    srv.stop()
                samples.append({
                    "server": server_kind, "group": group,
                    "s_time_conns": n_st, "s_time_us": 1e6 * cpu_st / n_st,
                    "load_conns": n_ld, "load_us": 1e6 * cpu_ld / n_ld,
                    "load_threads_us": j["loadgen"]["cpu_us_per_connection"],
                    "valid": j["valid"],
                    "server_us_s_time": 1e6 * (s1 - s0) / n_st,
                    "server_us_load": 1e6 * (s2 - s1) / n_ld,
                    "floor_client": floor[group]["client"],
                    "floor_server": floor[group]["server"],
                })
    rows = []
    for server_kind in ("nginx", "embedded"):
        for group in GROUPS:
            cell = [r for r in samples if r["server"] == server_kind and r["group"] == group]
            row = {k: statistics.median(r[k] for r in cell) for k in cell[0]
                   if isinstance(cell[0][k], float) and not isinstance(cell[0][k], bool)}
            row.update(server=server_kind, group=group, valid=all(r["valid"] for r in cell))
            rows.append(row)
    print(f"{'server':9} {'group':15} {'s_time µs/conn':>15} {'load µs/conn':>13} "
          f"{'ratio':>6} {'floor':>6} {'server µs/hs':>13} {'srv floor':>9}  valid")
    for r in rows:
        print(f"{r['server']:9} {r['group']:15} {r['s_time_us']:15.1f} {r['load_us']:13.1f} "
              f"{r['s_time_us'] / r['load_us']:6.2f} {r['floor_client']:6.1f} "
              f"{r['server_us_load']:13.1f} {r['floor_server']:9.1f}  {r['valid']}")
    for group in GROUPS:
        ng = next(r for r in rows if r["server"] == "nginx" and r["group"] == group)
        em = next(r for r in rows if r["server"] == "embedded" and r["group"] == group)
        print(f"{group}: embedded/nginx server CPU per handshake = "
              f"{em['server_us_load'] / ng['server_us_load']:.3f}; "
              f"s_time/load client CPU = {ng['s_time_us'] / ng['load_us']:.2f}x (nginx), "
              f"{em['s_time_us'] / em['load_us']:.2f}x (embedded)")
    print(f"medians of {args.rounds} interleaved rounds; crypto floor from `openssl speed`")
    json.dump({"medians": rows, "samples": samples},
              open(os.path.join(work, "engine_cpu.json"), "w"), indent=2)
    print(f"raw: {os.path.join(work, 'engine_cpu.json')}")


if __name__ == "__main__":
    main()
