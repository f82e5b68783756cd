"""Kinto as a WSGI application for gunicorn, built from the ini in $KINTO_INI.

`kinto start` serves through waitress in one process; several worker processes need a
WSGI server that forks them (Kinto's docs name uWSGI, Granian and Gunicorn). Each
gunicorn worker imports this module itself (the harness never uses `--preload`), so
every worker opens its own PostgreSQL connections instead of sharing the master's.
"""
from __future__ import annotations

import os

from pyramid.paster import get_appsettings, setup_logging

from kinto import main

INI = os.environ["KINTO_INI"]
# The ini's [loggers] (WARNING) apply in the workers as under `kinto start`.
setup_logging(INI)
application = main({}, **get_appsettings(INI))
