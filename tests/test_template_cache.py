"""Compiled templates kept in the user's cache (warehouse/reports/render.py compiled_templates_cache):
the pages are the same with it, without it and with a cache file spoiled, and the folder is used
only where only the user may write it (it holds code irw runs)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import Cli, RUN_ROWS, qrels_text, run_text, write_file
from warehouse.reports.render import compiled_templates_cache


def _leaderboard(db: Path, folder: Path, cache_home: Path) -> bytes:
    page = folder / "board.html"
    result = subprocess.run([sys.executable, "-m", "warehouse", "report", "leaderboard", "--db", str(db), "--qrels", "q",
                             "-m", "AP", "-o", str(page)], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "XDG_CACHE_HOME": str(cache_home)})
    assert result.returncode == 0, result.stderr
    return page.read_bytes()


def test_pages_are_the_same_from_compiled_templates_kept_spoiled_or_none(tmp_path):
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", qrels_text())), "--name", "q").exit_code == 0
    assert irw("ingest", "run", str(write_file(tmp_path, "r.txt", run_text(RUN_ROWS))), "--name", "r").exit_code == 0
    cache_home = tmp_path / "cache"
    first = _leaderboard(db, tmp_path / "first", cache_home)
    folder = cache_home / "irw" / "templates"
    (install,) = folder.iterdir()  # this install's set
    kept = sorted(install.glob("*.jinja"))
    assert kept and oct(folder.stat().st_mode & 0o777) == oct(install.stat().st_mode & 0o777) == oct(0o700)
    assert _leaderboard(db, tmp_path / "again", cache_home) == first  # read back
    for entry in kept:
        entry.write_bytes(b"not a compiled template")
    assert _leaderboard(db, tmp_path / "spoiled", cache_home) == first  # compiled again
    unusable = tmp_path / "a file"
    unusable.write_text("")
    assert _leaderboard(db, tmp_path / "none", unusable) == first  # no folder: compiled in the process


def test_a_folder_others_may_write_or_that_cannot_be_made_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compiled_templates_cache() is not None
    folder = tmp_path / "irw" / "templates"
    folder.chmod(0o777)
    assert compiled_templates_cache() is None
    folder.chmod(0o700)
    assert compiled_templates_cache() is not None
    (install,) = folder.iterdir()
    install.chmod(0o777)
    assert compiled_templates_cache() is None  # this install's folder others may write
    install.chmod(0o700)
    assert compiled_templates_cache() is not None
    (tmp_path / "elsewhere").mkdir()
    install.rename(tmp_path / "elsewhere" / install.name)
    folder.rmdir()
    folder.symlink_to(tmp_path / "elsewhere")
    assert compiled_templates_cache() is None  # a link: not a folder of its own
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a file"))
    (tmp_path / "a file").write_text("")
    assert compiled_templates_cache() is None


def test_the_sets_of_removed_installs_are_removed_when_another_install_keeps_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "irw" / "templates"
    folder.mkdir(parents=True, mode=0o700)
    loose = folder / "0123abcd.jinja"  # where irw kept every install's templates before
    loose.write_bytes(b"compiled elsewhere")
    installs = {name: tmp_path / name / "templates" for name in ("kept", "removed", "new")}
    for templates in installs.values():
        templates.mkdir(parents=True)
    sets = {name: Path(compiled_templates_cache(installs[name]).directory) for name in ("kept", "removed")}
    assert sets["kept"] != sets["removed"] and all(s.is_dir() for s in sets.values())
    assert not loose.exists()
    (sets["removed"] / "x.jinja").write_bytes(b"a compiled template")
    installs["removed"].rmdir()  # that clone is gone
    assert compiled_templates_cache(installs["kept"]) is not None  # an install already kept: nothing removed
    assert sets["removed"].is_dir()
    new = Path(compiled_templates_cache(installs["new"]).directory)  # a new install keeps its set
    assert sorted(folder.iterdir()) == sorted([sets["kept"], new])  # the gone install's set went
