"""SQL the one-shot path, ingest and the reports both need is written once under sql/ and composed
(warehouse/resources.py read_sql: `from "dir/file.sql" as x` becomes that file's SELECT):

- which run rows a qrels set judges: sql/ingest/judged_rows.sql, linked by ingest's and the
  one-shot's link_judged_rows.sql;
- the column reader of run files (read_csv's options) and its clean-line verdict:
  sql/ingest/run_columns_read.sql and run_columns_verdict.sql, read by ingest's
  stage_run_columns.sql and the one-shot's stage_runs.sql;
- which scores a report lacks: sql/reports/lacking_scores.sql, read by missing_scores.sql and
  missing_board_scores.sql.

Each rule's text is in its users as irw runs them, and a telling piece of it is written in no
other file (the migrations before 018 aside: applied history, as schema 004's judged rows)."""
from __future__ import annotations

import re

import pytest

from warehouse.resources import read_sql, sql_dir

# rule file -> (the files that compose it, a piece of the rule no other file may write)
RULES = {
    "ingest/judged_rows.sql": (["ingest/link_judged_rows.sql", "oneshot/link_judged_rows.sql"],
                               r"inner\s+join\s+qrels\s+as\s+q\s+on\s+q\.query_id\s*=\s*r\.query_id"),
    "ingest/run_columns_read.sql": (["ingest/stage_run_columns.sql", "oneshot/stage_runs.sql"],
                                    r"'rank_text'\s*:\s*'VARCHAR'"),
    "ingest/run_columns_verdict.sql": (["ingest/stage_run_columns.sql", "oneshot/stage_runs.sql"],
                                       r"\bnot\s+run_rank_ok\s*\(\s*(?:\w+\.)?rank_text\s*,\s*\$strict"),
    "reports/lacking_scores.sql": (["reports/missing_scores.sql", "reports/missing_board_scores.sql"],
                                   r"\be\.query_count\s*=\s*0\b"),
}


def body(path: str) -> str:
    lines = read_sql(path).splitlines()
    return "\n".join(lines[next(i for i, line in enumerate(lines) if not line.startswith("--")):]).strip()


def code(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


@pytest.mark.parametrize("rule", list(RULES))
def test_each_user_composes_the_rule(rule):
    users, _ = RULES[rule]
    for user in users:
        assert (sql_dir() / user).read_text(encoding="utf-8").count(f'"{rule}"') == 1, user
        assert body(rule) in read_sql(user), user


@pytest.mark.parametrize("rule", list(RULES))
def test_no_other_file_writes_the_rule(rule):
    _, piece = RULES[rule]
    assert re.search(piece, code((sql_dir() / rule).read_text(encoding="utf-8")), re.IGNORECASE)
    found = []
    for path in sorted(sql_dir().rglob("*.sql")):
        name = path.relative_to(sql_dir()).as_posix()
        history = re.fullmatch(r"schema/(\d{3})_\w+\.sql", name)
        if name == rule or (history and int(history.group(1)) < 18):
            continue
        if re.search(piece, code(path.read_text(encoding="utf-8")), re.IGNORECASE):
            found.append(name)
    assert not found, f"written again instead of composing sql/{rule}: {found}"
