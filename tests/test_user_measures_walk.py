"""What a user walk writing measures in SQL found (irw measures add, rm, eval -m of a user measure).

A measure named like a built-in with a cutoff in another case or spelling (`p_10`, `P10`,
`nDCG_cut_10`) was added, and from then on `-m p_10`, which otherwise asks "did you mean P@10?",
silently meant it; a measure's two rows for a run x query were reported with the run's internal
id; a misspelled header field was reported as a missing one on another line, and `-- parameter:`
or `-- name:` silently ignored; errors pointed to `irw measures`, which lists the built-in measures
only; `irw measures rm AP` said there is no user measure AP."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from warehouse.errors import MeasureError
from warehouse.evaluation import measures
from warehouse.evaluation.user_measures import MeasureFileError, parse_definition

from conftest import Cli, dl19_with_measure, write_file

ROOT = Path(__file__).resolve().parents[1]
PREC = ROOT / "examples" / "measures" / "precision_at_k.sql"
BODY = "select run_id, query_id, 1.0 as value from ranked_judged group by run_id, query_id\n"


def measure_file(name: str, header: str = "-- parameters: none\n-- aggregate: mean\n") -> str:
    return f"-- measure: {name}\n{header}{BODY}"


# -- names irw reads as a built-in --------------------------------------------------------------

SPELLED_OTHERWISE = {"nDCG_cut_10": "nDCG@10", "NDCG_CUT_10": "nDCG@10", "p_10": "P@10", "p_5": "P@5",
                     "MAP_CUT_10": "AP@10", "RECALL_100": "R@100", "Recall_1000": "R@1000", "P10": "P@10",
                     "ndcg10": "nDCG@10", "mrr10": "RR@10", "MAP10": "AP@10", "SUCCESS10": "Success@10"}


@pytest.mark.parametrize("name", list(SPELLED_OTHERWISE))
def test_a_built_in_name_with_its_cutoff_in_another_case_or_spelling_is_refused(name):
    meant = SPELLED_OTHERWISE[name]
    # where no measure has the name, -m asks for the built-in ...
    with pytest.raises(MeasureError) as unknown:
        measures.parse(name, builtin_only=True)
    assert f"did you mean {meant}?" in str(unknown.value)
    # ... so a user measure may not take it: `-m p_10` would silently be the user's
    with pytest.raises(MeasureFileError) as refused:
        parse_definition(measure_file(name), "mine.sql")
    assert str(refused.value).startswith(f"mine.sql:1: {name} is the built-in measure {meant} in other letter case "
                                         "or with its cutoff written otherwise"), str(refused.value)
    assert "give yours another name" in str(refused.value)


@pytest.mark.parametrize("name", ["prec", "myap", "judgedk", "rbpg", "prec10", "p10_hand", "gm_map10", "rbp_binary"])
def test_a_name_of_its_own_is_still_accepted(name):
    assert parse_definition(measure_file(name), "mine.sql").name == name


@pytest.mark.parametrize("name, says", [("Map", "differs from the built-in measure MAP only in letter case"),
                                        ("P_10", "is the name of a built-in measure")])
def test_the_family_names_are_refused_as_before(name, says):
    with pytest.raises(MeasureFileError, match=says):
        parse_definition(measure_file(name), "mine.sql")


def test_p_10_is_refused_by_irw_measures_add_and_is_not_added(seeded_db, irw, tmp_path):
    path = write_file(tmp_path, "p_10.sql", measure_file("p_10"))
    refused = irw("measures", "add", path)
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"Error: {path}:1: p_10 is the built-in measure P@10"), refused.stderr
    assert "did you mean P@10?" in irw("eval", "-m", "p_10").stderr


# -- a measure's rows ----------------------------------------------------------------------------

def test_two_rows_for_a_run_and_query_name_the_run_not_its_internal_id(seeded_db, irw, tmp_path):
    twice = f"-- measure: tworows\n-- parameters: none\n-- aggregate: mean\n{BODY}union all\n{BODY}"
    assert irw("measures", "add", write_file(tmp_path, "tworows.sql", twice)).exit_code == 0
    result = irw("eval", "-m", "tworows", "--qrels", "base")
    assert result.exit_code != 0  # the message is what is checked here
    # the rows come in the engine's order: the first repeated one is either query's
    assert re.search(r"gives more than one row for run tagA, query q[12]: return one row per run x query",
                     result.stderr), result.stderr


# -- the header ----------------------------------------------------------------------------------

@pytest.mark.parametrize("line, meant", [("-- agregate: mean", "aggregate"), ("-- parameter: none", "parameters"),
                                         ("-- Descripton: mine", "description"), ("-- name: other", "measure")])
def test_a_misspelled_header_field_is_refused_at_its_own_line(line, meant):
    text = f"-- measure: mine\n-- parameters: none\n{line}\n-- aggregate: mean\n{BODY}"
    with pytest.raises(MeasureFileError) as refused:
        parse_definition(text, "typohdr.sql")
    word = line[3:].partition(":")[0]
    assert str(refused.value).startswith(f"typohdr.sql:3: `-- {word}:` is not a header field; did you mean "
                                         f"`-- {meant}:`?"), str(refused.value)


def test_other_header_comments_are_the_author_s_notes(tmp_path):
    """As the examples' `-- Grain:` and `-- trec_eval:` lines (docs/measures.md says so)."""
    text = f"-- measure: mine\n-- parameters: none\n-- aggregate: mean\n-- author: me\n-- Grain: run x query\n{BODY}"
    assert parse_definition(text, "mine.sql").name == "mine"
    assert parse_definition(PREC.read_text(), str(PREC)).name == "prec"


