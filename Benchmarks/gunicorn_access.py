"""A gunicorn logger whose access-log time is Unix time with milliseconds.

gunicorn's `%(t)s` has one-second resolution. The device benchmark (bench_devices.py)
gives each simulated device its own account and runs one sync per device at a time, so
an access-log line's user and end time name the run that made the request; at one-second
resolution two runs a few seconds apart could not be told apart. The line's format is
`kinto_server.ACCESS_FORMAT`.
"""
from __future__ import annotations

import time

from gunicorn.glogging import Logger


class EpochLogger(Logger):
    def now(self) -> str:
        return f"{time.time():.3f}"
