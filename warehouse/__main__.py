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


# The commands that change nothing: no warehouse, no file (warehouse/commands/irw.py). `irw runs`,
# `irw qrels`, `irw measures [list]` and `irw serve` open the warehouse read-only, `irw sql` sandboxed
# (its -o file is written after the query, whole or not at all), `irw trec-eval` evaluates in a
# database of its own in memory. Every other command writes: ingest, rm, rename, edit, migrate and
# measures add/rm change the warehouse; eval, compare and the reports store the scores they compute
# (the reports write their pages too); copy writes the target warehouse, export a folder, demo both.
READ_ONLY_COMMANDS = ("runs", "qrels", "sql", "trec-eval", "serve")


def _writes_nothing(argv: list[str]) -> bool:
    """Whether the command of argv (sys.argv[1:]) changes nothing: READ_ONLY_COMMANDS, and `irw
    measures` and `irw measures list` (not add or rm). What is not surely one of them writes (`irw
    eval`, which on Spark without --into stores nothing, included)."""
    command = argv[0] if argv else ""
    if command == "measures":
        return not any(word in ("add", "rm") for word in argv[1:])
    return command in READ_ONLY_COMMANDS


def interrupted() -> int:
    """Ctrl-C (warehouse/interrupt.py): said on stderr, as what it left: a command that changes
    nothing says so; one that writes, that what it finished is kept; the exit status a shell expects."""
    from warehouse.interrupt import EXIT_STATUS

    if _writes_nothing(sys.argv[1:]):
        message = "Error: interrupted (Ctrl-C): nothing was changed\n"
    else:
        message = ("Error: interrupted (Ctrl-C): the steps that finished are kept, the one under way was "
                   "rolled back; run the command again to finish (what is stored is not stored again)\n")
    try:
        sys.stderr.write(message)
        sys.stderr.flush()
    except OSError:
        pass
    return EXIT_STATUS


def _notes_on_stderr() -> None:
    """The library's notes (warehouse.errors.Note warnings, as warehouse/ingestion/files.py's
    LeftOutNote: a document left out of a folder's runs) said as the command's other notes are:
    a line each on stderr, its control characters escaped, each once; whatever -W or
    PYTHONWARNINGS says of warnings. Other warnings are shown as Python shows them."""
    import warnings

    warnings.filterwarnings("default", category=UserWarning, module=r"warehouse\.")
    python_shows = warnings.showwarning
    said: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        module = sys.modules.get("warehouse.errors")
        if module is None or not issubclass(category, module.Note):
            python_shows(message, category, filename, lineno, file, line)
            return
        from warehouse.formats.escaping import shown

        text = shown(str(message))
        if text not in said:
            said.add(text)
            sys.stderr.write(text + "\n")

    warnings.showwarning = show


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
    _notes_on_stderr()
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
