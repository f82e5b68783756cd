"""Gunicorn hooks for Kinto on PostgreSQL with several worker processes.

`production.ini`'s `[server:main]` names this file (`config = %(here)s/gunicorn.conf.py`),
so `kinto start --ini production.ini` (pserve) loads it; with
`gunicorn --paste production.ini` pass it as `-c gunicorn.conf.py`.

Why it exists: pserve loads Kinto in gunicorn's master, before the workers are forked,
and Kinto's PostgreSQL backends open a connection while they load (they check the
database's encoding and time zone). SQLAlchemy's pool does not notice a fork: every
worker would inherit that pooled socket and talk over it at once, mixing their replies.
After the fork each worker drops the pool it inherited, without closing the parent's
sockets (`dispose(close=False)`, SQLAlchemy's documented recipe), and opens its own.
With `gunicorn --paste` the app loads in each worker and there is nothing to drop.
"""

# No control socket (gunicornc): by default gunicorn 25.1+ makes one at a fixed path,
# $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl, which a second server of the
# same user would take over, and which a service with a read-only home cannot create.
# systemd's signals (TERM stops, HUP reloads, TTIN/TTOU add or remove a worker) suffice.
control_socket_disable = True

# Workers that finish their requests quickly on SIGTERM; a stuck one is killed after this.
graceful_timeout = 10


def post_fork(server, worker):
    """Gives the new worker PostgreSQL connections of its own (see the module's doc)."""
    try:
        from kinto.core.storage.postgresql.client import _CLIENTS
    except ImportError:  # Kinto without its PostgreSQL backend: no pool to drop
        return
    for clients in _CLIENTS.values():
        for client in clients.values():
            engine = client.session_factory.session_factory.kw.get("bind")
            if engine is not None:
                engine.dispose(close=False)
