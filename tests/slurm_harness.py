"""slurm_harness — a one-machine Slurm cluster for tests, started in a fresh temporary
directory and torn down afterwards, also when the test fails.

    with SlurmCluster() as cluster:
        subprocess.run(["srun", "-n", "3", "hostname"], env=cluster.env, check=True)

Everything the cluster owns lives in that directory: its munge key and munged (own socket,
so the machine's munged, if any, is neither used nor disturbed), slurm.conf with TCP ports
chosen free at start (two clusters, or a real one, on the same host never clash), state,
spool, logs and pid files. The daemons are children of this process, run in the foreground
(-D, -F), and are stopped with SIGTERM, then SIGKILL. Root only: slurmd must start job steps
as the submitting user, and munged refuses to run as root without --force, which it gets.

Standard library only.
"""
import contextlib
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77  # ctest's SKIP_RETURN_CODE


def skip_unless_root():
    """Exit 77 (skipped) unless running as root, saying why."""
    if os.geteuid() != 0:
        print("SKIP: a private Slurm cluster needs root: slurmd runs job steps as the "
              "submitting user (setuid) and SlurmUser=root; run this test as root",
              flush=True)
        sys.exit(SKIP)


def _which(name, extra_dirs=("/usr/sbin", "/sbin")):
    found = shutil.which(name)
    if found:
        return found
    for d in extra_dirs:
        p = pathlib.Path(d) / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return None


