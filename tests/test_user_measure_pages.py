"""A measure a user added shows its `-- description:` on the pages that show its column (a user-measure
walk: the leaderboard's HTML never showed it, so a column named p5_g2 said nothing to a colleague),
escaped as every name is; pages without a user measure are as they were (tests/golden)."""
from __future__ import annotations


from conftest import dl19_with_measure
from test_serve import get, served

DESCRIBED = """-- measure: p5_g2
-- parameters: none
-- aggregate: mean
-- description: precision at 5 counting only grade >= 2 <b>judged</b>
select run_id, query_id, count(*) filter (where grade >= 2 and rank <= 5) / 5.0 as value
from ranked_judged
group by run_id, query_id
"""
NOTE = ('<p class="note user-measures">Measures added to this warehouse: <strong>p5_g2</strong>: precision at 5 '
        'counting only grade &gt;= 2 &lt;b&gt;judged&lt;/b&gt;.</p>')


def test_each_page_of_a_user_measure_says_what_its_description_says(conformance, tmp_path):
    irw, _ = dl19_with_measure(conformance, tmp_path, "p5_g2", DESCRIBED)
    for command in (["leaderboard", "-m", "p5_g2", "-m", "AP"], ["compare", "BM25", "BM25_RM3", "-m", "p5_g2"],
                    ["run", "BM25", "-m", "p5_g2", "--baseline", "BM25_RM3"]):
        written = irw("report", *command, "-o", tmp_path / "page.html")
        assert written.exit_code == 0, written.stderr
        assert (tmp_path / "page.html").read_text().count(NOTE) == 1, command
    assert irw("report", "leaderboard", "-m", "AP", "-o", tmp_path / "page.html").exit_code == 0
    assert "user-measures" not in (tmp_path / "page.html").read_text()  # a board without it
    with served(str(irw.db), log=tmp_path / "serve.log") as base:
        status, _, page = get(f"{base}/qrels/dl19?m=p5_g2&m=AP")
        assert status == 200 and page.count(NOTE) == 1, page[:2000]
