"""The README's "A warehouse of several collections", run as a user runs it (issue 23, "How it is
shown"): each command typed into bash exactly as printed, in a folder holding `qrels/` and `runs/`
of ../shared/conformance/multi-collection (links, never copies), with `irw` on the PATH. What each
prints must be what the README shows (times excepted: ingest times and file dates differ from
machine to machine), and the numbers must be trec_eval 9.0.8's own for the same files
(`expected/<collection>.<SYSTEM>.all_trec.q[.l2].v9.txt`). The same files laid out one folder per
collection build the same twelve runs, kept apart, with the same numbers. And the same commands
on a fresh PostgreSQL database (`--db URL`) print what they print on DuckDB."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import fresh_postgres_database
from test_walkthrough import bash, blocks, commands, notes_are_shown, section, table_rows

SECTION = section("A warehouse of several collections")
STEPS = [step for block in blocks(SECTION) for step in commands(block)]
SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
COLLECTIONS = ("dl21", "dl22", "covid", "news")
JUDGED = ("dl21", "covid", "news")  # DL 2022 has no qrels in the data
QUERIES = {"dl21": 53, "dl22": 76, "covid": 50, "news": 57}
NAMES = {(s, c): f"{s}.{c}" for s in SYSTEMS for c in COLLECTIONS}  # as the README's ingest names them
RENAMED = {"SPLADE_P_P_ENSEMBLE_DISTIL.covid": "SPLADE.covid"}  # the README's `irw rename run`
TREC = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}
TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


@pytest.fixture(scope="module")
def data(multi_collection) -> Path:
    return multi_collection


def expected(data: Path, collection: str, system: str, level: int = 1) -> dict[str, str]:
    """trec_eval's summary ("all") values of the four measures for a run (at -l 2 when level is 2)."""
    suffix = ".l2" if level == 2 else ""
    out = {}
    for line in (data / "expected" / f"{collection}.{system}.all_trec.q{suffix}.v9.txt").read_text().splitlines():
        name, query, value = line.split()
        if query == "all" and name in TREC.values():
            out[name] = value
    assert len(out) == len(TREC)
    return out


def user_folder(base: Path, data: Path) -> Path:
    (base / "qrels").symlink_to(data / "qrels", target_is_directory=True)
    (base / "runs").symlink_to(data / "runs", target_is_directory=True)
    return base


def walk(folder: Path, db: str | None = None) -> list[tuple[str, list[str], subprocess.CompletedProcess]]:
    """Every command of the section, in order, in one folder (each builds on the ones before);
    with db, each command also given `--db db`."""
    return [(command, printed, bash(command if db is None else f"{command} --db '{db}'", folder))
            for command, printed in STEPS]


@pytest.fixture(scope="module")
def folder(tmp_path_factory, data) -> Path:
    return user_folder(tmp_path_factory.mktemp("multi-collection-user"), data)


@pytest.fixture(scope="module")
def walked(folder):
    return walk(folder)


def untimed(lines: list[str]) -> list[str]:
    return [TIME.sub("<time>", line) for line in lines]


def result_of(walked, starts: str) -> subprocess.CompletedProcess:
    (result,) = [r for c, _, r in walked if c.startswith(starts)]
    return result


def rows_of(walked, starts: str) -> list[dict[str, str]]:
    header, *rows = table_rows(result_of(walked, starts).stdout.splitlines())
    return [dict(zip(header, row)) for row in rows]


def system_and_collection(run: str) -> tuple[str, str]:
    run = {new: old for old, new in RENAMED.items()}.get(run, run)
    system, collection = run.rsplit(".", 1)
    return system, collection


def test_the_section_walks_what_the_issue_asks():
    verbs = [" ".join(command.split()[:3]) for command, _ in STEPS]
    assert verbs[:6] == ["irw ingest qrels"] * 3 + ["irw ingest run"] * 3
    assert [command.split()[3] for command, _ in STEPS[3:6]] == [f"runs/{s}/" for s in SYSTEMS]  # one per folder
    for needed in ("irw runs", "irw eval --qrels", "irw compare --qrels", "irw rename run",
                   "irw report leaderboard", "irw sql"):
        assert any(v.startswith(needed) or c.startswith(needed) for v, (c, _) in zip(verbs, STEPS)), needed
    chosen = [c for c, _ in STEPS if "*" in c and "--system" in c]
    assert chosen, "a pattern and --system"
    assert any("(rel=2)" in c for c, _ in STEPS)  # DL's binary measures at grade 2


