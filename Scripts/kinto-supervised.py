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
    args = parser.parse_args()

    # A process started from a thread of Swift's concurrency pool inherits that thread's
    # signal mask, in which SIGTERM is blocked; unblock everything so SIGTERM stops this
    # supervisor, and so Kinto (which inherits the mask from here) can be stopped too.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parent = os.getppid()
    kinto = str(pathlib.Path(sys.executable).parent / "kinto")
    port = args.port or free_port()
    log = open(args.log, "ab")
    env = dict(os.environ)
    cluster = None
    if args.postgresql:
        cluster = start_postgresql(env)
        # Throwaway secrets for a throwaway server, unless the caller gave its own.
        env.setdefault("KINTO_USERID_HMAC_SECRET", os.urandom(16).hex())
        env.setdefault("KINTO_DEFAULT_BUCKET_HMAC_SECRET", os.urandom(16).hex())
        migrated = subprocess.run([kinto, "migrate", "--ini", args.ini], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if migrated.returncode != 0:
            stop_postgresql(cluster)
            sys.exit("kinto migrate failed:\n" + migrated.stdout.decode(errors="replace")[-1500:])
    command = [kinto, "start", "--ini", args.ini, "--port", str(port)]
    if args.fast_password_hashing:
        command = [sys.executable, "-c", FAST_HASHING_KINTO, "start", "--ini", args.ini, "--port", str(port)]
    child = subprocess.Popen(command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)

    def stop(*_):
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
        stop_postgresql(cluster)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    deadline = time.monotonic() + 30
    while True:
        if child.poll() is not None:
            sys.exit(f"kinto exited with {child.returncode} before answering (log: {args.log})")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/", timeout=1).read()
            break
        except OSError:
            if time.monotonic() > deadline:
                stop()
            time.sleep(0.05)

    if args.seed_catalog:
        subprocess.run([sys.executable, str(ROOT / "Scripts" / "kinto-seed.py"),
                        f"http://127.0.0.1:{port}", "--catalog-only"],
                       check=True, stdout=subprocess.DEVNULL)
    print(f"ready {port}", flush=True)

    while child.poll() is None:
        if os.getppid() != parent:
            stop()
        time.sleep(0.2)
    stop_postgresql(cluster)
    sys.exit(child.returncode)


def start_postgresql(env):
    """A private cluster; its URL goes into `env` for Kinto's three backends."""
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
    for backend in ("STORAGE", "PERMISSION", "CACHE"):
        env[f"KINTO_{backend}_URL"] = cluster.url
    cluster.workspace = folder
    return cluster


def stop_postgresql(cluster):
    if cluster is None:
        return
    cluster.stop()
    shutil.rmtree(cluster.workspace, ignore_errors=True)


if __name__ == "__main__":
    main()
