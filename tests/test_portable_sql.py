"""The evaluation SQL (sql/eval/, sql/measures/) is one definition for both engines (issue 14):
DuckDB runs the files as they are, PostgreSQL the statements sqlglot writes from them.

- every file parses as DuckDB SQL and transpiles to PostgreSQL with unsupported_level=RAISE, and
  so do the statements warehouse/evaluation/evaluator.py composes from them (store_scores.sql around each
  measure family's SELECT);
- no file uses a construct that means something else, or nothing, on PostgreSQL (FORBIDDEN, each
  with its reason and an example it must catch, so that the check can fail), and no subquery in a
  FROM clause lacks the alias PostgreSQL 15 requires;
- on a real PostgreSQL (marked `postgres`), the six DL19 runs evaluated with every measure at
  levels 1 and 2, --compat 9 and 10, -J, -M 100 and -c give DuckDB's per-query values, to a
  relative 1e-12 and as trec_eval's 4-decimal strings; the diversity measures likewise on the
  seeded subtopic judgments of tests/test_diversity.py.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel

import warehouse
from warehouse.evaluation.evaluator import store_scores_sql
from warehouse.evaluation.measures import ALL_FAMILIES, default_measures, parse_all
from warehouse.resources import read_sql, sql_dir

from test_diversity import NAMES as DIVERSITY_NAMES, seeded_files

SQL = sql_dir()
PORTABLE_FILES = sorted(p.relative_to(SQL).as_posix() for folder in ("eval", "measures")
                        for p in (SQL / folder).glob("*.sql"))
FAMILY_FILES = sorted({f.sql for f in ALL_FAMILIES.values() if f.sql})

# (what, pattern over the SQL without its comments, why it must not be used, an example it catches)
FORBIDDEN = [
    ("struct-list parameter", r"\bunnest\s*\([^)]*\brecursive\s*:=",
     "PostgreSQL has no list of records as a parameter: such lists reach SQL as temporary tables "
     "(Database.load_rows: eval_params, eval_wanted ...)", "select unnest($params, recursive := true)"),
    ("struct literal or map", r"\{|\}|\bstruct_pack\s*\(|\bmap\s*[({]",
     "DuckDB's structs and maps have no PostgreSQL counterpart", "select {'measure': 'AP', 'k': 10}"),
    ("macro", r"\bcreate\s+(?:or\s+replace\s+)?(?:temp\s+|temporary\s+)?macro\b|\btrec_summary\s*\(",
     "PostgreSQL has no macros; schema 005's trec_summary is DuckDB's alone (summary.sql writes the rule "
     "out)", "select trec_summary(m.aggregate, s.value, s.query_id)"),
    ("lambda", r"\blambda\b|->",
     "DuckDB's lambdas (and list comprehensions) do not exist in PostgreSQL; `->` is JSON there",
     "select list_transform(xs, x -> x + 1)"),
    ("list value or function",
     r"\[|\]|\blist_\w+\s*\(|\blist\s*\(|\barray_\w+\s*\(|\blen\s*\(|\bflatten\s*\(",
     "lists (literals, indexing, list functions) are DuckDB's; PostgreSQL arrays index from 1 by other "
     "rules and have other functions", "select xs[1], len(xs)"),
    ("arg_max / max_by", r"\b(?:arg_max|arg_min|argmax|argmin|max_by|min_by)\s*\(",
     "not in PostgreSQL: take the row with row_number() over (... order by ...) = 1",
     "select arg_max(dcg_so_far, rank)"),
    ("try_cast", r"\btry_cast\s*\(", "PostgreSQL's casts fail instead of giving null",
     "select try_cast(x as integer)"),
    ("hash()", r"\bhash\s*\(", "PostgreSQL has no hash() and its hashes differ", "select hash(doc_id)"),
    ("regexp_full_match", r"\bregexp_full_match\s*\(", "not in PostgreSQL (its regex operators differ)",
     "where regexp_full_match(doc_id, '[a-z]+')"),
    ("create or replace", r"\bcreate\s+or\s+replace\b",
     "PostgreSQL replaces no table, and a view only when its columns stay the same: drop it if it "
     "exists, then create it", "create or replace temp table eval_qrels as select 1"),
    ("insert or replace", r"\binsert\s+or\s+(?:replace|ignore)\b",
     "DuckDB's shorthand: write insert ... on conflict (key) do update / do nothing",
     "insert or replace into measures values (1)"),
    ("generate_subscripts / range()", r"\bgenerate_subscripts\s*\(|\brange\s*\(",
     "DuckDB's: number rows with generate_series(a, b) as g(i), which is inclusive on both",
     "select unnest(range(1, n + 1))"),
    ("lgamma", r"\blgamma\s*\(", "not in PostgreSQL 15", "select exp(lgamma(n + 1))"),
    ("log2", r"\blog2\s*\(",
     "PostgreSQL's log(2, x) takes numeric, not double: write ln(x) / ln(2)", "select 1 / log2(rank + 1)"),
    ("qualify", r"\bqualify\b", "PostgreSQL has no QUALIFY: filter the window in an outer query",
     "select * from t qualify row_number() over () = 1"),
    ("* exclude / * replace", r"\*\s*(?:exclude|replace)\b", "DuckDB's select-list modifiers",
     "select * exclude (rank) from eval_ranked"),
    ("DuckDB join kind", r"\b(?:anti|semi|asof|positional)\s+join\b",
     "DuckDB's join kinds: write not exists / exists", "from a anti join b on a.x = b.x"),
    ("group by all / order by all", r"\b(?:group|order)\s+by\s+all\b",
     "DuckDB's: PostgreSQL reads ALL as a column", "select a, count(*) from t group by all"),
    ("% (modulo)", r"%",
     "psycopg reads % as a placeholder in a statement with parameters: write mod(a, b)", "select rank % 2"),
]


def without_comments(sql: str) -> str:
    """The SQL with its -- comments removed (string literals, which may hold --, kept)."""
    out, i, quoted = [], 0, False
    while i < len(sql):
        char = sql[i]
        if char == "'":
            quoted = not quoted
        elif not quoted and sql.startswith("--", i):
            end = sql.find("\n", i)
            i = len(sql) if end < 0 else end
            continue
        out.append(char)
        i += 1
    return "".join(out)


def test_the_portable_files_are_there():
    assert "eval/summary.sql" in PORTABLE_FILES and "measures/average_precision.sql" in PORTABLE_FILES
    assert set(FAMILY_FILES) <= set(PORTABLE_FILES) and len(FAMILY_FILES) == 23


def test_comments_are_not_code():
    text = "-- log2(x) and lists [1, 2]\nselect '--' as dashes, 1 -- qualify\nfrom t"
    assert without_comments(text) == "\nselect '--' as dashes, 1 \nfrom t"


@pytest.mark.parametrize("what, pattern, why, example", FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_each_forbidden_pattern_catches_what_it_forbids(what, pattern, why, example):
    assert re.search(pattern, without_comments(example), re.IGNORECASE), (what, example)
    assert why


@pytest.mark.parametrize("path", PORTABLE_FILES)
def test_uses_no_construct_postgres_reads_otherwise(path):
    code = without_comments(read_sql(path))
    found = [f"{what}: {match.group(0)!r} ({why})" for what, pattern, why, _ in FORBIDDEN
             for match in [re.search(pattern, code, re.IGNORECASE)] if match]
    assert not found, f"sql/{path}:\n" + "\n".join(found)


def statements_of(path: str) -> list[tuple[str, str]]:
    """(what, SQL) of every statement warehouse/evaluation/evaluator.py runs from this file: a family file's
    SELECT runs inside store_scores.sql, and is checked alone too."""
    if path in FAMILY_FILES:
        return [(path, read_sql(path)), (f"eval/store_scores.sql around {path}", store_scores_sql(path))]
    return [(path, read_sql(path))]


@pytest.mark.parametrize("path", PORTABLE_FILES)
def test_transpiles_to_postgres(path):
    for what, sql in statements_of(path):
        written = sqlglot.transpile(sql, read="duckdb", write="postgres", unsupported_level=ErrorLevel.RAISE)
        assert written and all(written), what


def test_store_scores_takes_the_family_select_once():
    text = store_scores_sql("measures/bpref.sql")
    assert "from family_scores" not in text and text.count(read_sql("measures/bpref.sql")) == 1
    assert len(sqlglot.parse(text, read="duckdb")) == 1


def unaliased_subqueries(sql: str) -> list[str]:
    """Subqueries in a FROM or JOIN without an alias, which PostgreSQL 15 refuses."""
    found = []
    for tree in sqlglot.parse(sql, read="duckdb"):
        for node in tree.find_all(exp.Subquery):
            if isinstance(node.parent, (exp.From, exp.Join)) and not node.alias:
                found.append(node.sql(dialect="duckdb")[:80])
    return found


def test_the_alias_check_finds_a_subquery_without_one():
    assert unaliased_subqueries("select * from (select 1 as a) where a = 1")
    assert not unaliased_subqueries("select * from (select 1 as a) as t where a = 1")


@pytest.mark.parametrize("path", PORTABLE_FILES)
def test_every_subquery_in_from_has_an_alias(path):
    for what, sql in statements_of(path):
        assert not unaliased_subqueries(sql), what


# -- the same numbers on PostgreSQL ---------------------------------------------------------------
DL19 = "dl19-passage"
SETTINGS = {
    "l1 compat9": {}, "l2 compat9": {"level": 2}, "l1 compat10": {"compat": 10},
    "l2 compat10": {"level": 2, "compat": 10}, "-J": {"judged_only": True}, "-M 100": {"depth": 100},
    "-c": {"complete": True}, "-J compat10 l2": {"judged_only": True, "compat": 10, "level": 2},
}
EXTRA = ["ndcg.1=3,2=9", "ndcg.1=0.5,2=0.5,3=7", "ndcg.-2=5", "ndcg_rel.1=3,2=9", "Rndcg.1=3,2=9", "G.1=3,2=9,1=4",
         "rbp.p=0.95", "rbp.1=3,2=9", "rbp.-2=1", "11pt_avg.0.0,0.5,1.0", "utility.2,-1,-1,1", "SetF(beta=0.5)",
         "AP@10(denom=min)", "RR@10", "Judged@10", "ERR@20", "nDCG(dcg=exp-log2)@10", "AP(ties=expected)",
         "AP(ties=min)", "AP(ties=max)", "nDCG(ties=expected)@10", "nDCG(ties=max)@10", "P(ties=expected)@10",
         "P(ties=min)@10", "RR(ties=expected)", "RR(ties=max)", "R(ties=expected)@1000", "R(ties=min)@1000"]
RELATIVE = 1e-12


def every_measure():
    """Every family's default measures (not the diversity ones, which need subtopics, nor the
    tie-aware ones, which need ties=, nor those of judgment groups and preferences, which need
    their own judgments: tests/test_prefs_warehouse.py runs them on PostgreSQL) and the options and
    gain maps that take other paths."""
    measures = [m for f in ALL_FAMILIES.values()
                if f.sql and f.sql not in ("measures/diversity.sql", "measures/ties.sql") and f.rel_format == "qrels"
                for m in default_measures(f)] + parse_all(EXTRA)
    return list({m.name: m for m in measures}.values())


def per_query(evaluation) -> dict[tuple[str, str, str], float]:
    return {(run, query, measure): value for run, query, measure, value in evaluation.per_query.rows}


def assert_same_values(duck: dict, pg: dict, what: str) -> None:
    assert duck.keys() == pg.keys(), what
    differing = []
    for key, a in duck.items():
        b = pg[key]
        if a is None or b is None or math.isnan(a) or math.isnan(b):
            same = (a is None and b is None) or (a is not None and b is not None and math.isnan(a) and math.isnan(b))
        else:
            same = abs(a - b) <= RELATIVE * max(abs(a), abs(b)) and f"{a:.4f}" == f"{b:.4f}"
        if not same:
            differing.append((key, a, b))
    assert not differing, f"{what}: {len(differing)} values differ, e.g. {differing[:5]}"


@pytest.fixture(scope="module")
def dl19_warehouses(tmp_path_factory, conformance, postgres_server):
    """The DL19 qrels and six runs, in a DuckDB warehouse and in a PostgreSQL one."""
    from conftest import fresh_postgres_database

    folder = conformance / DL19
    runs = sorted((folder / "runs").iterdir())
    with fresh_postgres_database(postgres_server) as url:
        duck = warehouse.open(tmp_path_factory.mktemp("portable") / "w.duckdb")
        pg = warehouse.open(url)
        try:
            for wh in (duck, pg):
                wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
                names = [wh.ingest_run(path, path.name.split(".")[2]).name for path in runs]
            assert pg.db.dialect == "postgres" and duck.db.dialect == "duckdb" and len(names) == 6
            yield duck, pg, names
        finally:
            duck.close()
            pg.close()


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_postgres_gives_duckdbs_values_on_dl19(dl19_warehouses, setting):
    duck, pg, names = dl19_warehouses
    options = SETTINGS[setting]
    measures = every_measure()
    if options.get("judged_only") and options.get("depth"):
        measures = [m for m in measures if m.family.sql != "measures/ties.sql"]
    ours = duck.evaluate(names, "dl19", measures, per_query=True, **options)
    theirs = pg.evaluate(names, "dl19", measures, per_query=True, **options)
    assert len(ours.per_query.rows) == 6 * 43 * len(measures)
    assert_same_values(per_query(ours), per_query(theirs), setting)
    assert_same_values({row[:2]: row[2] for row in ours.summary.rows},
                       {row[:2]: row[2] for row in theirs.summary.rows}, f"{setting} summary")
    assert [row[4] for row in ours.summary.rows] == [row[4] for row in theirs.summary.rows]


@pytest.mark.parametrize("setting", [{}, {"complete": True}, {"level": 2}, {"depth": 7}, {"judged_only": True}],
                         ids=["default", "-c", "-l 2", "-M 7", "-J"])
def test_postgres_gives_duckdbs_diversity_values(tmp_path, postgres_url, setting):
    qrels, run = seeded_files(tmp_path)
    values = []
    for target in (tmp_path / "w.duckdb", postgres_url):
        with warehouse.open(target) as wh:
            wh.ingest_qrels(qrels, "div", subtopics=True)
            wh.ingest_run(run, name="r")
            values.append(per_query(wh.evaluate(["r"], "div", DIVERSITY_NAMES, per_query=True, **setting)))
    assert len(values[0]) >= 5 * len(DIVERSITY_NAMES)
    assert_same_values(*values, str(setting))


def test_postgresql_statements_are_derived_once_and_read_back_from_the_cache(tmp_path, monkeypatch):
    """postgres_statements keeps what sqlglot wrote in the user's cache folder (parsing every
    statement of a command took 0.7 s of a 2 s `irw eval` on PostgreSQL): a second process reads
    the same statements back; a damaged entry is derived again; no cache folder, no cache."""
    from warehouse.engines import dialect

    text = read_sql("eval/01_qrels.sql")

    def fresh():
        dialect.postgres_statements.cache_clear()
        dialect._cache_folder.cache_clear()
        return dialect.postgres_statements(text)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    made = fresh()
    (entry,) = (tmp_path / "irw" / "postgres-sql").glob("*/*.json")
    assert fresh() == made == dialect._postgres_statements(text)
    assert any(s.names for s in made) and "CREATE TEMPORARY TABLE" in made[1].text
    entry.write_text("[[\"select 'from the cache'\", [], 0]]", encoding="utf-8")
    assert fresh() == (dialect.Statement("select 'from the cache'", (), 0),)  # read, not derived
    entry.write_text("not json", encoding="utf-8")
    assert fresh() == made
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a file"))
    (tmp_path / "a file").write_text("")
    assert fresh() == made  # the folder cannot be made: derived in the process
    dialect.postgres_statements.cache_clear()
    dialect._cache_folder.cache_clear()