def test_every_command_prints_what_the_readme_shows(walked):
    assert len(walked) == len(STEPS) >= 12
    for command, printed, result in walked:
        assert result.returncode == 0, (command, result.stderr)
        shown = [line for line in printed if not line.startswith("# ")]
        assert untimed(result.stdout.splitlines()) == untimed(shown), command
        notes_are_shown(command, printed, result.stderr)


def test_ingest_names_each_file_by_its_folder_and_says_so(walked):
    """The README quotes the naming line for runs/BM25/trec_results_covid.txt; every file gets one."""
    for system in SYSTEMS:
        messages = result_of(walked, f"irw ingest run runs/{system}/").stderr.splitlines()
        for collection in COLLECTIONS:
            line = (f"runs/{system}/trec_results_{collection}.txt: named {system}.{collection}, system {system}, "
                    "from its folder and file name")
            assert any(m.startswith(line) for m in messages), (line, messages)
    assert ("`runs/BM25/trec_results_covid.txt: named BM25.covid, system BM25, from its folder and file name`"
            in " ".join(SECTION.split()))


def test_runs_lists_twelve_runs_apart_with_their_judging_qrels(walked, folder):
    listed = json.loads(bash("irw runs --format json", folder).stdout)
    by_name = {r["name"]: r for r in listed}
    assert len(listed) == 12
    for (system, collection), name in NAMES.items():
        run = by_name[RENAMED.get(name, name)]
        assert run["system"] == system
        assert run["tag"] == ("run_id" if system.startswith("SPLADE") else "rank")  # placeholders, never names
        assert run["queries"] == QUERIES[collection]
        assert run["judged_by"] == (f"{collection} {QUERIES[collection]}/{QUERIES[collection]}"
                                    if collection in JUDGED else None)


def test_printed_numbers_are_trec_eval_s(walked, data):
    rows = rows_of(walked, "irw eval --qrels covid")
    assert sorted(system_and_collection(r["run"]) for r in rows) == [(s, "covid") for s in SYSTEMS]
    for row in rows:
        system, collection = system_and_collection(row["run"])
        oracle = expected(data, collection, system)
        assert row["queries"] == "50"
        assert (row["nDCG@10"], row["AP"]) == (oracle["ndcg_cut_10"], oracle["map"]), row

    rows = rows_of(walked, "irw eval --qrels dl21")
    assert [r["run"] for r in rows] == [f"{s}.dl21" for s in SYSTEMS]
    for row in rows:
        system, _ = system_and_collection(row["run"])
        at2, at1 = expected(data, "dl21", system, level=2), expected(data, "dl21", system)
        assert row["AP(rel=2)"] == at2["map"] and row["P(rel=2)@10"] == at2["P_10"]
        assert row["RR(rel=2)"] == at2["recip_rank"] and row["nDCG@10"] == at1["ndcg_cut_10"]
        assert at2["map"] != at1["map"]  # the level matters on DL's 0-3 grades

    rows = rows_of(walked, "irw compare --qrels news")
    assert [r["run"] for r in rows] == ["BM25_RM3.news", "SPLADE_P_P_ENSEMBLE_DISTIL.news"]
    for row in rows:
        system, _ = system_and_collection(row["run"])
        assert row["run_mean"] == expected(data, "news", system)["ndcg_cut_10"]
        assert row["baseline_mean"] == expected(data, "news", "BM25")["ndcg_cut_10"]

    rows = rows_of(walked, "irw eval '*.news'")
    assert [r["run"] for r in rows] == ["BM25.news", "SPLADE_P_P_ENSEMBLE_DISTIL.news"]
    for row in rows:
        oracle = expected(data, "news", system_and_collection(row["run"])[0])
        assert (row["P@10"], row["RR"]) == (oracle["P_10"], oracle["recip_rank"])

    rows = rows_of(walked, "irw sql")
    assert [r["system"] for r in rows] == list(SYSTEMS)
    for row in rows:
        for collection in JUDGED:
            assert row[collection] == expected(data, collection, row["system"])["ndcg_cut_10"], (row, collection)


