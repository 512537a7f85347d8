"""warehouse/engines/duckdb.py's split_statements splits our SQL files as DuckDB's parser does.

Database.run_sql runs each file statement by statement, bound to the $names each one uses; the
split is a regular-expression scan instead of DuckDB's extract_statements (which parsed each file
once more before running it). Here every file under sql/ that DuckDB parses, and every measure
family's statement as warehouse/evaluation/evaluator.py composes it, must split into the same statements with
the same $names, and the files in PostgreSQL-only statements must be the same ones."""
from __future__ import annotations

import duckdb
import pytest

from warehouse.engines.duckdb import split_statements
from warehouse.engines.dialect import POSTGRES_ONLY
from warehouse.evaluation.evaluator import store_scores_sql
from warehouse.resources import sql_dir


def _texts() -> dict[str, str]:
    texts = {str(p.relative_to(sql_dir())): p.read_text(encoding="utf-8") for p in sorted(sql_dir().rglob("*.sql"))}
    for name in [n for n in texts if n.startswith("measures/")]:
        texts[f"store_scores around {name}"] = store_scores_sql(name)
    return texts


TEXTS = _texts()


@pytest.mark.parametrize("name", list(TEXTS))
def test_split_equals_duckdb_parser(name):
    text = TEXTS[name]
    try:
        parsed = duckdb.connect().extract_statements(text)
    except duckdb.ParserException:
        pytest.skip(f"{name} is not DuckDB SQL (Spark's)")
    assert [(s.query, frozenset(s.named_parameters)) for s in parsed] == list(split_statements(text))
    assert [POSTGRES_ONLY in s.query for s in parsed] == [POSTGRES_ONLY in q for q, _ in split_statements(text)]


@pytest.mark.parametrize("text", [
    "select 1", "select 1;", "select 1; -- a comment only\n", "-- only a comment\n", "select ';' as a; select 2",
    "select $a, '$b' as \"$c;\"; select $d -- $e ;\n", "/* ; $x */ select 1;\n\n", "select 'it''s;' ;select $x",
])
def test_split_equals_duckdb_parser_on_edge_cases(text):
    parsed = duckdb.connect().extract_statements(text)
    assert [(s.query, frozenset(s.named_parameters)) for s in parsed] == list(split_statements(text))
