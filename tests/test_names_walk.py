"""A user walk of naming and metadata: what rename takes, what --replace keeps of a qrels or prefs
set, and a judgment file ingested again after its set was renamed.

- `irw rename run|qrels` refuses the names ingest refuses (empty, only blanks, not UTF-8 text),
  by ingest's rule and in its words, as a usage error (exit 2). Before, rename said "cannot be
  empty" in words of its own, and a name that is not UTF-8 reached DuckDB (exit 1).
- `irw ingest qrels|prefs FILE --name Q --replace` with other bytes keeps Q's description unless
  --description gives another, as `irw ingest run --replace` does (test_replace_keeps_metadata);
  before, the description was dropped without a word.
- After `irw rename qrels A B`, `irw ingest qrels FILE` of A's file (no --name) is a no-op that says
  B holds these bytes, as a run file's bytes keep their stored run's name; before, a second set of
  the same judgments appeared under the file's name.

Real data: trec_eval's own test files (../shared/conformance/trec_eval_test; skipped where absent).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import Cli

BAD_NAMES = ["", "   ", "bad\udcff"]  # empty, only blanks, not UTF-8 (a byte the shell gave undecoded)


@pytest.fixture
def files(conformance: Path, tmp_path: Path) -> dict[str, Path]:
    """trec_eval's test qrels, run and preferences under their own names, and a second version of
    the qrels and the preferences (their first lines) to replace them with."""
    source = conformance / "trec_eval_test"
    folder = tmp_path / "in"
    folder.mkdir()
    found = {}
    for name in ("qrels.test", "results.test", "prefs.test"):
        found[name] = Path(shutil.copyfile(source / name, folder / name))
    for name, lines in (("qrels.test", 200), ("prefs.test", 50)):
        head = "".join((source / name).read_text().splitlines(keepends=True)[:lines])
        (folder / f"v2.{name}").write_text(head)
        found[f"v2.{name}"] = folder / f"v2.{name}"
    return found


def sets(irw: Cli) -> dict[str, str | None]:
    listed = irw("qrels", "--format", "json")
    assert listed.exit_code == 0, listed.stderr
    return {s["name"]: s["description"] for s in json.loads(listed.stdout)}


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_rename_refuses_the_names_ingest_refuses_in_its_words(irw, files, bad):
    assert irw("ingest", "qrels", files["qrels.test"], "--name", "A").exit_code == 0
    assert irw("ingest", "run", files["results.test"], "--name", "R").exit_code == 0
    ingested = irw("ingest", "qrels", files["v2.qrels.test"], "--name", bad)
    renamed = irw("rename", "qrels", "A", bad)
    assert (renamed.exit_code, renamed.stderr) == (ingested.exit_code, ingested.stderr)
    assert renamed.exit_code == 2 and renamed.stderr.startswith("Error: the qrels set's name '"), renamed.stderr
    run_ingested = irw("ingest", "run", files["results.test"], "--name", bad)
    run_renamed = irw("rename", "run", "R", bad)
    assert run_ingested.exit_code == run_renamed.exit_code == 2, run_renamed.stderr
    # the same rule and words; ingest names the option the name came from
    assert run_renamed.stderr == run_ingested.stderr.replace("the run's --name", "the run's name")
    assert sets(irw) == {"A": None}


@pytest.mark.parametrize("name", ["x*", "  padded  "])
def test_rename_takes_the_names_ingest_takes(irw, files, name):
    assert irw("ingest", "qrels", files["qrels.test"], "--name", name).exit_code == 0
    assert irw("rename", "qrels", name, "B").exit_code == 0
    renamed = irw("rename", "qrels", "B", name)
    assert renamed.exit_code == 0, renamed.stderr
    assert sets(irw) == {name: None}


@pytest.mark.parametrize("kind", ["qrels", "prefs"])
def test_replace_keeps_a_sets_description_unless_another_is_given(irw, files, kind):
    first, second = files[f"{kind}.test"], files[f"v2.{kind}.test"]
    assert irw("ingest", kind, first, "--name", "Q", "--description", "first judgments").exit_code == 0
    kept = irw("ingest", kind, second, "--name", "Q", "--replace")
    assert kept.exit_code == 0, kept.stderr
    assert kept.stderr.splitlines()[0] == (f"{second}: {kind} Q replaced: it keeps its description 'first judgments' "
                                           "(--description gives another)")
    assert sets(irw) == {"Q": "first judgments"}
    changed = irw("ingest", kind, first, "--name", "Q", "--replace", "--description", "second")
    assert changed.exit_code == 0, changed.stderr
    assert changed.stderr.splitlines()[0] == (f"{first}: {kind} Q replaced: its description is now 'second', "
                                              "was 'first judgments'")
    assert sets(irw) == {"Q": "second"}
    # the same bytes: the description given is applied in place with --replace, said without
    said = irw("ingest", kind, first, "--name", "Q", "--description", "third")
    assert said.exit_code == 0 and "pass --replace to change it" in said.stderr, said.stderr
    assert sets(irw) == {"Q": "second"}
    updated = irw("ingest", kind, first, "--name", "Q", "--replace", "--description", "third")
    assert updated.exit_code == 0, updated.stderr
    assert f"{first}: {kind} Q already holds these bytes; its description is now 'third', was 'second'" in \
        updated.stderr.splitlines()
    assert sets(irw) == {"Q": "third"}


@pytest.mark.parametrize("kind", ["qrels", "prefs"])
def test_a_renamed_sets_file_ingested_again_is_that_set(irw, files, kind):
    path = files[f"{kind}.test"]
    assert irw("ingest", kind, path).exit_code == 0
    assert irw("rename", "qrels", f"{kind}.test", "B").exit_code == 0
    again = irw("ingest", kind, path)
    assert again.exit_code == 0, again.stderr
    assert again.stderr.startswith(f"{kind} B already holds these bytes (sha256 "), again.stderr
    assert again.stderr.rstrip().endswith(f"of {path}; nothing to do")
    assert list(sets(irw)) == ["B"]
    # the run rule it follows: a renamed run's file ingested again keeps the stored name
    assert irw("ingest", "run", files["results.test"]).exit_code == 0
    assert irw("rename", "run", "results.test", "R").exit_code == 0
    assert "run R already holds these bytes" in irw("ingest", "run", files["results.test"]).stderr
    # a name given is the name asked for: a second set, said to hold what B holds
    named = irw("ingest", kind, path, "--name", "C")
    assert named.exit_code == 0
    assert f"{path}: the same bytes are stored as qrels set B too" in named.stderr.splitlines()
    assert sorted(sets(irw)) == ["B", "C"]


def test_a_folder_of_qrels_takes_the_stored_names_of_their_bytes(irw, files):
    folder = files["qrels.test"].parent
    assert irw("ingest", "qrels", files["qrels.test"]).exit_code == 0
    assert irw("rename", "qrels", "qrels.test", "B").exit_code == 0
    for name in ("results.test", "prefs.test", "v2.prefs.test"):
        (folder / name).unlink()
    batch = irw("ingest", "qrels", folder)
    assert batch.exit_code == 0, batch.stderr
    assert "qrels B already holds these bytes" in batch.stderr
    assert sorted(sets(irw)) == ["B", "v2.qrels.test"]
