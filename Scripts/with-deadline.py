#!/usr/bin/env python3
"""with-deadline.py SECONDS COMMAND [ARG…]: runs COMMAND, and ends it if it overruns.

`make test` runs the suite through this, so a hang anywhere in it ends the run with a
diagnosis instead of running into CI's own limit, which kills the job and says nothing.
When COMMAND still runs after SECONDS, this prints to stderr every process under it
(pid, parent, seconds running, state, command line: which program hung, and where),
sends SIGTERM to its process group (the convergence harness prints its threads'
stacks then), SIGKILL 10 s later, and exits 124 as coreutils' `timeout` does.
Otherwise it exits with COMMAND's status. SIGINT and SIGTERM are passed on to COMMAND.
"""
import os
import signal
import subprocess
import sys

GRACE_SECONDS = 10


def tree(root):
    """`root` and its descendants, as lines, read from /proc."""
    entries = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read().decode(errors="replace")
            with open(f"/proc/{name}/cmdline", "rb") as file:
                command = file.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        # fields[0] is the state, [1] the parent, [19] the start time in clock ticks.
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        entries[int(name)] = (int(fields[1]), fields[0], started, command[:300])
    with open("/proc/uptime") as file:
        uptime = float(file.read().split()[0])
    lines, stack = [], [(root, 0)]
    while stack:
        pid, depth = stack.pop()
        if pid not in entries:
            continue
        parent, state, started, command = entries[pid]
        lines.append(f"{'  ' * depth}{pid} (parent {parent}, {uptime - started:.0f} s, state {state}) {command}")
        stack += [(child, depth + 1) for child, entry in sorted(entries.items(), reverse=True) if entry[0] == pid]
    return lines


def signal_group(group, number):
    try:
        os.killpg(group, number)
    except ProcessLookupError:
        pass   # the whole group has ended


def main(argv):
    if len(argv) < 2 or not argv[0].isdigit():
        print("usage: with-deadline.py SECONDS COMMAND [ARG…]", file=sys.stderr)
        return 64
    seconds, command = int(argv[0]), argv[1:]
    # Its own process group, so the deadline ends everything it started.
    child = subprocess.Popen(command, process_group=0)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, _frame: signal_group(child.pid, number))
    try:
        return child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    print(f"\nwith-deadline: '{' '.join(command)}' still ran after {seconds} s; the processes under it:",
          file=sys.stderr)
    print("\n".join(tree(child.pid)), file=sys.stderr, flush=True)
    signal_group(child.pid, signal.SIGTERM)
    try:
        child.wait(timeout=GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    signal_group(child.pid, signal.SIGKILL)   # whatever of the group outlived its leader too
    child.wait()
    print(f"with-deadline: ended after {seconds} s", file=sys.stderr)
    return 124


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
