#!/usr/bin/env python3
"""Run a throwaway Kinto for Shelf's tests and benchmarks, tied to its parent.

Picks a free loopback port, starts `kinto start` with Fixtures/kinto/kinto.ini (the
accounts plugin; or --ini, e.g. kinto-basicauth.ini), waits until the server answers,
optionally seeds the shop catalog, then
prints one line `ready <port>` on stdout. It stops Kinto when it gets SIGTERM or
SIGINT, and also when its parent process dies (even by SIGKILL), so a crashed test
run never leaves a server behind. Extra Kinto settings come from the environment
(`KINTO_BACKOFF=10` etc., Kinto's own override mechanism).

With --postgresql it first starts a private PostgreSQL cluster in a temporary folder
(Benchmarks/postgres_cluster.py: its own port, trust authentication on loopback), points
Kinto's storage, permission and cache URLs at it through the environment
(KINTO_STORAGE_URL…, Kinto's override mechanism), runs `kinto migrate`, and stops and
removes the cluster when it stops. That is how the tests run Fixtures/kinto/production.ini.
It also sets the three backends themselves to PostgreSQL (KINTO_STORAGE_BACKEND…), so an
ini made for the memory backend (kinto.ini, its accounts plugin) runs on the cluster too.

With --workers N (N ≥ 1; needs --postgresql) Kinto runs as Kinto's docs advise for
production: under gunicorn, N worker processes of --threads T threads each, all on the
one database, with the cache in PostgreSQL too (a memory cache would be one per process).
It is `gunicorn --paste <ini> --preload` with Fixtures/kinto/gunicorn.conf.py's hooks,
the shape `kinto start --ini production.ini` (pserve) runs: the app loads once in the
master and each forked worker opens its own database connections. `ready <port>` is
printed once the server answers and N workers run. Gunicorn gets a session of its own;
stopping sends its master SIGQUIT (a throwaway server has nothing to drain: the master
stops its workers at once), and any worker still there after the master is gone is
killed, so nothing outlives the supervisor.

With --outlive-parent it leaves its parent's session and keeps running after the parent
exits, until SIGTERM: `make server-production` (Scripts/kinto-server.sh) starts it so.

With --fast-password-hashing the accounts plugin hashes new passwords with bcrypt's
lowest cost (4 instead of 12): a throwaway test server signs up a new account per test,
and at cost 12 each sign-up and first login costs ~0.25 s of CPU. Passwords are still
hashed and checked; only the work factor differs. Never for a real server.
"""
import argparse
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent


# `kinto start` with bcrypt's cost factor at its minimum (see the module's doc).
FAST_HASHING_KINTO = """
import sys, bcrypt
_gensalt = bcrypt.gensalt
bcrypt.gensalt = lambda rounds=4, prefix=b"2b": _gensalt(4, prefix)
from kinto.__main__ import main
sys.exit(main(sys.argv[1:]))
"""