def test_a_missing_parameters_line_says_to_write_none():
    with pytest.raises(MeasureFileError) as refused:
        parse_definition(f"-- measure: mine\n-- aggregate: mean\n{BODY}", "mine.sql")
    assert str(refused.value).startswith("mine.sql:3: the header lacks `-- parameters: ...`")
    assert str(refused.value).endswith("a measure without parameters says `-- parameters: none`")


def test_a_declared_parameter_the_sql_never_reads_is_refused_at_its_line(seeded_db, irw, tmp_path):
    """`-- parameters: k=10, j=3` with no $j was added silently: prec_j(j=3) and prec_j(j=5) gave the
    same numbers, stored as two measures."""
    text = PREC.read_text().replace("-- measure: prec", "-- measure: prec_j").replace("k=10", "k=10, j=3")
    refused = irw("measures", "add", write_file(tmp_path, "prec_j.sql", text))
    line = text.splitlines().index("-- parameters: k=10, j=3") + 1
    assert (refused.exit_code, refused.stderr) == (1, (
        f"Error: {tmp_path / 'prec_j.sql'}:{line}: the parameter j is declared but the SQL never reads it ($j); use "
        "it, or remove it from the header\n"))
    assert "prec_j" not in irw("measures", "list").stdout


# -- the commands messages point to --------------------------------------------------------------

def test_an_unknown_name_points_to_the_listing_of_the_warehouse_s_own_measures(seeded_db, irw):
    """`irw measures` lists the built-in measures only: with prec added, `-m Prec` says so and
    names `irw measures list`, which lists prec."""
    assert irw("eval", "-m", "nosuch", "--qrels", "base").stderr.endswith(
        "unknown measure 'nosuch'; `irw measures` lists them\n")
    assert "prec" not in irw("measures", db=False).stdout.split()
    assert irw("measures", "add", PREC).exit_code == 0
    assert "prec" in irw("measures", "list").stdout.split()
    result = irw("eval", "-m", "Prec", "--qrels", "base")
    assert result.exit_code != 0  # the message is what is checked here
    assert result.stderr.endswith("unknown measure 'Prec'; did you mean prec? `irw measures` lists the built-in "
                                  "measures, `irw measures list` this warehouse's own\n"), result.stderr


def test_rm_of_a_built_in_says_it_is_built_in(seeded_db, irw):
    for name in ("AP", "P@10"):
        result = irw("measures", "rm", name)
        assert result.exit_code == 1
        assert result.stderr == (f"Error: {name} is a built-in measure, which cannot be removed; `irw measures rm` "
                                 "removes a measure added with `irw measures add` (`irw measures list` lists them)\n")
    assert irw("measures", "rm", "nosuch").stderr == "Error: no user measure 'nosuch'; `irw measures list` lists them\n"


# -- docs/measures.md ----------------------------------------------------------------------------

