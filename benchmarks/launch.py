"""Runs one command and reports its wall time, CPU time and peak memory: launch.py RESULT TIMEOUT CMD...

Why a launcher: on Linux a child's ru_maxrss starts from the resident set of the process that
forked it (the kernel carries the parent's high-water mark across fork and exec). benchmarks/run.py
grows to hundreds of MB while it compares results, so children it forks directly would report at
least that much. This launcher is a bare interpreter (about 10 MB, standard library only): what
wait4 reports for its child is the child's own peak.

RESULT receives {"start", "end" (time.monotonic, system-wide), "cpu", "maxrss" (bytes), "status"}.
The child inherits this process's stdin, stdout and stderr.
"""
import json
import os
import signal
import sys
import time


def main() -> None:
    result, timeout, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    timed_out = False
    start = time.monotonic()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)

    def kill(signum, frame):
        nonlocal timed_out
        timed_out = True
        os.kill(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, kill)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    _, status, usage = os.wait4(pid, 0)
    end = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, 0)
    with open(result, "w") as handle:
        json.dump({"start": start, "end": end, "cpu": usage.ru_utime + usage.ru_stime,
                   "maxrss": usage.ru_maxrss * 1024, "status": os.waitstatus_to_exitcode(status),
                   "timed_out": timed_out}, handle)


if __name__ == "__main__":
    main()