# gunicorn's command line, optionally with the same patch: it is made in the master before
# Kinto loads there (--preload), and the forked workers inherit the patched module.
GUNICORN = """
import sys
if sys.argv[1] == "--fast-password-hashing":
    del sys.argv[1]
    import bcrypt
    _gensalt = bcrypt.gensalt
    bcrypt.gensalt = lambda rounds=4, prefix=b"2b": _gensalt(4, prefix)
sys.argv[0] = "gunicorn"
from gunicorn.app.wsgiapp import run
sys.exit(run())
"""
GUNICORN_HOOKS = ROOT / "Fixtures" / "kinto" / "gunicorn.conf.py"
# How long Kinto may take to stop after SIGTERM before it is killed: gunicorn.conf.py's
# graceful_timeout is 10 s, after which gunicorn's master kills its own workers.
STOP_SECONDS = 15


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ini", default=str(ROOT / "Fixtures" / "kinto" / "kinto.ini"))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed-catalog", action="store_true")
    parser.add_argument("--log", default=os.devnull)
    parser.add_argument("--fast-password-hashing", action="store_true")
    parser.add_argument("--postgresql", action="store_true")
    parser.add_argument("--postgresql-url-file", metavar="PATH",
                        help="with --postgresql: write the cluster's URL here (for tests that read Kinto's tables)")
    parser.add_argument("--workers", type=int, default=0, metavar="N",
                        help="run under gunicorn with N worker processes (needs --postgresql)")
    parser.add_argument("--threads", type=int, default=2, metavar="T",
                        help="threads per gunicorn worker (default 2)")
    parser.add_argument("--outlive-parent", action="store_true",
                        help="keep running when the parent exits (stop it with SIGTERM)")
    args = parser.parse_args()
    if args.workers < 0 or args.threads < 1:
        parser.error("--workers must be 0 or more and --threads 1 or more")
    if args.workers and not args.postgresql:
        parser.error("--workers needs --postgresql: Kinto's memory backend lives in one "
                     "process, so each worker would have its own records, accounts and cache")

    # A process started from a thread of Swift's concurrency pool inherits that thread's
    # signal mask, in which SIGTERM is blocked; unblock everything so SIGTERM stops this
    # supervisor, and so Kinto (which inherits the mask from here) can be stopped too.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parent = os.getppid()
    if args.outlive_parent:
        try:
            os.setsid()  # the terminal's Ctrl-C and hang-up no longer reach it
        except OSError:  # already a session or group leader: nothing to leave
            pass
    kinto = str(pathlib.Path(sys.executable).parent / "kinto")
    port = args.port or free_port()
    log = open(args.log, "ab")
    env = dict(os.environ)
    cluster = None
    if args.postgresql:
        cluster = start_postgresql(env)
        if args.postgresql_url_file:
            pathlib.Path(args.postgresql_url_file).write_text(cluster.url)
        # Throwaway secrets for a throwaway server, unless the caller gave its own.
        env.setdefault("KINTO_USERID_HMAC_SECRET", os.urandom(16).hex())
        env.setdefault("KINTO_DEFAULT_BUCKET_HMAC_SECRET", os.urandom(16).hex())
        migrated = subprocess.run([kinto, "migrate", "--ini", args.ini], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if migrated.returncode != 0:
            stop_postgresql(cluster)
            sys.exit("kinto migrate failed:\n" + migrated.stdout.decode(errors="replace")[-1500:])
    # Kinto's root view reports the ini it runs (path and hash) from KINTO_INI.
    env.setdefault("KINTO_INI", os.path.abspath(args.ini))
    if args.workers:
        command = [sys.executable, "-c", GUNICORN] + (["--fast-password-hashing"] if args.fast_password_hashing else []) + [
            "--paste", args.ini, "--preload", "--config", str(GUNICORN_HOOKS),
            "--bind", f"127.0.0.1:{port}", "--workers", str(args.workers), "--threads", str(args.threads)]
    else:
        command = [kinto, "start", "--ini", args.ini, "--port", str(port)]
        if args.fast_password_hashing:
            command = [sys.executable, "-c", FAST_HASHING_KINTO, "start", "--ini", args.ini, "--port", str(port)]
    # Gunicorn in a session of its own: a Ctrl-C on the terminal reaches only this
    # supervisor, which stops the master, then its workers, then the cluster, in order.
    child = subprocess.Popen(command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env,
                             start_new_session=bool(args.workers))

    def stop(code=0, why=None):
        """Stops Kinto (gunicorn: master, then any worker left) and the cluster; exits."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, signal.SIG_IGN)  # once is enough
        workers = process_identities(worker_pids(child.pid))
        if child.poll() is None:
            # A throwaway server has nothing to drain: gunicorn's quick shutdown (SIGQUIT,
            # workers exit at once) rather than its graceful one (SIGTERM).
            child.send_signal(signal.SIGQUIT if args.workers else signal.SIGTERM)
            try:
                child.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        kill_leftovers(workers)
        stop_postgresql(cluster)
        if why:
            print(f"kinto-supervised: {why}", file=sys.stderr)
        sys.exit(code)

    signal.signal(signal.SIGTERM, lambda *_: stop())
    signal.signal(signal.SIGINT, lambda *_: stop())

    processes = args.workers or 1
    deadline = time.monotonic() + 30
    while True:
        if child.poll() is not None:
            stop(1, f"kinto exited with {child.returncode} before answering (log: {args.log})")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/", timeout=1).read()
            if len(worker_pids(child.pid)) >= args.workers:
                break
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop(1, f"kinto did not answer with {processes} process(es) within 30 s (log: {args.log})")
        time.sleep(0.05)

    if args.seed_catalog:
        seeded = subprocess.run([sys.executable, str(ROOT / "Scripts" / "kinto-seed.py"),
                                 f"http://127.0.0.1:{port}", "--catalog-only"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if seeded.returncode != 0:
            stop(1, "seeding the catalog failed: " + seeded.stderr.decode(errors="replace")[-800:])
    print(f"ready {port}", flush=True)

    while child.poll() is None:
        if os.getppid() != parent and not args.outlive_parent:
            stop()
        time.sleep(0.2)
    stop(child.returncode, f"kinto exited with {child.returncode} (log: {args.log})")


def worker_pids(master):
    """The pids of `master`'s children (gunicorn's workers; none for waitress), from /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # Fields after the command's closing parenthesis: state, ppid, pgrp, …
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == master:
            pids.append(int(entry))
    return pids


def process_identities(pids):
    """(pid, start time) of each of `pids`: a pid reused later by another process differs."""
    identities = []
    for pid in pids:
        start = start_time(pid)
        if start is not None:
            identities.append((pid, start))
    return identities


def start_time(pid):
    """The process's start time in clock ticks since boot (/proc/<pid>/stat, field 22)."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[19])


def kill_leftovers(identities):
    """SIGKILL each process of `identities` still running: workers whose master is gone."""
    for pid, start in identities:
        if start_time(pid) == start:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # exited meanwhile
                pass


def start_postgresql(env):
    """A private cluster; its URL and the PostgreSQL backends go into `env` for Kinto's
    storage, permissions and cache, whatever the ini says."""
    sys.path.insert(0, str(ROOT / "Benchmarks"))
    from postgres_cluster import PostgresCluster
    folder = pathlib.Path(tempfile.mkdtemp(prefix="shelf-kinto-pg-"))
    os.chmod(folder, 0o755)  # the cluster's owner (postgres, when run as root) must enter it
    cluster = PostgresCluster(folder / "cluster", free_port())
    try:
        cluster.start()
    except Exception:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
        raise
    for backend, module in (("STORAGE", "storage"), ("PERMISSION", "permission"), ("CACHE", "cache")):
        env[f"KINTO_{backend}_URL"] = cluster.url
        env[f"KINTO_{backend}_BACKEND"] = f"kinto.core.{module}.postgresql"
    cluster.workspace = folder
    return cluster


def stop_postgresql(cluster):
    if cluster is None:
        return
    cluster.stop()
    shutil.rmtree(cluster.workspace, ignore_errors=True)


if __name__ == "__main__":
    main()
