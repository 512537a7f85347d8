"""SQL is one source (issue 25, item 3): no SQL text in Python outside the engine modules. Every
query irw runs is a file under sql/ (with its header: what it is, its grain, its inputs, how it
matches trec_eval), read with resources.read_sql or an engine's run_file; what must be built at run
time is built from pieces under sql/ (resources.composed_sql). The engine modules (they speak
their engine's own SQL: connections, sessions, COPY, the catalog) are the exception.

A SQL string literal is a string constant, or an f-string's text with its holes filled, that
begins with a SQL statement's keyword and parses as a statement (sqlglot, DuckDB's dialect):
"select count(*) from runs" is one, "Drop unjudged documents." and "with --engine spark: ..." are not.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot.errors import ErrorLevel

PACKAGE = Path(__file__).resolve().parent.parent / "warehouse"
# where an engine is implemented: the only modules that may hold SQL text
# the engine modules under warehouse/engines/ (spark_store.py is none: it stores what Spark computed)
ENGINE_MODULES = {"__init__.py", "duckdb.py", "postgres.py", "spark.py", "dialect.py"}
# irw writes SQL in lower case, prose in sentences: a statement's keyword, lower case, first
_KEYWORD = re.compile(r"\s*\(?\s*(select|insert|update|delete|create|drop|alter|with|explain|summarize|copy|pragma|"
                      r"attach|detach|set|reset|begin|commit|rollback|describe|show|install|load|checkpoint|"
                      r"vacuum|truncate)\s")
# statements sqlglot keeps as an opaque command: their keyword and a lower-case word are enough
_COMMANDS = ("copy", "pragma", "attach", "detach", "set", "reset", "begin", "commit", "rollback", "describe",
             "show", "install", "load", "checkpoint", "vacuum")


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def is_sql(text: str) -> bool:
    """text begins with a statement's keyword and parses as SQL (DuckDB's dialect)."""
    match = _KEYWORD.match(text)
    if not match:
        return False
    if match.group(1) in _COMMANDS:
        return bool(re.match(r"\s*[a-z(]", text[match.end():]))
    try:
        # parameters as the drivers take them (?, %s, %(name)s) read as values
        bound = re.sub(r"%\(\w+\)s|%s|\?", "1", text)
        parsed = sqlglot.parse(bound, read="duckdb", error_level=ErrorLevel.RAISE)
    except Exception:  # sqlglot's errors: not SQL
        return False
    return any(tree is not None and not isinstance(tree, sqlglot.exp.Command) for tree in parsed)


def sql_literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each SQL string literal in a module (f-strings' parts inside them not again)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs, inside, found = _docstrings(tree), set(), []
    for node in ast.walk(tree):
        if id(node) in docs or id(node) in inside:
            continue
        text = _text(node)
        if text is not None and is_sql(text):
            found.append((node.lineno, text))
            if isinstance(node, ast.JoinedStr):
                inside.update(id(v) for v in node.values)
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name not in ENGINE_MODULES or p.parent != PACKAGE / "engines")


@pytest.mark.parametrize("example", [
    "select count(*) from runs", "delete from x where run_id = ?", "insert into t (a) values ($a) returning a",
    "create temp view frame as select * from frame_input", "copy (select 1) to 'x' (format csv)",
    "begin transaction read only", "set local statement_timeout = 5", "describe frame_input",
    "with a as (select 1) select * from a",
])
def test_the_scan_knows_sql(example):
    assert is_sql(example)


@pytest.mark.parametrize("example", [
    "Drop unjudged documents.", "Copy only this run (repeatable); default: every run.",
    "with --engine spark, runs are files: --runs x", " with these settings (", "Set precision times set recall.",
    "select", "EXPLAIN of nothing", "with x, y and z (the runs)",
])
def test_the_scan_knows_prose(example):
    assert not is_sql(example)


def test_no_sql_text_in_python_outside_the_engine_modules():
    found = []
    for path in _modules():
        module = path.relative_to(PACKAGE).as_posix()
        for line, text in sql_literals(path):
            found.append(f"warehouse/{module}:{line}: {text[:80]!r}")
    assert not found, ("SQL text in Python outside the engine modules: move it to a file under sql/ (with its "
                       "header) and run it with run_file, or build it from pieces there (resources.composed_sql):\n"
                       + "\n".join(found))


def _header_lines(path: Path) -> list[str]:
    """The comment lines a file under sql/ starts with, as they are written."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        lines.append(line)
    return lines


def _header(path: Path) -> str:
    """The comment lines a file under sql/ starts with, their text only, in lower case."""
    return "\n".join(line[2:].strip() for line in _header_lines(path)).lower()


# the header's trec_eval line: one that starts with it, not a passing mention in prose
_TREC_EVAL_LINE = re.compile(r"^-- trec_eval\b", re.MULTILINE)


def test_every_sql_file_s_header_names_its_grain_inputs_and_trec_eval():
    """The house rule (CONTRIBUTING.md): each file under sql/ starts with a header saying what it is,
    its grain, its inputs and how it matches trec_eval (a developer's walk found four without their
    inputs, and no test; a later one, files without the trec_eval line). A migration's inputs are the
    schema before it: sql/schema/ names its grain only. The trec_eval line is every file's,
    migrations included: a header line that starts with `-- trec_eval` (mostly `-- trec_eval: ...`;
    also `-- trec_eval 9.0.8: ...`, `-- trec_eval (m_ndcg.c): ...`), `none (why)` where nothing it
    computes reaches a measure, else which trec_eval (or ndeval, gdeval) behaviour its rows
    reproduce. A passing mention elsewhere in the header ("the tag (trec_eval's runid)", a quotation
    of trec_eval's text) is not that line."""
    sql = PACKAGE.parent / "sql"
    files = sorted(sql.rglob("*.sql"))
    assert len(files) > 200
    lacking = [f"{path.relative_to(sql)}: no {what}" for path in files for what in ("grain", "inputs")
               if what not in _header(path) and not (what == "inputs" and path.parent.name == "schema")]
    lacking += [f"{path.relative_to(sql)}: no line starting `-- trec_eval`" for path in files
                if not _TREC_EVAL_LINE.search("\n".join(_header_lines(path)))]
    assert not lacking, "\n".join(lacking)
