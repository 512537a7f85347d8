"""The engine seam: PostgreSQL's statements, derived from the DuckDB SQL under sql/.

`sql/` holds one definition of every statement, written in DuckDB's SQL in a form both engines
run (tests/test_portable_sql.py lists what is not allowed and why). DuckDB runs the files as
they are. For PostgreSQL each statement is parsed with sqlglot (read="duckdb") and written out
for PostgreSQL (write="postgres"), after the few rewrites below, each one a place where the two
engines differ in meaning rather than in spelling:

- `log2(x)`: sqlglot writes `LOG(2, x)`, which PostgreSQL has only for numeric, not double: it
  becomes `LN(x) / LN(2)` (trec_eval calls C's log2; the quotient may differ from it in the last
  bit, 9e-16 relative at most on DL19, and the files under sql/ write ln(x) / ln(2) themselves);
- text columns of tables irw creates are `COLLATE "C"`: PostgreSQL orders text by the database's
  collation (an ICU or glibc locale moved MAP by 3e-4 on one set, DESIGN.md), trec_eval and DuckDB
  by bytes; every ranking tie broken by docid depends on it;
- a `map(varchar, varchar)` column (runs.parameters) is `JSONB`: PostgreSQL has no map type;
- `x in (select unnest($list))` is `x = any($list)`: PostgreSQL then types the list from x, and an
  empty list (which psycopg sends untyped) works;
- `round(x, n)` rounds x as a numeric (PostgreSQL has no round of a double to n places);
- `create or replace view` drops the view first: DuckDB replaces any view, PostgreSQL only one
  whose columns keep their names and order (schema 6 added columns in the middle);
- `%` in a statement that takes parameters is doubled, since psycopg reads `%` as a placeholder;
- a statement whose leading comment says `irw: duckdb only` is left out: it belongs to DuckDB's
  migration history (the trec_summary macro) and PostgreSQL gets the same result from a later,
  portable statement. `irw: postgres only` marks the converse (a unique key DuckDB does not need,
  as one process at a time writes a DuckDB file, and whose delete-then-insert in one transaction
  DuckDB's index refuses).

sqlglot turns `$name` into `%(name)s` and `?` into `%s` (psycopg's placeholders), DuckDB's float
division of integers into `CAST(a AS DOUBLE PRECISION) / b`, and `create temp table` into
`CREATE TEMPORARY TABLE`. The statements are derived once per text and process (cached).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

DUCKDB = "duckdb"
POSTGRES = "postgres"
DUCKDB_ONLY = "irw: duckdb only"
POSTGRES_ONLY = "irw: postgres only"  # DuckDB's Database.run_sql leaves these out


@dataclass(frozen=True)
class Statement:
    """One statement for one engine: its text and the $names it binds, in order of appearance."""

    text: str
    names: tuple[str, ...]
    positional: int  # how many ? placeholders


@lru_cache(maxsize=None)
def postgres_statements(text: str) -> tuple[Statement, ...]:
    """Every statement of DuckDB SQL `text` as PostgreSQL runs it (see the module docstring)."""
    import sqlglot
    from sqlglot import exp

    out = []
    for tree in sqlglot.parse(text, read=DUCKDB):
        if tree is None:
            continue
        if any(DUCKDB_ONLY in (comment or "") for comment in (tree.comments or [])):
            continue
        tree = tree.transform(_rewrite)
        marks = list(tree.find_all(exp.Placeholder))
        names = tuple(dict.fromkeys(p.name for p in marks if p.name not in ("", "?")))
        positional = sum(1 for p in marks if p.name in ("", "?"))
        tree.comments = None  # the header comments are the file's, not the statement's
        if names or positional:
            tree = tree.transform(_double_percent_signs)
        if isinstance(tree, exp.Create) and tree.args.get("replace") and tree.kind == "VIEW":
            out.append(Statement(f"DROP VIEW IF EXISTS {tree.this.sql(dialect=POSTGRES)}", (), 0))
            tree.set("replace", False)
        sql = tree.sql(dialect=POSTGRES)
        out.append(Statement(sql, names, positional))
    return tuple(out)


def _rewrite(node):
    from sqlglot import exp

    if isinstance(node, exp.In) and isinstance(node.args.get("query"), exp.Subquery):
        select = node.args["query"].this
        if (isinstance(select, exp.Select) and len(select.expressions) == 1 and not select.args.get("from")
                and isinstance(select.expressions[0], (exp.Explode, exp.Unnest))
                and isinstance(select.expressions[0].this, exp.Placeholder)):
            # x in (select unnest($list)) -> x = any($list): PostgreSQL types the list from x, so
            # an empty list (which psycopg cannot type) works too
            return exp.EQ(this=node.this.copy(),
                          expression=exp.Any(this=exp.Paren(this=select.expressions[0].this.copy())))
    if isinstance(node, exp.Round) and node.args.get("decimals") is not None:
        # round(double, n) exists for numeric only: the same rounding, back to a double
        return exp.cast(exp.Round(this=exp.cast(node.this.copy(), "NUMERIC"), decimals=node.args["decimals"].copy()),
                        "DOUBLE PRECISION")
    if isinstance(node, exp.Log) and node.args.get("expression") is not None:
        base = node.this
        if isinstance(base, exp.Literal) and base.this == "2":
            value = node.args["expression"]
            return exp.Div(this=exp.Ln(this=value.copy()), expression=exp.Ln(this=exp.Literal.number(2)))
    if isinstance(node, exp.ColumnDef):
        kind = node.args.get("kind")
        if isinstance(kind, exp.DataType):
            if kind.this in (exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT):
                constraints = list(node.args.get("constraints") or [])
                if not any(isinstance(c.args.get("kind"), exp.CollateColumnConstraint) for c in constraints):
                    constraints.insert(0, exp.ColumnConstraint(
                        kind=exp.CollateColumnConstraint(this=exp.Identifier(this="C", quoted=True))))
                    node.set("constraints", constraints)
            elif kind.this == exp.DataType.Type.MAP:
                node.set("kind", exp.DataType.build("JSONB"))
    return node


def _double_percent_signs(node):
    from sqlglot import exp

    if isinstance(node, exp.Literal) and node.is_string and "%" in node.this:
        return exp.Literal.string(node.this.replace("%", "%%"))
    if isinstance(node, exp.Mod):
        raise ValueError("`%` (modulo) in a statement with parameters: write mod(a, b), which both engines run")
    return node
