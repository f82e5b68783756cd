#!/usr/bin/env python3
"""`shelf ui` at scale (make bench-ui): a scripted session on a pseudo-terminal.

A local-only store is filled by Benchmarks/LocalLibrarySeed (SIZE books, default 100,000),
then the release `shelf ui` runs on a pty of 120 x 40 (NO_COLOR) and this script types into
it. It prints figures, it asserts nothing:
  start-up      spawn to the first frame's last byte (the status line drawn)
  per key       the key written to the last byte of the frame it caused: the first run of
                output with no gap over GAP ms (one frame is one write); "settled" is the
                last byte before QUIET ms of silence (not counted), which includes what lands
                after the frame (the library's counts, read in the background); for j/k
                scrolling, PgDn, G/g, each letter of a search typed, Backspace, o, u
  memory        VmRSS, its anonymous and file-backed parts, after the first frame, after SCROLL
                keys of scrolling, after the rest, and while PgDn goes through the whole library
  bytes         written to the terminal per key (the frame's diff), p50
  peer          less(1) -S paging the same library as `shelf books` prints it, on the same
                pty, with the keys it shares (j, k, PgDn, G, g): its p99 and shelf's / less's
Usage: bench-ui.py SHELF SEED [SIZE] [--scroll N] [--work DIR]
"""
import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import termios
import time

QUIET = 0.03
GAP = 0.002


def rss_kib(pid):
    """VmRSS, and of it the anonymous part (the heap: what the program holds) and the
    file-backed part (pages of the memory-mapped store, which the kernel may drop)."""
    found = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, rest = line.partition(":")
            if name in ("VmRSS", "RssAnon", "RssFile"):
                found[name] = int(rest.split()[0])
    return found.get("VmRSS", 0), found.get("RssAnon", 0), found.get("RssFile", 0)


def read_burst(fd, deadline=5.0, until=None):
    """Reads until the output has been quiet for QUIET s (and holds `until`, if given);
    returns (time of the last byte, bytes)."""
    data = b""
    last = None
    times = []
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], QUIET)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
            last = time.monotonic()
            times.append(last)
        elif last is not None and (until is None or until in data):
            break
    return last, data, times


def first_frame_end(times):
    """The end of the first run of chunks with no gap over GAP: the frame a key caused."""
    end = times[0]
    for stamp in times[1:]:
        if stamp - end > GAP:
            break
        end = stamp
    return end


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class PtySession:
    """A program on a pseudo-terminal of 120 x 40, and the figures of the keys typed into it."""

    def __init__(self, argv, env, ready):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        started = time.monotonic()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        start_new_session=True, pass_fds=())
        os.close(slave)
        self.master = master
        last, _, _ = read_burst(master, deadline=30, until=ready)
        self.startup = (last - started) * 1000
        self.timings, self.settled, self.bytes = {}, {}, {}

    def press(self, name, key):
        os.write(self.master, key)
        sent = time.monotonic()
        last, data, times = read_burst(self.master)
        if last is not None:
            self.timings.setdefault(name, []).append((first_frame_end(times) - sent) * 1000)
            self.settled.setdefault(name, []).append((last - sent) * 1000)
            self.bytes.setdefault(name, []).append(len(data))

    def rss_kib(self):
        return rss_kib(self.process.pid)

    def quit(self, key=b"q"):
        os.write(self.master, key)
        self.process.wait(timeout=10)
        os.close(self.master)


