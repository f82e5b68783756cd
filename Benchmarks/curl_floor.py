"""The transport floor: `curl` fetching the same pages as the clients, into /dev/null.

No parsing, no storing: what moving the bytes costs. curl cannot follow Kinto's
`Next-Page` header by itself, so the harness runs one `curl` per page, reads the
header curl dumped, and starts the next one. The figures:

- CPU and peak RSS: the sum (CPU) and maximum (RSS) of the curl processes' own
  figures (measure.run_measured), so the harness's few lines of glue are not counted;
- wall: the whole loop, first curl started to last curl finished — it includes a
  process start and a new loopback connection per page (a real client reuses one),
  a few milliseconds a page, which the README states next to the figures.
"""
from __future__ import annotations

import os
import pathlib
import time

from kinto_api import Account
from measure import Sample, run_measured

CURL = "curl"


def write_config(folder: pathlib.Path, account: Account) -> pathlib.Path:
    """curl reads the credentials from a private file, so they never appear in argv."""
    path = folder / "curl.cfg"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        escaped = f"{account.user}:{account.password}".replace("\\", "\\\\").replace('"', '\\"')
        handle.write(f'user = "{escaped}"\n')
    return path


def fetch_all(urls: list[str], config: pathlib.Path, scratch: pathlib.Path) -> Sample:
    """Fetch every page of every URL in `urls`, following Next-Page."""
    header_file = scratch / "curl-headers.txt"
    user = system = 0.0
    maxrss = pages = size = 0
    exit_code = 0
    started = time.perf_counter()
    for url in urls:
        while url:
            page = run_measured([CURL, "-sS", "--fail", "-K", str(config), "-o", os.devnull,
                                 "-D", str(header_file), "-w", "%{size_download}", url], timeout=300)
            user += page.user_s
            system += page.sys_s
            maxrss = max(maxrss, page.maxrss_kb)
            if not page.ok:
                exit_code = page.exit_code or 1
                break
            pages += 1
            size += int(page.stdout.strip() or 0)
            url = next_page(header_file.read_text(errors="replace"))
        if exit_code:
            break
    wall = time.perf_counter() - started
    return Sample(wall_s=wall, user_s=user, sys_s=system, maxrss_kb=maxrss, exit_code=exit_code,
                  extra={"pages": pages, "body_bytes": size})


def next_page(headers: str) -> str | None:
    for line in headers.splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() == "next-page":
            return value.strip() or None
    return None
