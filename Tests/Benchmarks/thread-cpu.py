#!/usr/bin/env python3
"""CPU seconds of each thread of a program, for `make bench` (docs/PERFORMANCE.md).

    thread-cpu.py OUT NAME -- COMMAND [ARGS...]
    thread-cpu.py OUT NAME --attach PID

Runs COMMAND (or watches the running process PID, so that the program's start is not delayed by
this one's), finds the process named NAME among it and its descendants (COMMAND may be a wrapper
such as `timeout` or `/usr/bin/time`), and reads /proc/PID/task/*/stat every INTERVAL seconds
(default 0.02) until that process has ended. Writes to OUT one line per thread that used
any CPU, `seconds tid name`, the busiest first, after a `seconds total process` line (the
process's own CPU time at the last read). A thread's time is the last value read while it lived,
so a thread that ended between two reads loses at most one interval. Exits with COMMAND's status.
"""
import os
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(path):
    with open(path, "rb") as stat:
        text = stat.read().decode("utf-8", "replace")
    name = text[text.index("(") + 1:text.rindex(")")]
    # fields[0] is field 3 (state); ppid is field 4, utime field 14, stime field 15.
    return name, text[text.rindex(")") + 2:].split()


def cpu_seconds(fields):
    return (int(fields[11]) + int(fields[12])) / TICKS


def find(root, name):
    """The pid of the process called `name` among `root` and its descendants, or None."""
    family, found = {root}, True
    while found:
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in family:
                continue
            try:
                comm, fields = stat_fields(f"/proc/{entry}/stat")
            except (FileNotFoundError, ProcessLookupError, ValueError):
                continue
            if int(fields[1]) in family:
                family.add(int(entry))
                found = True
    for pid in family:
        try:
            if stat_fields(f"/proc/{pid}/stat")[0] == name:
                return pid
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
    return None


def main():
    out, name = sys.argv[1], sys.argv[2]
    interval = float(os.environ.get("INTERVAL", "0.02"))
    if sys.argv[3] == "--attach":
        root, child = int(sys.argv[4]), None
    else:
        child = subprocess.Popen(sys.argv[sys.argv.index("--") + 1:])
        root = child.pid

    def running():
        if child is not None:
            return child.poll() is None
        try:
            return stat_fields(f"/proc/{root}/stat")[1][0] not in ("Z", "X")
        except (FileNotFoundError, ProcessLookupError, ValueError):
            return False

    pid, threads, total = None, {}, 0.0
    while running() and pid != -1:
        if pid is None:
            pid = find(root, name)
        if pid is not None and pid > 0:
            try:
                state_and_more = stat_fields(f"/proc/{pid}/stat")[1]
                if state_and_more[0] in ("Z", "X"):
                    pid = -1
                else:
                    total = cpu_seconds(state_and_more)
                    for tid in os.listdir(f"/proc/{pid}/task"):
                        try:
                            threads[tid] = stat_fields(f"/proc/{pid}/task/{tid}/stat")
                        except (FileNotFoundError, ProcessLookupError, ValueError):
                            pass
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pid = -1
        time.sleep(interval)
    with open(out, "w") as result:
        result.write(f"{total:.2f} total process\n")
        rows = sorted(((cpu_seconds(f), tid, n) for tid, (n, f) in threads.items()), reverse=True)
        for seconds, tid, thread_name in rows:
            if seconds > 0:
                result.write(f"{seconds:.2f} {tid} {thread_name}\n")
    sys.exit(child.wait() if child is not None else 0)


main()