def scroll(session, args, memory=None):
    """The keys both programs have: SCROLL j (memory noted after them), SCROLL/2 k, 30 PgDn, G, g."""
    for _ in range(args.scroll):
        session.press("j (scroll down)", b"j")
    if memory is not None:
        memory[f"after {args.scroll} scroll keys"] = session.rss_kib()
    for _ in range(args.scroll // 2):
        session.press("k (scroll up)", b"k")
    for _ in range(30):
        session.press("PgDn", b"\x1b[6~")
    session.press("G (last)", b"G")
    session.press("g (first)", b"g")


def shelf_session(args, env):
    """The scripted session of `shelf ui`: scrolling, PgDn, G/g, searches typed, orders, filters."""
    session = PtySession([args.shelf, "ui"], env, b"q quit")
    memory = {"at the first frame": session.rss_kib()}
    scroll(session, args, memory)
    for _ in range(3):
        session.press("/ (search)", b"/")
        for letter in "ursula":
            session.press("a letter typed", letter.encode())
        for _ in range(6):
            session.press("Backspace (search)", b"\x7f")
        session.press("Esc (search)", b"\x1b")
        time.sleep(0.05)
    for _ in range(3):
        session.press("o (order)", b"o")
        session.press("u (unfinished)", b"u")
    memory["after the searches, orders, filters"] = session.rss_kib()
    # The whole library, a screenful (37 rows) at a time, from the top (title order, all
    # books), stopping short of the end (a key that changes nothing writes nothing).
    session.press("u (unfinished)", b"u")  # three times before left the filter on
    session.press("g (first)", b"g")
    for page in range(args.size // 37 - 1):
        session.press("PgDn, whole library", b"\x1b[6~")
        if page and page % 900 == 0:
            memory[f"after {page} PgDn"] = session.rss_kib()
    memory["at the last book"] = session.rss_kib()
    session.quit()
    return session, memory


def less_session(args, env, listing):
    """The peer: less(1) paging the same books as text, the same keys where less has them."""
    session = PtySession(["less", "-S", listing], env, None)
    scroll(session, args)
    session.press("g (first)", b"g")
    for _ in range(args.size // 39 - 1):  # 39 lines a page, short of the end
        session.press("PgDn, whole library", b"\x1b[6~")
    session.quit()
    return session


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("shelf")
    parser.add_argument("seed")
    parser.add_argument("size", nargs="?", type=int, default=100_000)
    parser.add_argument("--scroll", type=int, default=600)
    parser.add_argument("--work", default=".run/ui-bench")
    args = parser.parse_args()

    home = os.path.abspath(os.path.join(args.work, str(args.size)))
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(os.path.join(home, "config"))
    subprocess.run([args.seed, os.path.join(home, "data"), str(args.size)], check=True, stdout=subprocess.DEVNULL)
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "config"),
           "XDG_DATA_HOME": os.path.join(home, "data"), "TERM": "xterm-256color", "NO_COLOR": "1", "LANG": "C.UTF-8"}
    # The peer's text: the same library as `shelf books` prints it (not timed).
    listing = os.path.join(home, "books.txt")
    with open(listing, "wb") as out:
        subprocess.run([args.shelf, "books"], env=env, stdout=out, check=True)

    shelf, memory = shelf_session(args, env)
    peer = less_session(args, env, listing)
    shutil.rmtree(home, ignore_errors=True)

    print(f"shelf ui, {args.size:,} books, 120x40, release, {os.cpu_count()} cores; peer: less -S over `shelf books`")
    print(f"  start-up to first frame: {shelf.startup:.1f} ms (less: {peer.startup:.1f} ms)")
    print(f"  {'key':<22}{'n':>6}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'settled p99':>13}{'bytes p50':>11}"
          f"{'less p99':>10}{'ratio':>7}")
    everything, everything_settled = [], []
    for name, values in shelf.timings.items():
        everything += values
        everything_settled += shelf.settled[name]
        peer_values = peer.timings.get(name)
        peer_p99 = f"{percentile(peer_values, 99):>10.2f}" if peer_values else f"{'-':>10}"
        ratio = f"{percentile(values, 99) / max(percentile(peer_values, 99), 0.01):>7.2f}" if peer_values else f"{'-':>7}"
        print(f"  {name:<22}{len(values):>6}{statistics.median(values):>9.2f}{percentile(values, 99):>9.2f}"
              f"{max(values):>9.2f}{percentile(shelf.settled[name], 99):>13.2f}{statistics.median(shelf.bytes[name]):>11.0f}"
              f"{peer_p99}{ratio}")
    print(f"  {'all keys':<22}{len(everything):>6}{statistics.median(everything):>9.2f}{percentile(everything, 99):>9.2f}"
          f"{max(everything):>9.2f}{percentile(everything_settled, 99):>13.2f}")
    print("  memory (KiB: VmRSS = anonymous + file-backed pages of the store):")
    for when, (total, anonymous, mapped) in memory.items():
        print(f"    {when:<38}{total:>9,} = {anonymous:>7,} + {mapped:>7,}")


if __name__ == "__main__":
    main()
