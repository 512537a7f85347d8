"""The `irw` command (pyproject's entry point) and `python -m warehouse`.

`irw trec-eval` goes straight to warehouse/commands/trec_eval.py: a drop-in for trec_eval is run once per
file, often in loops over many files, and building the Typer app of every other command (importing
Typer, Rich and the whole warehouse API) would cost it ~0.1 s a call. Every other command goes to
warehouse/commands/irw.py."""
from __future__ import annotations

import os
import signal
import sys

from warehouse.formats.files import OUTPUT_ERRNOS, output_failed


def interrupted() -> int:
    """Ctrl-C (warehouse/interrupt.py): said on stderr; the exit status a shell expects."""
    from warehouse.interrupt import EXIT_STATUS

    try:
        sys.stderr.write("Error: interrupted (Ctrl-C): the steps that finished are kept, the one under way was "
                         "rolled back; run the command again to finish (what is stored is not stored again)\n")
        sys.stderr.flush()
    except OSError:
        pass
    return EXIT_STATUS


def _remove_spills() -> None:
    """What DuckDB spilled for an in-memory database still open (warehouse/engines/duckdb.py), and the folders
    irw made that are still there (warehouse/leftovers.py), before os._exit."""
    db = sys.modules.get("warehouse.engines.duckdb")
    if db is not None:
        db.remove_memory_spills()
    leftovers = sys.modules.get("warehouse.leftovers")
    if leftovers is not None:
        leftovers.sweep()


def main() -> None:
    # What the terminal's encoding cannot write (a tag in Chinese under PYTHONIOENCODING=latin-1)
    # goes out as \uXXXX instead of ending the command in a UnicodeEncodeError.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass
    from warehouse.interrupt import Interrupted, install, pending

    install()
    try:
        _main()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: a Ctrl-C now would only kill the teardown
    except BaseException as exc:
        # Ctrl-C, or what it made a query raise on the way (DuckDB's "Query interrupted")
        if isinstance(exc, Interrupted) or pending():
            _remove_spills()
            os._exit(interrupted())  # no interpreter teardown: the daemon watcher, DuckDB's threads
        raise


def _main() -> None:
    if sys.argv[1:2] == ["trec-eval"]:
        from warehouse.commands.trec_eval import in_this_process
        from warehouse.commands.trec_eval import main as trec_eval

        if not in_this_process(sys.argv[2:]):  # --engine spark: Spark's JVM is stopped at exit
            sys.exit(trec_eval(sys.argv[2:]))
        status = trec_eval(sys.argv[2:], process_ends=True)
        # Nothing is left to do but exit: the one-shot database is in memory (trec_eval.main left it
        # open), and tearing it down and then the interpreter cost ~10-20 ms of a ~0.3 s call.
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            status = status or 1
        except OSError as exc:
            status = output_failed(exc) if exc.errno in OUTPUT_ERRNOS else status or 1
        _remove_spills()
        os._exit(status)
    from warehouse.commands.irw import app

    try:
        app()
    except OSError as exc:
        if exc.errno not in OUTPUT_ERRNOS:
            raise
        sys.exit(output_failed(exc))


if __name__ == "__main__":
    main()
