"""What stores scores a reader lacks, said once for every message that shows it: the `irw eval`
command (a read-only evaluation's ReadOnlyError, warehouse/evaluation/evaluator.py; irw serve's
pages, warehouse/serve/access.py) and, for a Python caller who opened the warehouse read-only, the
evaluate() call that does the same. One builder, so that no message spells the command its own way
(a report's measures it added, a setting's option left out) and hands a reader a command that
stores something else."""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Sequence

from warehouse.formats.escaping import shell_command, shell_word
from warehouse.evaluation.settings import Settings

# --db's value where the warehouse is a server's: a URL names a role, and is shown without its
# password, so the command reads it from IRW_DB, set by whoever runs it (never "***")
SERVER_DB = '"$IRW_DB"'


def eval_command(db: str, qrels: str, measures: Sequence[str], runs: Sequence[str] = (),
                 settings: Settings | None = None) -> str:
    """The `irw eval` command that stores these measures of these runs (none: every run the qrels
    set judges, irw eval's default) with these settings, their options as irw eval spells them
    (Settings.options). db: --db's value as a shell reads it, quoted already (a file's path
    shlex-quoted, or SERVER_DB)."""
    words = ["--qrels", qrels]
    for m in measures:
        words += ["-m", m]
    words += settings.options if settings is not None else []
    return f"irw eval --db {db} {shell_command(words, runs)}"


def writer_db(db: Any) -> tuple[str, str]:
    """--db's value in a command that stores scores in the warehouse db (an engine: path, and
    sandbox_in_process for a local file), and what its reader must do first ('' for a file, whose
    path names the warehouse for whoever runs the command)."""
    if db.sandbox_in_process:
        return shell_word(db.path), ""
    return SERVER_DB, (f"set IRW_DB to the URL of a role that may write the warehouse (this one, {db.path}, with "
                       "the user name and password of a role that may write in place of its own)")


def evaluate_call(qrels: str, measures: Sequence[str], runs: Sequence[str] = (),
                  settings: Settings | None = None) -> str:
    """The Python call that stores what eval_command would: Warehouse.evaluate's arguments, the
    settings as its keywords (those not at their defaults); runs None for every judged run."""
    keywords = [f"{f.name}={getattr(settings, f.name)!r}" for f in fields(Settings)
                if settings is not None and getattr(settings, f.name) != f.default]
    return f"evaluate({list(runs) if runs else None!r}, {qrels!r}, {list(measures)!r}" + \
        "".join(f", {k}" for k in keywords) + ")"
