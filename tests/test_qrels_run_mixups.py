"""A newcomer's mix-ups of qrels set and run names (the docs walk): `irw eval dl19` (a qrels set
given as a run) and `--qrels BM25` (a run given as the qrels set) were told only that no run (no
set) has the name; and `--qrels dl19` after `irw ingest qrels qrels.dl19-passage.txt` (named by
its file) did not name the one set stored. Each now says what the name is, or the set to use."""
from __future__ import annotations

import pytest


@pytest.fixture
def dl19(irw, conformance):
    folder = conformance / "dl19-passage"
    assert irw("ingest", "qrels", folder / "qrels.dl19-passage.txt").exit_code == 0
    assert irw("ingest", "run", folder / "runs").exit_code == 0
    return irw


def test_a_qrels_set_given_as_a_run_is_said_to_be_one(dl19):
    result = dl19("eval", "qrels.dl19-passage", "-m", "AP")
    assert result.exit_code == 1
    assert result.stderr == ("Error: no run named 'qrels.dl19-passage': qrels.dl19-passage is a qrels set; choose it "
                             "as the qrels set (--qrels qrels.dl19-passage), and runs by their names; `irw runs` lists "
                             "them\n")
    followed = dl19("eval", "--qrels", "qrels.dl19-passage", "BM25", "-m", "AP")
    assert followed.exit_code == 0 and "BM25" in followed.stdout


def test_a_run_given_as_the_qrels_set_is_said_to_be_one(dl19):
    result = dl19("eval", "--qrels", "BM25", "-m", "AP")
    assert result.exit_code == 1
    assert result.stderr == ("Error: no qrels set named 'BM25': BM25 is a run, not a qrels set; the only stored set "
                             "is qrels.dl19-passage; `irw qrels` lists the stored sets\n")


def test_a_name_of_no_set_names_the_only_stored_set(dl19):
    result = dl19("eval", "--qrels", "dl19", "-m", "AP")
    assert result.exit_code == 1
    assert result.stderr == ("Error: no qrels set named 'dl19'; the only stored set is qrels.dl19-passage; "
                             "`irw qrels` lists the stored sets\n")
    assert dl19("eval", "--qrels", "qrels.dl19-passage", "-m", "AP").exit_code == 0