def test_the_sql_for_a_level_the_docs_give_runs(seeded_db, irw):
    """The docs said `measure = 'AP' and level = 2` "in SQL", which the table scores refuses (it
    has no level); they name score_values, and scores joined to evaluations."""
    docs = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    assert "`measure = 'AP' and level = 2` in the view `score_values`" in docs
    assert "joined to `evaluations` with `relevance_level = 2`" in docs
    assert "an installed irw, from pip or a wheel, does not include that folder" in docs
    assert irw("eval", "-m", "AP(rel=2)", "--qrels", "base").exit_code == 0
    view = irw("sql", "select count(*) as n from score_values where measure = 'AP' and level = 2", "-f", "csv")
    table = irw("sql", "select count(*) as n from scores as s inner join evaluations as e "
                       "on e.evaluation_id = s.evaluation_id where s.measure = 'AP' and e.relevance_level = 2",
                "-f", "csv")
    assert view.exit_code == 0 and view.stdout == table.stdout and view.stdout.split() != ["n", "0"]


# -- a measure that never ends ---------------------------------------------------------------------

# endless once a run is evaluated; on no run (the check of `irw measures add`) it ends at once
ENDLESS_ON_A_RUN = ("-- measure: endless\n-- parameters: none\n-- aggregate: mean\n"
                    "with recursive r(n) as (select 1 where exists (select 1 from ranked_judged) "
                    "union all select n + 1 from r)\n"
                    "select run_id, query_id, cast((select count(*) from r) as double) as value\n"
                    "from ranked_judged group by run_id, query_id\n")
ENDLESS = ("-- measure: endless\n-- parameters: none\n-- aggregate: mean\n"
           "with recursive r(n) as (select 1 union all select n + 1 from r)\n"
           "select run_id, query_id, cast((select count(*) from r) as double) as value\n"
           "from ranked_judged group by run_id, query_id\n")


def test_a_measure_that_never_ends_is_stopped_and_stores_nothing(seeded_db, tmp_path):
    """A measure's statement ran with no time limit: an endless recursive CTE held `irw eval` (and
    DuckDB's file lock) until killed, and froze every page of a DuckDB `irw serve`."""
    import warehouse
    from warehouse.errors import MeasureValueError
    from warehouse.evaluation.user_measures import time_limit

    with warehouse.open(seeded_db) as wh, time_limit(1):
        wh.add_measure(write_file(tmp_path, "endless.sql", ENDLESS_ON_A_RUN))
        with pytest.raises(MeasureValueError, match=r"^endless \(.*endless\.sql\): its SQL, run on 1 run, ran "
                                                     r"longer than 1 s and was stopped, and nothing was stored"):
            wh.evaluate(["tagA"], "base", ["endless", "AP"])
        assert wh.sql("select count(*) from scores").rows == [(0,)]
        with pytest.raises(MeasureFileError, match=r"endless2\.sql: its SQL, run on no run at all, ran longer "
                                                   r"than 1 s and was stopped"):
            wh.add_measure(write_file(tmp_path, "endless2.sql", ENDLESS.replace("endless", "endless2")))


# -- a SELECT without the columns a measure returns ---------------------------------------------

@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("select, missing", [("select run_id, query_id, 1.0 as score", "value"),
                                             ("select run_id, 1.0 as value", "query_id")])
def test_a_select_lacking_a_column_is_told_which_not_the_alias_irw_wraps_it_in(engine, select, missing,
                                                                               request, tmp_path):
    """It said `Binder Error: Values list "u" does not have a column named "value"` (DuckDB) or
    `column u.value does not exist` (PostgreSQL): u is irw's name for the file's SELECT."""
    location = request.getfixturevalue("postgres_url") if engine == "postgres" else str(tmp_path / "w.duckdb")
    irw = Cli(location)
    assert irw("ingest", "qrels", write_file(tmp_path, "q.txt", "q1 0 d1 1\n"), "--name", "base").exit_code == 0
    group = "run_id, query_id" if "query_id" in select else "run_id"
    path = write_file(tmp_path, "cols.sql", f"-- measure: cols\n-- parameters: none\n-- aggregate: mean\n"
                                            f"{select}\nfrom ranked_judged group by {group}\n")
    refused = irw("measures", "add", path)
    assert refused.exit_code == 1
    assert refused.stderr == (f"Error: {path}:4: the SELECT returns no column {missing}; a measure returns the "
                              f"columns run_id, query_id and value, one row per run x query (name a column with "
                              f"`as {missing}`)\n")
    assert '"u"' not in refused.stderr and "u." not in refused.stderr


SLOW = ("-- measure: slow\n-- parameters: none\n-- aggregate: mean\n"
        "with recursive r(n) as (select 1 union all select n + 1 from r where n < 100000)\n"
        "select run_id, query_id, cast((select count(*) from r) as double) as value\n"
        "from ranked_judged group by run_id, query_id\n")


