"""Runs one command and reports its wall time, CPU time and peak memory: launch.py [--tree] RESULT TIMEOUT CMD...

Why a launcher: on Linux a child's ru_maxrss starts from the resident set of the process that
forked it (the kernel carries the parent's high-water mark across fork and exec). benchmarks/run.py
grows to hundreds of MB while it compares results, so children it forks directly would report at
least that much. This launcher is a bare interpreter (about 10 MB, standard library only): what
wait4 reports for its child is the child's own peak.

--tree measures the command's whole process tree, for commands that start processes of their own
(pyspark starts its JVM as a child of Python). wait4's ru_maxrss is then not enough: it is the
largest single process, not the tree's sum, and a child its parent never waits for (pyspark does
not wait for the JVM, which leaves when Python's pipe to it closes) counts for nothing, not even
its CPU. So the launcher makes itself the child subreaper (processes orphaned in the tree are
handed to it instead of init), samples the summed resident set of every process below it every
SAMPLE_SECONDS from /proc, and after the command exits waits for the rest of the tree (up to
TREE_GRACE seconds, then kills it), adding each reaped process's CPU. The peak is the largest
sampled sum, or the largest single process's ru_maxrss if that is larger (a spike between samples
of a one-process command). The command runs in a process group of its own, killed whole on timeout.

RESULT receives {"start", "end" (time.monotonic, system-wide; end is the command's own exit),
"cpu", "maxrss" (bytes), "status", "timed_out"}, and with --tree also "tree_end" (the last
process of the tree gone), "processes" (the most alive at once) and "sampled_rss" (the largest
sampled sum). The child inherits this process's stdin, stdout and stderr.
"""
import json
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
SAMPLE_SECONDS = 0.1
TREE_GRACE = 60.0
PAGE = os.sysconf("SC_PAGE_SIZE")


def descendants(root: int) -> list[int]:
    """Every live process below root, through /proc/PID/task/TID/children."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as handle:
                    children = [int(c) for c in handle.read().split()]
            except OSError:
                continue
            out += children
            todo += children
    return out


def resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def start_sampler(root: int):
    """A thread summing the resident sets below root every SAMPLE_SECONDS, until its event is set:
    (thread, event, {"peak", "processes"}). Imported here so that without --tree the launcher
    stays the bare interpreter the docstring describes."""
    import threading

    stopped, seen = threading.Event(), {"peak": 0, "processes": 0}

    def sample() -> None:
        while not stopped.is_set():
            pids = descendants(root)
            seen["peak"] = max(seen["peak"], sum(resident(p) for p in pids))
            seen["processes"] = max(seen["processes"], len(pids))
            stopped.wait(SAMPLE_SECONDS)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    return thread, stopped, seen


def main() -> None:
    tree = sys.argv[1] == "--tree"
    result, timeout, cmd = sys.argv[1 + tree], float(sys.argv[2 + tree]), sys.argv[3 + tree:]
    timed_out = False
    if tree:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    start = time.monotonic()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, **({"setpgroup": 0} if tree else {}))
    if tree:
        sampler, stop_sampler, seen = start_sampler(os.getpid())

    def kill(signum, frame):
        nonlocal timed_out
        timed_out = True
        if tree:
            kill_tree(pid)
        else:
            os.kill(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, kill)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    _, status, usage = os.wait4(pid, 0)
    end = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, 0)
    report = {"start": start, "end": end, "cpu": usage.ru_utime + usage.ru_stime,
              "maxrss": usage.ru_maxrss * 1024, "status": os.waitstatus_to_exitcode(status),
              "timed_out": timed_out}
    if tree:
        largest = usage.ru_maxrss * 1024
        deadline = time.monotonic() + TREE_GRACE
        while True:   # the rest of the tree, handed to this subreaper as its parents exit
            try:
                other, _, rest = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if other == 0:
                if time.monotonic() > deadline:
                    kill_tree(pid)
                    deadline = float("inf")
                time.sleep(0.05)
                continue
            report["cpu"] += rest.ru_utime + rest.ru_stime
            largest = max(largest, rest.ru_maxrss * 1024)
        stop_sampler.set()
        sampler.join()
        report.update(tree_end=time.monotonic(), processes=seen["processes"], sampled_rss=seen["peak"],
                      maxrss=max(largest, seen["peak"]))
    with open(result, "w") as handle:
        json.dump(report, handle)


def kill_tree(pid: int) -> None:
    """The command's process group and anything else still below this launcher."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    for other in descendants(os.getpid()):
        try:
            os.kill(other, signal.SIGKILL)
        except OSError:
            pass


if __name__ == "__main__":
    main()
