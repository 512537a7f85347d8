"""The `irw` command (pyproject's entry point) and `python -m warehouse`.

`irw trec-eval` goes straight to warehouse/trec_eval.py: a drop-in for trec_eval is run once per
file, often in loops over many files, and building the Typer app of every other command (importing
Typer, Rich and the whole warehouse API) would cost it ~0.1 s a call. Every other command goes to
warehouse/cli.py."""
from __future__ import annotations

import os
import sys


def main() -> None:
    if sys.argv[1:2] == ["trec-eval"]:
        from .trec_eval import in_this_process
        from .trec_eval import main as trec_eval

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
        os._exit(status)
    from .cli import app

    app()


if __name__ == "__main__":
    main()