def test_the_systems_table_is_trec_eval_s_values_and_their_mean(walked, folder, data):
    rows = rows_of(walked, "irw report systems -m nDCG@10 --format table")
    assert [r["system"] for r in rows] == ["SPLADE_P_P_ENSEMBLE_DISTIL", "BM25_RM3", "BM25"]  # by mean
    for row in rows:
        values = [expected(data, collection, row["system"])["ndcg_cut_10"] for collection in sorted(JUDGED)]
        assert [row[collection] for collection in sorted(JUDGED)] == values, row
        # the mean of trec_eval's 4-decimal values is within their rounding of the mean shown
        assert abs(float(row["mean"]) - sum(map(float, values)) / len(values)) <= 0.00006, row
    page = (folder / "systems.html").read_text(encoding="utf-8")
    assert "SPLADE.covid" in page  # the renamed run is the one behind SPLADE's covid value
    assert not any(f"{s}.dl22" in page for s in SYSTEMS)  # no qrels judge DL 2022: no value, no run named


def test_a_collection_without_qrels_is_not_offered_another_year_s(walked, folder):
    """(A team walk) `--qrels dl22`, for DL 2022's runs that no stored set judges, asked "did you mean
    dl21?": DL 2021's judgments for DL 2022's runs. A set differing only in numbers is another year's
    or version's; the message says so, names the runs named after the set, and how to ingest it."""
    for command in ("irw eval --qrels dl22 -m AP", "irw report leaderboard --qrels dl22 -f table"):
        result = bash(command, folder)
        assert result.returncode == 1
        assert result.stderr == (
            "Error: no qrels set named 'dl22'; the stored dl21 differs from it only in numbers (another year's or "
            "version's judgments, not a spelling of it); 3 stored runs are named after it (BM25.dl22, BM25_RM3.dl22, "
            "SPLADE_P_P_ENSEMBLE_DISTIL.dl22): ingest its own qrels with `irw ingest qrels FILE --name dl22`; "
            "`irw qrels` lists the stored sets\n"), command
        assert "did you mean" not in result.stderr
    # a misspelling is still offered its set
    assert "did you mean covid?" in bash("irw eval --qrels Covid -m AP", folder).stderr


def test_the_leaderboard_shows_the_renamed_run_and_only_covid(walked, folder, data):
    page = (folder / "covid.html").read_text(encoding="utf-8")
    assert "SPLADE.covid" in page and "SPLADE_P_P_ENSEMBLE_DISTIL.covid" not in page
    assert "BM25.covid" in page and "BM25_RM3.covid" in page
    assert not any(f"{s}.{c}" in page for s in SYSTEMS for c in ("dl21", "dl22", "news"))
    assert expected(data, "covid", "SPLADE_P_P_ENSEMBLE_DISTIL")["ndcg_cut_10"] in page


def evaluations(folder: Path, db: str | None = None) -> dict[tuple[str, str, int], dict[str, str]]:
    """(system, collection, level) -> {trec_eval name: 4-decimal value} for every judged run of the
    warehouse in folder, as `irw eval --qrels C --format json` gives them (level 2 for DL)."""
    suffix = "" if db is None else f" --db '{db}'"
    listed = json.loads(bash(f"irw runs --format json{suffix}", folder).stdout)
    system_of = {r["name"]: r["system"] for r in listed}
    out: dict[tuple[str, str, int], dict[str, str]] = {}
    for collection in JUDGED:
        for level in (1, 2) if collection.startswith("dl") else (1,):
            result = bash(f"irw eval --qrels {collection} -l {level} -m AP -m nDCG@10 -m P@10 -m RR "
                          f"--format json{suffix}", folder)
            assert result.returncode == 0, result.stderr
            for row in json.loads(result.stdout):
                key = (system_of[row["run"]], collection, level)
                assert key not in out, key  # one run per system and collection
                out[key] = {TREC[m]: f"{row[m]:.4f}" for m in TREC}
    return out


def test_every_judged_run_equals_trec_eval_on_four_measures(walked, folder, data):
    got = evaluations(folder)
    wanted = {(s, c, level): expected(data, c, s, level)
              for s in SYSTEMS for c in JUDGED for level in ((1, 2) if c == "dl21" else (1,))}
    assert got == wanted


