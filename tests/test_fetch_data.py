"""scripts/fetch_data.py, the README's way to the real files its commands run on: run as a newcomer
runs it, against a mirror laid out as raw.githubusercontent.com (file://, built here from
../shared/conformance, since this machine reaches no GitHub), so the pinned paths, sizes and hashes
are what is tested; the mirror's URL is the only thing changed."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "fetch_data.py"
sys.path.insert(0, str(SCRIPT.parent))
import fetch_data  # noqa: E402

CONFORMANCE = {"dl19": "dl19-passage", "multi-collection": "multi-collection"}


@pytest.fixture(scope="module")
def mirror(conformance, tmp_path_factory) -> Path:
    """The upstream repositories at the pinned commits, as far as the sets need them."""
    root = tmp_path_factory.mktemp("mirror")
    for name, folder in CONFORMANCE.items():
        for source in fetch_data.SETS[name]:
            at = root / source.repository / source.path
            at.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(conformance / folder / source.target, at)
    return root


def fetch(mirror: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "IRW_DATA_MIRROR": mirror.as_uri()}
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("name", list(CONFORMANCE))
def test_the_pinned_sizes_and_hashes_are_the_conformance_sets_own(conformance, name):
    """Each file's size and sha256 as the set's SOURCE.txt records them, and every file it lists."""
    listed = {}
    for line in (conformance / CONFORMANCE[name] / "SOURCE.txt").read_text().splitlines():
        if match := re.match(r"\s+(\S+\.txt): ([\d,]+) bytes,.* sha256 ([0-9a-f]{64})$", line) or \
                re.match(r"\s+(\S+\.txt): (\d+), \d+, \d+, ([0-9a-f]{64})$", line):
            listed[match[1]] = (int(match[2].replace(",", "")), match[3])
    pinned = {source.target: (source.size, source.sha256) for source in fetch_data.SETS[name]}
    assert pinned == listed


@pytest.mark.parametrize("name", list(CONFORMANCE))
def test_a_set_is_laid_out_as_the_pages_expect_and_kept_on_a_second_run(mirror, conformance, tmp_path, name):
    result = fetch(mirror, name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    fetched = sorted(p.relative_to(tmp_path / name) for p in (tmp_path / name).rglob("*") if p.is_file())
    assert fetched == sorted(Path(source.target) for source in fetch_data.SETS[name])
    for path in fetched:
        assert (tmp_path / name / path).read_bytes() == (conformance / CONFORMANCE[name] / path).read_bytes()
    page = fetch_data.NEXT[name].split(",")[0]
    assert result.stderr.splitlines()[-1].startswith(f"next: cd {name} and run the commands of {page}")
    assert (ROOT / page).is_file()

    again = fetch(mirror, name, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "downloading" not in again.stderr
    assert again.stderr.count("(the expected bytes)") == len(fetched)


def test_a_file_of_other_bytes_writes_nothing_and_says_which(mirror, tmp_path):
    broken = tmp_path / "broken-mirror"
    shutil.copytree(mirror, broken)
    run = next(broken.rglob("trec_results_dl19.txt"))
    run.write_bytes(run.read_bytes().replace(b" Q0 ", b" Q1 ", 1))
    result = fetch(broken, "dl19", "my data", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1].startswith("fetch_data.py: file://")
    assert "not the" in result.stderr and "nothing was written" in result.stderr
    assert not (tmp_path / "my data").exists()  # not even the folder (a regression walk found it left empty)

    run.unlink()
    missing = fetch(broken, "dl19", "my data", cwd=tmp_path)
    assert missing.returncode == 1 and run.name in missing.stderr.splitlines()[-1], missing.stderr


def test_a_file_already_there_with_other_bytes_is_never_overwritten(mirror, tmp_path):
    qrels = tmp_path / "dl19" / "qrels.dl19-passage.txt"
    qrels.parent.mkdir()
    qrels.write_text("1 0 d1 1\n")
    result = fetch(mirror, "dl19", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"fetch_data.py: dl19/qrels.dl19-passage.txt is there already with other bytes (9 bytes, not the 187,092 "
        "expected); move it away and run the command again")
    assert qrels.read_text() == "1 0 d1 1\n" and not (tmp_path / "dl19" / "runs").exists()


def test_usage(tmp_path):
    result = subprocess.run([sys.executable, str(SCRIPT), "dl20"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == ("fetch_data.py: no set 'dl20': give a set (dl19, multi-collection) and "
                                              "optionally a folder")
    asked = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60)
    assert asked.returncode == 0 and asked.stdout.startswith("    python scripts/fetch_data.py dl19") and not asked.stderr