def test_a_measure_that_needs_longer_is_given_it_with_eval_s_timeout(seeded_db, irw, tmp_path):
    """A measure slower than 300 s on a large collection was stopped with no way to give it longer:
    `irw eval --timeout` (Warehouse.evaluate's timeout) sets its limit, and the message says so."""
    import warehouse

    assert irw("measures", "add", write_file(tmp_path, "slow.sql", SLOW)).exit_code == 0
    stopped = irw("eval", "tagA", "-m", "slow", "--timeout", "0.05")
    assert stopped.exit_code == 1
    assert "its SQL, run on 1 run, ran longer than 0.05 s and was stopped, and nothing was stored: if it only " \
           "needs longer on these runs, compute it with a longer limit (`irw eval --timeout SECONDS`, " \
           "Warehouse.evaluate(..., timeout=SECONDS); 0 for none)" in stopped.stderr, stopped.stderr
    computed = irw("eval", "tagA", "-m", "slow", "--timeout", "0", "--format", "csv")
    assert computed.exit_code == 0, computed.stderr
    assert computed.stdout.splitlines()[1].split(",")[-1] == "100000.0"
    with warehouse.open(seeded_db) as wh:
        with pytest.raises(warehouse.UsageError, match=r"timeout=-1: give seconds, 0 or more"):
            wh.evaluate(["tagA"], "base", ["slow"], timeout=-1)
        assert wh.evaluate(["tagA"], "base", ["slow"], timeout=0).table().rows  # stored: read, not run


HEAVY = ("-- measure: heavy\n-- parameters: none\n-- aggregate: mean\n"
         "select run_id, query_id, (select cast(sum(a.range + b.range) % 7 as double) from range(40000) a, "
         "range(40000) b) as value\nfrom ranked_judged group by run_id, query_id\n")


def test_measures_add_takes_a_timeout_for_its_check(seeded_db, irw, tmp_path):
    """`irw measures add` of a file whose SQL is slow on no run at all (an uncorrelated subquery) ran
    for 300 s twice, silent, with no option to stop it sooner (a user-measure walk killed it after
    400 s): --timeout (Warehouse.add_measure's timeout=) bounds its check, and nothing is added."""
    import time

    import warehouse

    path = write_file(tmp_path, "heavy.sql", HEAVY)
    started = time.monotonic()
    stopped = irw("measures", "add", path, "--timeout", "0.2")
    assert time.monotonic() - started < 10
    assert stopped.exit_code == 1
    assert stopped.stderr.startswith(f"Error: {path}: its SQL, run on no run at all, ran longer than 0.2 s and was "
                                     "stopped, and nothing was stored: if it only needs longer, add it with a "
                                     "longer limit (`irw measures add FILE --timeout SECONDS`"), stopped.stderr
    assert irw("measures", "list").exit_code == 1  # none added
    with warehouse.open(seeded_db) as wh:
        with pytest.raises(warehouse.IrwError, match=r"ran longer than 0.2 s"):
            wh.add_measure(path, timeout=0.2)
        with pytest.raises(warehouse.UsageError, match=r"timeout=-1: give seconds, 0 or more"):
            wh.add_measure(path, timeout=-1)
        assert not wh.user_measures().rows


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_column_ranked_judged_lacks_is_said_with_the_columns_it_has(engine, request, tmp_path):
    """`avg(relevant)` said only DuckDB's `Referenced column "relevant" not found in FROM clause!`
    (its candidates' line dropped) or PostgreSQL's `column "relevant" does not exist` (a user-measure
    walk): ranked_judged's columns follow, as the measure reads the view."""
    location = request.getfixturevalue("postgres_url") if engine == "postgres" else str(tmp_path / "w.duckdb")
    irw = Cli(location)
    assert irw("ingest", "qrels", write_file(tmp_path, "q.txt", "q1 0 d1 1\n"), "--name", "base").exit_code == 0
    path = write_file(tmp_path, "col.sql", "-- measure: col\n-- parameters: none\n-- aggregate: mean\n"
                                           "select run_id, query_id, avg(relevant) as value\n"
                                           "from ranked_judged group by run_id, query_id\n")
    refused = irw("measures", "add", path)
    assert refused.exit_code == 1
    (line,) = refused.stderr.splitlines()
    assert line.startswith(f"Error: {path}:4: ") and '"relevant"' in line, line
    assert line.endswith("(ranked_judged's columns: run, run_id, qrels, qrels_set_id, level, query_id, doc_id, rank, "
                         "score, grade, is_rel, judged, retrieved, rel_so_far, ideal_rank, num_ret, num_rel, "
                         "num_nonrel, num_judged)"), line