def test_trec_format_equals_trec_eval_s_lines(walked, folder, data):
    """`irw eval RUN --format trec` prints trec_eval's summary lines for the four measures."""
    for system in SYSTEMS:
        result = bash(f"irw eval {system}.news --qrels news -m AP -m nDCG@10 -m P@10 -m RR --format trec", folder)
        assert result.returncode == 0, result.stderr
        printed = {tuple(line.split()[:2]): line.split()[2] for line in result.stdout.splitlines()}
        assert {name: printed[(name, "all")] for name in TREC.values()} == expected(data, "news", system)


def test_the_publisher_s_folder_of_system_folders_gets_a_hint_that_works(tmp_path, data):
    """`irw ingest run runs/` on the publisher's layout (a folder holding only system folders) is
    refused naming the folders, and its hint, run as printed, stores the twelve runs as the
    README's one command per folder does."""
    user_folder(tmp_path, data)
    result = bash("irw ingest run runs/", tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        "Error: runs: a folder without run files, only folders (BM25, BM25_RM3, SPLADE_P_P_ENSEMBLE_DISTIL); "
        "a folder's subfolders are not read: ingest them with `irw ingest run runs/*/`")
    assert not (tmp_path / "irw.duckdb").exists() or json.loads(bash("irw runs --format json", tmp_path).stdout) == []
    (hint,) = re.findall(r"`(irw ingest run [^`]+)`", result.stderr)
    assert f"`{hint}` stores the three folders at once" in SECTION
    result = bash(hint, tmp_path)
    assert result.returncode == 0, result.stderr
    listed = json.loads(bash("irw runs --format json", tmp_path).stdout)
    assert {(r["name"], r["system"]) for r in listed} == {(name, s) for (s, _), name in NAMES.items()}


# -- a command that chose runs but named no qrels set -----------------------------------------------

# (command without --qrels, the one stored set judging the runs it chose): it is taken, as that
# --qrels is (these were refused with "name the qrels set with --qrels: ... add `--qrels covid`")
TAKEN = [
    ("irw eval BM25.covid -m AP", "covid"),
    ("irw eval 'BM25*.dl2?' -m AP", "dl21"),  # and BM25.dl22 and BM25_RM3.dl22, judged by none, left out
    ("irw compare '*.news' -m nDCG@10 --baseline BM25.news", "news"),
    ("irw compare -m nDCG@10 --baseline BM25.news", "news"),  # every run, against the baseline's set's
    ("irw report run SPLADE.covid -m AP -o splade.html", "covid"),
]
HINTED = [  # (command without --qrels, what the error says after the list of stored sets, the --qrels it offers)
    ("irw report leaderboard --system BM25_RM3 -m AP -o rm3.html",
     "of the 4 runs chosen, qrels covid judges 1, dl21 1 and news 1: add `--qrels covid`, `--qrels dl21` or "
     "`--qrels news` (`irw runs` shows which qrels sets judge each run)", ["covid", "dl21", "news"]),
]
# a run no stored set judges: no --qrels helps, and the error says that first (it said "name the
# qrels set with --qrels", which a walk tried in vain, before saying that none judges the run)
UNJUDGED = ("irw eval BM25.dl22 -m AP", "no stored qrels set judges a query of run BM25.dl22 (this warehouse holds 3: "
            "covid, dl21, news): ingest its collection's qrels with `irw ingest qrels FILE --name NAME`, then name it "
            "with `--qrels NAME`")