def _free_ports(count):
    """`count` distinct TCP ports free now (bound to port 0 together, so no two are equal).
    Another process could take one before the daemon binds it; the daemons then fail to
    start and the startup timeout reports their logs."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _cpu_count():
    # slurmd drains a node whose configured CPUs exceed what it finds; the affinity mask is
    # what it can use (a container may see more CPUs than it may run on).
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _node_name():
    # slurmd looks itself up in slurm.conf by its short host name (we also pass -N).
    return socket.gethostname().split(".")[0]


class SlurmError(RuntimeError):
    pass


class SlurmCluster:
    """Context manager: a running one-node cluster. Attributes once entered:
    env       — os.environ plus SLURM_CONF (and no inherited SLURM_* job variables): pass it
                to srun, sbatch, sinfo, scontrol
    conf      — path of slurm.conf
    dir       — the temporary directory (removed on exit unless keep=True)
    node      — the node's name
    cpus      — its CPU count
    """

    def __init__(self, startup_timeout=60.0, keep=False, log=sys.stdout):
        self.startup_timeout = startup_timeout
        self.keep = keep
        self.log = log
        self.dir = None
        self.conf = None
        self.env = None
        self.node = _node_name()
        self.cpus = _cpu_count()
        self._procs = {}  # name -> Popen
        self._logs = {}   # name -> log path

    # --- context manager -------------------------------------------------------------

    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop()
        return False

    # --- helpers for tests -----------------------------------------------------------

    def run(self, args, **kwargs):
        """subprocess.run with the cluster's environment (text output captured unless
        told otherwise)."""
        kwargs.setdefault("env", self.env)
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        return subprocess.run(args, **kwargs)

    def logs(self, tail=4000):
        """The daemons' logs (each cut to its last `tail` characters)."""
        parts = []
        for name, path in self._logs.items():
            try:
                text = pathlib.Path(path).read_text(errors="replace")
            except OSError as e:
                text = f"(unreadable: {e})"
            parts.append(f"----- {name} log ({path}) -----\n{text[-tail:]}")
        return "\n".join(parts)

    # --- start -----------------------------------------------------------------------

    def _say(self, text):
        print(f"[slurm] {text}", file=self.log, flush=True)

    def _start(self):
        tools = {n: _which(n) for n in ("munged", "slurmctld", "slurmd", "sinfo", "srun")}
        missing = [n for n, p in tools.items() if not p]
        keygen = _which("mungekey") or _which("create-munge-key")
        if not keygen:
            missing.append("mungekey or create-munge-key")
        if missing:
            raise SlurmError("missing " + ", ".join(missing) +
                             " (Debian: apt-get install slurm-wlm munge)")

        # mkdtemp gives 0700: munged refuses a socket or key in a directory others may write.
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="pqc-slurm-"))
        d = self.dir
        for sub in ("munge", "state", "spool", "log", "run"):
            (d / sub).mkdir(mode=0o700)
        self._say(f"cluster directory {d}")

        self._start_munge(d, keygen)
        self._write_conf(d)

        # Clients and daemons read this conf, never /etc/slurm. Job variables inherited from
        # an enclosing job (a test run under Slurm) would make srun join that job instead.
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        env["SLURM_CONF"] = str(self.conf)
        self.env = env

        self._spawn("slurmctld", [tools["slurmctld"], "-D", "-f", str(self.conf)])
        self._spawn("slurmd", [tools["slurmd"], "-D", "-f", str(self.conf), "-N", self.node])
        self._wait_idle()

    def _start_munge(self, d, keygen):
        key = d / "munge" / "munge.key"
        if keygen.endswith("mungekey"):
            cmd = [keygen, "--create", "--keyfile", str(key)]
        else:  # create-munge-key (older munge): -f overwrite, writes /etc/munge unless told
            cmd = [keygen, "-f", "-k", str(key)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0 or not key.exists():
            raise SlurmError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()}")
        os.chmod(key, 0o600)
        self.munge_socket = d / "munge" / "munge.socket"
        munge_log = d / "log" / "munged.log"
        self._logs["munged"] = munge_log
        # --force: munged refuses root and a world-writable ancestor (/tmp, sticky) without it.
        self._spawn("munged", [_which("munged"), "--foreground", "--force",
                               f"--socket={self.munge_socket}",
                               f"--key-file={key}",
                               f"--pid-file={d / 'run' / 'munged.pid'}",
                               f"--log-file={munge_log}",
                               f"--seed-file={d / 'munge' / 'munged.seed'}"],
                    log_path=None)
        deadline = time.monotonic() + 15
        while not self.munge_socket.exists():
            self._check_alive()
            if time.monotonic() > deadline:
                raise SlurmError("munged made no socket in 15 s\n" + self.logs())
            time.sleep(0.05)

    def _write_conf(self, d):
        ctld_port, slurmd_port = _free_ports(2)
        self.ports = {"slurmctld": ctld_port, "slurmd": slurmd_port}
        self._logs["slurmctld"] = d / "log" / "slurmctld.log"
        self._logs["slurmd"] = d / "log" / "slurmd.log"
        cluster = f"pqc{os.getpid()}"
        # The controller is reached at 127.0.0.1 whatever the host name resolves to:
        # one machine, and a name that resolves to another interface (or not at all) in a
        # container would make slurmd and srun miss it.
        lines = [
            f"ClusterName={cluster}",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={slurmd_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={d / 'state'}",
            f"SlurmdSpoolDir={d / 'spool'}",
            f"SlurmctldPidFile={d / 'run' / 'slurmctld.pid'}",
            f"SlurmdPidFile={d / 'run' / 'slurmd.pid'}",
            f"SlurmctldLogFile={self._logs['slurmctld']}",
            f"SlurmdLogFile={self._logs['slurmd']}",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            # No cgroups: a container (or a host without delegation) has none to give, and
            # a test needs no containment of its own children.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "MailProg=/bin/true",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            # A node that was down (slurmd restarted) comes back by itself.
            "ReturnToService=2",
            # Quick to notice and to reuse: a test submits, waits and tears down in seconds.
            "SlurmdTimeout=30",
            "MinJobAge=10",
            "KillWait=5",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN",
            f"PartitionName=test Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
        ]
        self.conf = d / "slurm.conf"
        self.conf.write_text("\n".join(lines) + "\n")
        self._say(f"slurm.conf: node {self.node} ({self.cpus} CPUs), slurmctld port "
                  f"{ctld_port}, slurmd port {slurmd_port}")

    def _spawn(self, name, cmd, log_path="default"):
        # The daemons' own output (before their log file is open, or a crash) goes here.
        out_path = self.dir / "log" / f"{name}.stdout"
        out = open(out_path, "wb")
        try:
            env = dict(self.env) if self.env else dict(os.environ)
            if self.conf:
                env["SLURM_CONF"] = str(self.conf)
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=env, cwd=self.dir,
                                 start_new_session=True)
        finally:
            out.close()
        self._procs[name] = p
        self._logs[f"{name} stdout"] = out_path
        self._say(f"started {name} (pid {p.pid})")

    def _check_alive(self):
        for name, p in self._procs.items():
            if p.poll() is not None:
                raise SlurmError(f"{name} exited {p.returncode} during startup\n" +
                                 self.logs())

    def _wait_idle(self):
        deadline = time.monotonic() + self.startup_timeout
        last = ""
        while True:
            self._check_alive()
            out = subprocess.run(["sinfo", "-h", "-N", "-n", self.node, "-o", "%T"],
                                 env=self.env, capture_output=True, text=True)
            last = (out.stdout.strip() or out.stderr.strip())
            if out.returncode == 0 and last == "idle":
                self._say(f"node {self.node} idle")
                return
            if time.monotonic() > deadline:
                raise SlurmError(f"node {self.node} not idle after {self.startup_timeout:.0f} "
                                 f"s (sinfo: {last!r})\n" + self.logs())
            time.sleep(0.25)

    # --- stop ------------------------------------------------------------------------

    def _stop(self):
        # slurmd first (it kills the job steps it started), then the controller, munge last:
        # the others authenticate through it while they shut down.
        order = [n for n in ("slurmd", "slurmctld", "munged") if n in self._procs]
        for name in order:
            self._terminate(name, self._procs[name])
        self._procs.clear()
        self._kill_leftover_steps()
        if self.dir and not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)
        elif self.dir:
            self._say(f"kept {self.dir}")

    def _terminate(self, name, p, grace=10.0):
        if p.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self._say(f"{name} ignored SIGTERM for {grace:.0f} s: SIGKILL")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                p.kill()
            p.wait()
        # The daemon's own session: whatever it forked (e.g. munged's helpers) goes too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)

    def _kill_leftover_steps(self):
        """slurmstepd processes of this cluster that outlived slurmd (a job still running at
        teardown): found by the conf path in their environment, only ours."""
        if not self.conf:
            return
        needle = f"SLURM_CONF={self.conf}".encode()
        for entry in pathlib.Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            if pid == os.getpid():
                continue
            try:
                comm = (entry / "comm").read_text().strip()
                if comm != "slurmstepd":
                    continue
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if needle in environ:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
