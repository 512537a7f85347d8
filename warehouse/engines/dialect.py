"""The engine seam: PostgreSQL's and Spark SQL's statements, derived from the DuckDB SQL under sql/.

`sql/` holds one definition of every statement, written in DuckDB's SQL in a form both engines
run (tests/test_portable_sql.py lists what is not allowed and why). DuckDB runs the files as
they are. For PostgreSQL each statement is parsed with sqlglot (read="duckdb") and written out
for PostgreSQL (write="postgres"), after the few rewrites below, each one a place where the two
engines differ in meaning rather than in spelling:

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
`CREATE TEMPORARY TABLE`. The statements are derived once per text and kept in the user's cache
folder (postgres_statements).
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
    """Every statement of DuckDB SQL `text` as PostgreSQL runs it (see the module docstring).

    Derived once and kept in the user's cache folder (~/.cache/irw/postgres-sql, or
    $XDG_CACHE_HOME's), keyed by the text, this module's source and sqlglot's version: parsing
    and writing out every statement a command runs took 0.7 s of a 2 s `irw eval` of stored
    scores and 3.8 s of a cold leaderboard (with importing sqlglot), on every command. Without
    a home folder, or one that cannot be written, they are derived in each process."""
    from warehouse.resources import keep_cached, read_cached

    cached = _cache_file(text)
    if cached is not None:
        kept = read_cached(cached, lambda rows: tuple(Statement(t, tuple(names), int(positional))
                                                      for t, names, positional in rows))
        if kept is not None:
            return kept
    out = _postgres_statements(text)
    if cached is not None:
        keep_cached(cached, [[st.text, list(st.names), st.positional] for st in out])
    return out


@lru_cache(maxsize=1)
def _cache_folder() -> str | None:
    """The folder of postgres_statements' cache for this irw and sqlglot, in the user's cache
    folder, or None where sqlglot's version or this module's source cannot be read."""
    import hashlib
    import importlib.metadata
    from pathlib import Path

    try:
        version = importlib.metadata.version("sqlglot")
        source = Path(__file__).read_bytes()
    except (OSError, importlib.metadata.PackageNotFoundError):
        return None
    digest = hashlib.sha256(f"sqlglot {version}\0".encode() + source).hexdigest()[:24]
    return f"postgres-sql/{digest}"


def _cache_file(text: str) -> str | None:
    import hashlib

    folder = _cache_folder()
    if folder is None:
        return None
    return f"{folder}/{hashlib.sha256(text.encode()).hexdigest()[:32]}.json"


def _postgres_statements(text: str) -> tuple[Statement, ...]:
    from sqlglot import exp

    out = []
    for tree in _statements(text):
        tree = tree.transform(_rewrite)
        marks = list(tree.find_all(exp.Placeholder))
        names = tuple(dict.fromkeys(p.name for p in marks if p.name not in ("", "?")))
        positional = sum(1 for p in marks if p.name in ("", "?"))
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


# -- Spark ------------------------------------------------------------------------------------
SPARK = "spark"


@dataclass(frozen=True)
class SparkStatement:
    """One statement of DuckDB SQL as warehouse/engines/spark.py's SparkDatabase runs it on Spark SQL.

    Spark SQL has temporary views but no temporary tables, and no INSERT, DELETE, RETURNING or ON
    CONFLICT on them, so every statement that writes a table comes as its SELECT and a `kind` that
    says what to do with the rows: SparkDatabase keeps each table irw writes as a cached DataFrame
    under a temporary view of the same name.

    kind: "query" (text runs as it is), "create" (create temp table NAME as SELECT: the rows are
    computed and cached), "view" (a temporary view of text, computed when read), "insert" (text's
    rows appended to table under columns; conflict: the key whose stored rows the new ones replace,
    or keep when keep_existing; returning: the columns of the new row to return), "delete" (text
    selects the rows that stay), "drop", "rename" (to `target`).
    """

    kind: str
    text: str
    names: tuple[str, ...] = ()
    table: str | None = None
    columns: tuple[str, ...] = ()
    conflict: tuple[str, ...] = ()
    keep_existing: bool = False
    returning: tuple[str, ...] = ()
    target: str | None = None


def _statements(text: str, skip: str | None = None):
    """Every statement of DuckDB SQL `text` as a sqlglot tree (read="duckdb"), without comments,
    and without the statements whose leading comment says they are DuckDB's only (or `skip`'s
    engine's): the parsing every engine's derivation shares."""
    import sqlglot

    markers = (DUCKDB_ONLY, skip) if skip else (DUCKDB_ONLY,)
    for tree in sqlglot.parse(text, read=DUCKDB):
        if tree is None:
            continue
        if any(marker in (comment or "") for comment in (tree.comments or []) for marker in markers):
            continue
        for node in tree.walk():  # the header comments are the file's, not the statement's
            node.comments = None
        yield tree


@lru_cache(maxsize=None)
def spark_statements(text: str) -> tuple[SparkStatement, ...]:
    """Every statement of DuckDB SQL `text` as SparkDatabase runs it (see SparkStatement).

    Rewrites, each where Spark SQL means something else than DuckDB (see _spark_rewrite):
    - a number literal with a point or an exponent is a DOUBLE: Spark reads `1.0` as a DECIMAL,
      and `1.0 * x` then computes in fixed point (6 decimals) instead of in doubles;
    - `sum(x order by y)`, the ordered sums that add per-query values in trec_eval's order so a
      value has the same bits on every run, is a parse error in Spark: it becomes
      `aggregate(array_sort(collect_list(named_struct('k', y, 'v', x))), 0D, (a, e) -> a + e.v)`,
      the same additions in the same order (null when x is null on every row, as a sum);
    - `list(x order by y)`, whose order Spark drops (collect_list keeps none), becomes the values
      of the same sorted structs;
    - `cross join [lateral] generate_series(a, b) as g(i)` becomes `cross join lateral
      explode(...) as g(i)` over SEQUENCE(a, b), without the values a descending sequence has when
      a > b (the series is then empty);
    - `with x as materialized (...)`, a planner hint, loses the hint (Spark's parser refuses it);
    - statements that write a table become a kind and a SELECT (SparkStatement).
    Parameters are Spark's named markers (`:name`), which spark.sql binds (values stay bound).
    Statements marked `irw: postgres only` (planner statistics) or `irw: duckdb only` are left out.
    """
    from sqlglot import exp

    out = []
    for tree in _statements(text, POSTGRES_ONLY):
        tree = tree.transform(_spark_rewrite)
        names = tuple(dict.fromkeys(p.name for p in tree.find_all(exp.Placeholder) if p.name not in ("", "?")))
        if any(p.name in ("", "?") for p in tree.find_all(exp.Placeholder)):
            raise ValueError("positional parameters (?) on Spark: name them ($name), as the files under sql/ do")
        out.append(_spark_statement(tree, names))
    return tuple(out)


def _spark_sql(node) -> str:
    return node.sql(dialect=SPARK)


def _spark_statement(tree, names: tuple[str, ...]) -> SparkStatement:
    from sqlglot import exp

    if isinstance(tree, exp.Create) and tree.kind in ("TABLE", "VIEW"):
        select = tree.expression
        if select is None:  # create table t (columns): SparkDatabase.load_rows makes those
            raise ValueError(f"create table without a query on Spark: {_spark_sql(tree)[:80]}")
        return SparkStatement("create" if tree.kind == "TABLE" else "view", _spark_sql(select), names,
                              table=tree.this.name)
    if isinstance(tree, exp.Drop) and tree.kind in ("TABLE", "VIEW"):
        tables = tree.args.get("tables") or [tree.this]
        if len(tables) != 1:
            raise ValueError("drop one table per statement on Spark")
        return SparkStatement("drop", "", (), table=tables[0].name)
    if isinstance(tree, exp.Alter) and len(tree.args.get("actions") or []) == 1 \
            and isinstance(tree.args["actions"][0], exp.AlterRename):
        return SparkStatement("rename", "", (), table=tree.this.name, target=tree.args["actions"][0].this.name)
    if isinstance(tree, exp.Delete):
        table = tree.this.name
        where = tree.args.get("where")
        keep = f"SELECT * FROM {table}"
        if where is not None:
            keep += f" WHERE NOT COALESCE({_spark_sql(where.this)}, FALSE)"
        return SparkStatement("delete", keep, names, table=table)
    if isinstance(tree, exp.Insert):
        target = tree.this
        table = target.this.name if isinstance(target, exp.Schema) else target.name
        columns = tuple(c.name for c in target.expressions) if isinstance(target, exp.Schema) else ()
        source = tree.expression
        if isinstance(source, exp.Values):
            rows = [row.expressions for row in source.expressions]
            select = " UNION ALL ".join(
                "SELECT " + ", ".join(f"{_spark_sql(v)} AS c{i}" for i, v in enumerate(row)) for row in rows)
        else:
            select = _spark_sql(source)
        conflict, keep = (), False
        on_conflict = tree.args.get("conflict")
        if on_conflict is not None:
            conflict = tuple(k.this.name if isinstance(k, exp.Ordered) else k.name
                             for k in on_conflict.args.get("conflict_keys") or [])
            action = str(on_conflict.args.get("action") or "").upper()
            keep = action == "DO NOTHING"
            if not keep:
                # `do update set c = excluded.c` for columns of the new row: the new row replaces the
                # stored one (the statements under sql/ set every column they insert, and defaults)
                for assignment in on_conflict.expressions:
                    value = assignment.expression
                    if not (isinstance(value, exp.Column) and value.table.lower() == "excluded"
                            and value.name == assignment.this.name):
                        raise ValueError(f"on conflict on Spark replaces the stored row with the new one: "
                                         f"{_spark_sql(assignment)} is not `c = excluded.c`")
        returning = tree.args.get("returning")
        returned = tuple(c.name for c in returning.expressions) if returning is not None else ()
        return SparkStatement("insert", select, names, table=table, columns=columns, conflict=conflict,
                              keep_existing=keep, returning=returned)
    if isinstance(tree, (exp.Update, exp.Merge)):
        raise ValueError(f"UPDATE on Spark: SparkDatabase keeps tables as DataFrames ({_spark_sql(tree)[:80]})")
    return SparkStatement("query", _spark_sql(tree), names)


# generate_series(a, b) in a FROM clause: SEQUENCE(a, b) counts down when a > b, where the series is
# empty, hence the filter
_SERIES = "EXPLODE(FILTER(SEQUENCE({start}, {end}), irw_i -> irw_i >= {start} AND irw_i <= {end}))"
# {keys}: 'k1', y1, 'k2', y2 ...: ARRAY_SORT orders structs field by field, so by the keys in turn
_ORDERED_SUM = ("CASE WHEN COUNT({x}) > 0 THEN AGGREGATE(ARRAY_SORT(COLLECT_LIST(NAMED_STRUCT({keys}, 'v', {x}))), "
                "CAST(0 AS DOUBLE), (irw_sum, irw_e) -> irw_sum + COALESCE(irw_e.v, 0)) END")
_ORDERED_LIST = "TRANSFORM(ARRAY_SORT(COLLECT_LIST(NAMED_STRUCT({keys}, 'v', {x}))), irw_e -> irw_e.v)"


def _spark_rewrite(node):
    import sqlglot
    from sqlglot import exp

    if isinstance(node, exp.Join) and isinstance(node.this, (exp.Table, exp.Lateral)) \
            and isinstance(node.this.this, exp.GenerateSeries):
        series = node.this.this
        start = _spark_sql(series.args["start"].copy().transform(_spark_rewrite))
        end = _spark_sql(series.args["end"].copy().transform(_spark_rewrite))
        rows = sqlglot.parse_one(_SERIES.format(start=start, end=end), read=SPARK)
        node.set("this", exp.Lateral(this=rows, alias=node.this.args["alias"].copy()))
        return node
    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
        node.set("materialized", None)  # a planner hint of DuckDB and PostgreSQL; Spark's parser refuses it
        return node
    if isinstance(node, exp.Literal) and not node.is_string and any(c in node.this for c in ".eE") \
            and not isinstance(node.parent, exp.Cast):
        return exp.Cast(this=node.copy(), to=exp.DataType.build("DOUBLE"))
    if isinstance(node, (exp.Sum, exp.ArrayAgg)) and isinstance(node.this, exp.Order):
        order = node.this
        if any(key.args.get("desc") for key in order.expressions):
            raise ValueError(f"an ordered aggregate on Spark sorts ascending: {order.sql(dialect=DUCKDB)}")
        # the transform is top-down: the parts are rewritten here, before they are copied as text
        x = _spark_sql(order.this.copy().transform(_spark_rewrite))
        keys = ", ".join(f"'k{i}', {_spark_sql(key.this.copy().transform(_spark_rewrite))}"
                         for i, key in enumerate(order.expressions, 1))
        template = _ORDERED_SUM if isinstance(node, exp.Sum) else _ORDERED_LIST
        return sqlglot.parse_one(template.format(x=x, keys=keys), read=SPARK)
    return node