def check_hints(folder: Path, db: str | None = None) -> None:
    """Each command that chose runs without --qrels takes the one stored set judging them, as
    `--qrels` naming it does; where several judge them it is refused with one line saying which,
    and running it with each `--qrels` offered works."""
    suffix = "" if db is None else f" --db '{db}'"
    for command, qrels in TAKEN:
        taken, named = bash(command + suffix, folder), bash(f"{command} --qrels {qrels}{suffix}", folder)
        assert taken.returncode == named.returncode == 0, (command, taken.stderr)
        said = f"# qrels {qrels}: the one stored set judging the runs chosen\n"  # a report names it
        reported = command.startswith("irw report")
        assert (taken.stdout, taken.stderr) == (named.stdout, (said if reported else "") + named.stderr), command
        assert taken.stdout.strip() or named.stderr.startswith("wrote "), command
    for command, says, offered in HINTED:
        result = bash(command + suffix, folder)
        assert result.returncode == 2 and result.stdout == "", (command, result.stderr)
        assert result.stderr == ("Error: name the qrels set with --qrels: this warehouse holds 3 (covid, dl21, news); "
                                 f"{says}\n"), command
        for qrels in offered:
            fixed = bash(f"{command} --qrels {qrels}{suffix}", folder)
            assert fixed.returncode == 0, (command, qrels, fixed.stderr)
    command, says = UNJUDGED
    for report in (command, command.replace("irw eval", "irw report run") + " -o dl22.html"):
        result = bash(report + suffix, folder)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", f"Error: {says}\n"), report


def test_a_command_that_chose_runs_takes_the_set_judging_them_or_is_told_which(walked, folder):
    check_hints(folder)


def test_eval_without_qrels_evaluates_each_run_against_its_own_set(walked, folder, data):
    """`irw eval` of every run without --qrels (it said "name the qrels set with --qrels: ... add
    `--qrels covid`, `--qrels dl21` or `--qrels news`"): each judged run against the one set judging
    it, a qrels column saying which, trec_eval's values; the DL 2022 runs, judged by none, said
    left out. --format trec prints each set's lines as `--qrels` does."""
    result = bash("irw eval -m AP -m nDCG@10 -m P@10 -m RR --format json", folder)
    assert result.returncode == 0, result.stderr
    system_of = {r["name"]: r["system"] for r in json.loads(bash("irw runs --format json", folder).stdout)}
    rows = json.loads(result.stdout)
    assert [row["qrels"] for row in rows] == ["covid"] * 3 + ["dl21"] * 3 + ["news"] * 3
    got = {(system_of[row["run"]], row["qrels"]): {TREC[m]: f"{row[m]:.4f}" for m in TREC} for row in rows}
    assert got == {(s, c): expected(data, c, s) for s in SYSTEMS for c in JUDGED}
    header, left_out = result.stderr.splitlines()[:2]
    assert header.startswith("# qrels: each run's own (covid for 3 runs, dl21 for 3 runs, news for 3 runs); "
                             "trec_eval 9.0.8 conventions; ")
    assert left_out == ("# 3 stored runs left out: no stored qrels set judges a query of theirs (BM25.dl22, "
                        "BM25_RM3.dl22 and SPLADE_P_P_ENSEMBLE_DISTIL.dl22)")
    table = bash("irw eval -m AP", folder).stdout.splitlines()
    assert table[0].split() == ["run", "qrels", "queries", "AP"] and len(table) == 2 + 9
    trec = bash("irw eval -m AP -m nDCG@10 --format trec", folder)
    assert trec.returncode == 0, trec.stderr
    assert trec.stdout == "".join(bash(f"irw eval --qrels {c} -m AP -m nDCG@10 --format trec", folder).stdout
                                  for c in ("covid", "dl21", "news"))
    # runs of two collections named outright (refused: "no stored qrels set judges all 2 runs named")
    two = bash("irw eval BM25.news SPLADE.covid -m AP --format csv", folder)
    assert two.returncode == 0, two.stderr
    assert two.stdout.splitlines()[0] == "run,qrels,queries,AP"
    assert [line.split(",")[:2] for line in two.stdout.splitlines()[1:]] == [["BM25.news", "news"],
                                                                              ["SPLADE.covid", "covid"]]


def test_the_python_api_takes_or_says_which_qrels_judge_the_runs(walked, folder):
    import warehouse
    from warehouse.errors import UsageError

    with warehouse.open(folder / "irw.duckdb") as wh:
        assert wh.qrels_name(None, "BM25*.covid") == "covid"  # the one set judging them
        assert wh.compare(["BM25.news", "BM25_RM3.news"], measures="AP").rows == \
            wh.compare(["BM25.news", "BM25_RM3.news"], "news", measures="AP").rows
        with pytest.raises(UsageError, match=r"of the 4 runs chosen, qrels covid judges 1, dl21 1 and news 1: add "
                                             r"`qrels='covid'`, `qrels='dl21'` or `qrels='news'`"):
            wh.qrels_name(None, systems="BM25")
        assert wh.qrels_name("dl21", "BM25*.covid") == "dl21"  # a name given is taken as given