def added_on_one_run(irw: Cli, tmp_path: Path, name: str, sql: str) -> Path:
    """The measure file tmp_path/NAME.sql (sql under its header) added to irw's warehouse, which
    holds qrels base (q1 judges d1) and run tagA (q1 retrieves d1)."""
    assert irw("ingest", "qrels", write_file(tmp_path, "q.txt", "q1 0 d1 1\n"), "--name", "base").exit_code == 0
    assert irw("ingest", "run", write_file(tmp_path, "r.txt", "q1 Q0 d1 1 1.0 tagA\n")).exit_code == 0
    path = write_file(tmp_path, f"{name}.sql", f"-- measure: {name}\n-- parameters: none\n-- aggregate: mean\n{sql}")
    assert irw("measures", "add", path).exit_code == 0
    return path


@pytest.mark.postgres
def test_a_measure_postgresql_refuses_after_a_copy_is_named_in_its_terms(postgres_url, tmp_path):
    """A measure DuckDB runs (pg_sleep is a no-op there) copied into PostgreSQL, whose sandbox
    refuses it, said `irw sql reads the warehouse and nothing else: PG_SLEEP() acts outside the
    query` at `irw eval`, naming neither the measure nor its file (a user-measure walk)."""
    duck = Cli(tmp_path / "w.duckdb")
    path = added_on_one_run(duck, tmp_path, "hsleep", "select run_id, query_id, 1.0 as value\n"
                            "from ranked_judged, (select pg_sleep(0)) s group by run_id, query_id\n")
    copied = duck("copy", "--from", str(tmp_path / "w.duckdb"), "--to", postgres_url, db=False)
    assert copied.exit_code == 0, copied.stderr
    # said by the copy, which checks a measure it adds as `irw measures add` does (it said "added")
    (note,) = [line for line in copied.stderr.splitlines() if "refuses its SQL" in line]
    assert note.startswith(f"measure hsleep: this warehouse refuses its SQL ({path}:5: a measure reads the warehouse "
                           "and nothing else: pg_sleep() acts outside the query), so `irw eval -m hsleep` here fails: "
                           "replace it with a file it runs (`irw measures add FILE --replace --db "), note
    refused = Cli(postgres_url)("eval", "-m", "hsleep")
    assert refused.exit_code != 0
    assert refused.stderr == (f"Error: hsleep ({path}:5): a measure reads the warehouse and nothing else: pg_sleep() "
                              "acts outside the query\n"), refused.stderr
    # adding the same file again there is tried, not "already added with this same definition;
    # nothing changed" (a user-measures walk)
    again = Cli(postgres_url)("measures", "add", path)
    assert again.exit_code == 1 and "nothing changed" not in again.stderr
    # named as the SQL console names it, as typed and as PostgreSQL folds it (a walk: PG_SLEEP() here)
    assert "pg_sleep() acts outside the query" in again.stderr, again.stderr


@pytest.mark.postgres
def test_a_division_by_zero_on_postgresql_is_said_with_duckdb_s_advice(postgres_url, tmp_path):
    """DuckDB's infinite value is refused with `nullif(divisor, 0)`; PostgreSQL stops at the division
    and said only `division by zero` (a user-measure walk): the advice follows it there too."""
    irw = Cli(postgres_url)
    path = added_on_one_run(irw, tmp_path, "dz", "select run_id, query_id, count(*) / sum(case when false then 1 "
                            "else 0 end) as value\nfrom ranked_judged group by run_id, query_id\n")
    refused = irw("eval", "-m", "dz")
    assert refused.exit_code != 0
    assert refused.stderr == (f"Error: dz ({path}:4): division by zero; a user measure's value is a number: "
                              "nullif(divisor, 0) gives null, which scores 0; cast('nan' as double) marks a value "
                              "undefined for the query, as trec_eval's -nan\n"), refused.stderr


