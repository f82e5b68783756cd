#!/usr/bin/env python3
"""Run a throwaway Kinto whose storage can be backed up and restored, for Shelf's tests
of a server that goes back to an older state.

The same Kinto as Scripts/kinto-supervised.py (Fixtures/kinto's configuration, plain
Basic auth by default, the memory backend), run in this process so that its storage can be copied: two extra
endpoints, which never reach Kinto,

    POST /__backup__/save      keep a copy of everything stored (records, tombstones,
                               timestamps), as a database backup would
    POST /__backup__/restore   put that copy back, as restoring the backup would

answer `{"ok": true}`. Everything else is Kinto's. Prints `ready <port>` once Kinto
answers, stops on SIGTERM or SIGINT and when its parent process dies.
"""
import argparse
import copy
import os
import pathlib
import signal
import socket
import sys
import threading
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_ini():
    """Plain Basic auth: every user:password is an account, no sign-up needed."""
    return str(ROOT / "Fixtures" / "kinto" / "kinto-basicauth.ini")


class Backups:
    """Copies of the memory backend's state, taken and put back under its lock (the
    one kinto.core's `synchronized` decorator installs on the instance)."""

    FIELDS = ("_store", "_cemetery", "_timestamps")

    def __init__(self, storage):
        self.storage = storage
        self.saved = None
        if not hasattr(storage, "__lock__"):
            setattr(storage, "__lock__", threading.RLock())
        self.lock = getattr(storage, "__lock__")

    def save(self):
        with self.lock:
            self.saved = {f: copy.deepcopy(getattr(self.storage, f)) for f in self.FIELDS}

    def restore(self):
        if self.saved is None:
            raise ValueError("no backup saved")
        with self.lock:
            for field, value in self.saved.items():
                setattr(self.storage, field, copy.deepcopy(value))


def with_backup_endpoints(app, backups):
    def wrapped(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path in ("/__backup__/save", "/__backup__/restore") and environ.get("REQUEST_METHOD") == "POST":
            try:
                (backups.save if path.endswith("save") else backups.restore)()
                status, body = "200 OK", b'{"ok": true}'
            except Exception as error:  # reported to the test, which fails
                status, body = "409 Conflict", ('{"error": %r}' % str(error)).encode()
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        return app(environ, start_response)
    return wrapped


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ini", default=default_ini())
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    # See kinto-supervised.py: a parent on Swift's pool may have blocked SIGTERM.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parent = os.getppid()
    port = args.port or free_port()

    from pyramid.paster import get_app
    import waitress

    app = get_app(args.ini, "main", options={"http_port": str(port)})
    storage = app.registry.storage
    if not all(hasattr(storage, f) for f in Backups.FIELDS):
        sys.exit("kinto-with-backups: the storage backend is not the memory backend")
    server = waitress.create_server(with_backup_endpoints(app, Backups(storage)), host="127.0.0.1", port=port, threads=4)

    def stop(*_):
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Thread(target=server.run, daemon=True).start()

    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/", timeout=1).read()
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit("kinto-with-backups: Kinto did not answer")
            time.sleep(0.05)
    print(f"ready {port}", flush=True)

    while os.getppid() == parent:
        time.sleep(0.2)
    stop()


if __name__ == "__main__":
    main()