BASELINES = [  # a system given as --baseline: the error offers its run that the qrels judge
    ("irw compare --qrels news -m nDCG@10 --baseline BM25_RM3", "BM25_RM3", "news", "BM25_RM3.news"),
    ("irw report leaderboard --qrels covid -m AP --baseline BM25 -o lb.html", "BM25", "covid", "BM25.covid"),
    ("irw report compare '*.dl21' --qrels dl21 -m 'AP(rel=2)' --baseline SPLADE_P_P_ENSEMBLE_DISTIL -o cmp.html",
     "SPLADE_P_P_ENSEMBLE_DISTIL", "dl21", "SPLADE_P_P_ENSEMBLE_DISTIL.dl21"),
]


def check_baseline_hints(folder: Path, db: str | None = None) -> None:
    suffix = "" if db is None else f" --db '{db}'"
    for command, system, qrels, run in BASELINES:
        result = bash(command + suffix, folder)
        assert result.returncode == 1, (command, result.stderr)
        errors = [line for line in result.stderr.splitlines() if not line.startswith("# ")]
        assert errors == [f"Error: no run named '{system}': {system} is a system; the baseline is one of its runs, "
                          f"those qrels {qrels} judges: `--baseline {run}`"], command
        fixed = bash(command.replace(f"--baseline {system}", f"--baseline {run}") + suffix, folder)
        assert fixed.returncode == 0, (command, fixed.stderr)
    result = bash("irw compare --qrels news -m AP --baseline NOPE" + suffix, folder)
    assert result.stderr.splitlines()[-1] == "Error: no run named 'NOPE'; `irw runs` lists the stored runs"
    # a system's name, or a typo, where a command takes a run: the error says which runs were meant
    listed = json.loads(bash("irw runs --format json" + suffix, folder).stdout)
    bm25 = [r["name"] for r in listed if r["name"].startswith("BM25")]
    for command, error in RUN_HINTS:
        result = bash(command + suffix, folder)
        assert (result.returncode, result.stderr.splitlines()[-1]) == \
            (1, error.format(bm25=", ".join(bm25), count=len(bm25))), command


RUN_HINTS = [
    ("irw eval --qrels covid -m AP BM25",
     "Error: no run named 'BM25': BM25 is a system; name one of its runs, those qrels covid judges (1 run: BM25.covid)"),
    ("irw report run BM25_RM3 --qrels news -o run.html",
     "Error: no run named 'BM25_RM3': BM25_RM3 is a system; name one of its runs, those qrels news judges "
     "(1 run: BM25_RM3.news)"),
    ("irw rename run BM25.covd bm25-covid",
     "Error: no run named 'BM25.covd'; did you mean BM25.covid or BM25_RM3.covid? `irw runs` lists the stored runs"),
    ("irw rm run 'BM25*'",
     "Error: no run named 'BM25*': this command takes run names, not patterns; it matches {count} runs: {bm25}"),
]


def test_a_system_given_as_baseline_is_told_its_run(walked, folder):
    check_baseline_hints(folder)


# -- the same files kept one folder per collection -------------------------------------------------

@pytest.fixture(scope="module")
def by_collection(tmp_path_factory, data) -> Path:
    """dl21/BM25.txt, dl21/BM25_RM3.txt, ..., news/SPLADE_P_P_ENSEMBLE_DISTIL.txt: copies of the
    publisher's files, the same file names in every collection folder; and qrels/."""
    base = tmp_path_factory.mktemp("multi-collection-by-collection")
    (base / "qrels").symlink_to(data / "qrels", target_is_directory=True)
    for collection in COLLECTIONS:
        (base / collection).mkdir()
        for system in SYSTEMS:
            shutil.copyfile(data / "runs" / system / f"trec_results_{collection}.txt",
                            base / collection / f"{system}.txt")
    return base


def ingest_qrels(folder: Path) -> None:
    for command, _ in STEPS[:3]:
        result = bash(command, folder)
        assert result.returncode == 0, result.stderr