def test_a_measure_of_one_s_own_ending_in_a_digit_is_suggested_by_its_name(seeded_db, irw, tmp_path):
    """`-m P_G2` for a measure p_g2 (k=10 by default) offered p_g2(k=2), its last digit read as a
    cutoff (a user-measure walk): the name in its own letter case is offered."""
    prec = (ROOT / "examples" / "measures" / "precision_at_k.sql").read_text()
    path = write_file(tmp_path, "pg2.sql", prec.replace("-- measure: prec", "-- measure: p_g2"))
    assert irw("measures", "add", path).exit_code == 0
    for typed, meant in (("P_G2", "p_g2"), ("P_G2(k=5)", "p_g2(k=5)")):
        result = irw("eval", "-m", typed, "--qrels", "base")
        assert result.exit_code == 2 and f"unknown measure '{typed}'; did you mean {meant}?" in result.stderr, typed


def test_a_leaderboard_by_a_measure_of_one_s_own_leaves_its_tie_columns_empty(seeded_db, irw, tmp_path):
    """Its tie range is empty (no tie order of a measure of one's own is computed), and
    rank_may_change_with_ties read `false` beside it, as if computed (a user-measure walk)."""
    assert irw("measures", "add", ROOT / "examples" / "measures" / "precision_at_k.sql").exit_code == 0
    for measure, tie_cells in (("prec", ["", "", ""]), ("P@10", ["0.1", "0.1", "false"])):
        board = irw("report", "leaderboard", "-m", measure, "--qrels", "base", "-f", "csv")
        assert board.exit_code == 0, board.stderr
        header, row = board.stdout.splitlines()
        assert header.split(",")[-1] == "rank_may_change_with_ties"
        assert row.split(",")[-3:] == tie_cells, (measure, row)


def test_the_aggregate_is_read_in_any_letter_case_as_the_field_names_are(seeded_db, irw, tmp_path):
    """`-- Aggregate:` was taken and `-- aggregate: Mean` refused, "say mean ..." (a user-measure walk)."""
    prec = (ROOT / "examples" / "measures" / "precision_at_k.sql").read_text()
    assert "-- aggregate: mean" in prec
    path = write_file(tmp_path, "prec.sql", prec.replace("-- aggregate: mean", "-- Aggregate: Mean"))
    added = irw("measures", "add", path)
    assert added.exit_code == 0, added.stderr
    assert "aggregate: mean)" in added.stderr


def test_a_measure_of_one_s_own_prints_each_parameter_with_its_key_in_trec_format(seeded_db, irw, tmp_path):
    """myerr(k=4) and myerr(gmax=4) both printed myerr_4 in `irw eval -f trec` (and in the measures
    table's trec_name), two numbers under one name; so did a measure named myp_5 beside myp(k=5)."""
    text = ("-- measure: two\n-- parameters: k=10, w=1\n-- aggregate: mean\n"
            "select run_id, query_id, $w * count(*) filter (where is_rel and retrieved and rank <= $k) / $k as value "
            "from ranked_judged group by run_id, query_id\n")
    assert irw("measures", "add", write_file(tmp_path, "two.sql", text)).exit_code == 0
    result = irw("eval", "-m", "two(k=4)", "-m", "two(w=4)", "-m", "two", "--qrels", "base", "-f", "trec")
    assert result.exit_code == 0, result.stderr
    names = [line.split("\t")[0].strip() for line in result.stdout.splitlines() if not line.startswith("runid")]
    assert sorted(set(names)) == ["two", "two_k_4", "two_w_4"]
    assert names.count("two_k_4") == names.count("two_w_4") == names.count("two") > 0  # a line each per run
    stored = irw("sql", "select measure, trec_name from measures where measure like 'two%' order by 1", "-f", "csv")
    assert stored.stdout.splitlines()[1:] == ["two,two", "two(k=4),two_k_4", "two(w=4),two_w_4"], stored.stdout


def test_a_measure_with_no_p_is_not_counted_in_the_family_said(conformance, tmp_path):
    """`over 1 comparison (every run against BM25 x 2 measures)` when one measure's values were all
    NaN (a user-measures walk): the family says the measures it holds."""
    irw, _ = dl19_with_measure(conformance, tmp_path, "nanm", "-- measure: nanm\n-- parameters: none\n"
                               "-- aggregate: mean\nselect run_id, query_id, cast('nan' as double) as value\n"
                               "from ranked_judged group by run_id, query_id\n")
    result = irw("compare", "BM25", "BM25_RM3", "-m", "nanm", "-m", "P@10", "--baseline", "BM25", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    assert "# correction: Holm-Bonferroni step-down over 1 comparison (every run against BM25 x 1 measure)" in \
        result.stderr.splitlines(), result.stderr
