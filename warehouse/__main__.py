"""The `irw` command (pyproject's entry point) and `python -m warehouse`.

`irw trec-eval` goes straight to warehouse/trec_eval.py: a drop-in for trec_eval is run once per
file, often in loops over many files, and building the Typer app of every other command (importing
Typer, Rich and the whole warehouse API) would cost it ~0.1 s a call. Every other command goes to
warehouse/cli.py."""
from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["trec-eval"]:
        from .trec_eval import main as trec_eval

        sys.exit(trec_eval(sys.argv[2:]))
    from .cli import app

    app()


if __name__ == "__main__":
    main()