# the README's command naming the folder-per-collection files as the folder-per-system ones
(TEMPLATED,) = re.findall(r"`(irw ingest run dl21/ [^`]+--name-template[^`]+)`", SECTION)


@pytest.mark.parametrize("template", [False, True], ids=["default", "readme-template"])
def test_the_folder_per_collection_layout_keeps_every_run_apart(tmp_path, by_collection, data, walked, folder,
                                                               template):
    work = tmp_path / "work"
    shutil.copytree(by_collection, work, symlinks=True)
    ingest_qrels(work)
    # one command per folder, as a user adds collections over time; or the README's one command
    for command in [TEMPLATED] if template else [f"irw ingest run {c}/" for c in COLLECTIONS]:
        result = bash(command, work)
        assert result.returncode == 0, result.stderr
    listed = json.loads(bash("irw runs --format json", work).stdout)
    assert len(listed) == 12 and len({r["name"] for r in listed}) == 12
    if template:  # the names of the folder-per-system layout (the README says so)
        assert {r["name"] for r in listed} == set(NAMES.values())
    else:  # the README's rule: the first folder's files keep the file's name, later ones add the folder
        assert {r["name"] for r in listed} == {s if c == "dl21" else f"{s}.{c}" for s in SYSTEMS for c in COLLECTIONS}
    for run in listed:
        system, collection = run["system"], next(c for c in COLLECTIONS if run["queries"] == QUERIES[c])
        assert system in SYSTEMS and run["judged_by"] == (
            f"{collection} {QUERIES[collection]}/{QUERIES[collection]}" if collection in JUDGED else None)
    assert evaluations(work) == evaluations(folder)


def test_files_linked_into_collection_folders_are_named_as_copies_are(tmp_path, by_collection, data):
    """A user who keeps runs one folder per collection by linking the publisher's files in
    (`ln -s .../runs/BM25/trec_results_covid.txt covid/BM25.txt`) and ingests every folder in one
    command gets the names and systems copies get: the folder a link sits in is the file's folder.
    Grouped by where the links point (runs/BM25/ holds every collection's file), irw named them
    covid.BM25, covid.RM3 ..., system `covid`, saying the folder names the system."""
    linked = tmp_path / "linked"
    for collection in COLLECTIONS:
        (linked / collection).mkdir(parents=True)
        for system in SYSTEMS:
            (linked / collection / f"{system}.txt").symlink_to(data / "runs" / system / f"trec_results_{collection}.txt")
    copied = tmp_path / "copied"
    shutil.copytree(by_collection, copied, symlinks=True)
    command = "irw ingest run " + " ".join(f"{c}/" for c in COLLECTIONS)
    listed = {}
    for work in (linked, copied):
        result = bash(command, work)
        assert result.returncode == 0, result.stderr
        listed[work.name] = sorted((r["name"], r["system"], r["queries"])
                                   for r in json.loads(bash("irw runs --format json", work).stdout))
    assert listed["linked"] == listed["copied"]
    assert listed["linked"] == sorted((f"{s}.{c}", s, QUERIES[c]) for s in SYSTEMS for c in COLLECTIONS)
    assert "so the folder names the system" not in result.stderr

# -- the same walk on PostgreSQL ---------------------------------------------------------------------

@pytest.mark.postgres
def test_the_walk_on_postgres_prints_what_duckdb_prints(tmp_path, data, walked, folder, postgres_server):
    with fresh_postgres_database(postgres_server) as url:
        on_postgres = walk(user_folder(tmp_path, data), url)
        for (command, _, duck), (_, _, pg) in zip(walked, on_postgres):
            assert pg.returncode == 0, (command, pg.stderr)
            assert untimed(pg.stdout.splitlines()) == untimed(duck.stdout.splitlines()), command
            assert [l for l in pg.stderr.splitlines() if l.startswith("# ")] == \
                [l for l in duck.stderr.splitlines() if l.startswith("# ")], command
        assert "SPLADE.covid" in (tmp_path / "covid.html").read_text(encoding="utf-8")
        check_hints(tmp_path, url)
        check_baseline_hints(tmp_path, url)
        assert evaluations(tmp_path, url) == evaluations(folder)
