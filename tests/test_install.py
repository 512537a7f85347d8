"""Installing: the default install runs every command the README shows, a PostgreSQL URL included
(psycopg and sqlglot are default dependencies); the spark extra brings what Spark's path imports
(pyspark and pyarrow); every install hint irw prints names an extra pyproject.toml has, whose
packages provide the missing module, in a command that works from a checkout (pip install -e
'CHECKOUT[extra]') and from the installed package (pip install 'irwarehouse[extra]').

The slow test builds the wheel and installs it, without its dependencies (they come from this
venv through a .pth file: no network), in a fresh venv, and runs a PostgreSQL-URL command there.
"""
from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
tomllib = __import__("pytest").importorskip("tomllib")  # Python 3.11+
from pathlib import Path

import pytest

from docs_pages import page
from warehouse import MissingExtraError
from warehouse.engines import spark
from warehouse.formats import table
from warehouse.errors import install_command

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower().replace("_", "-") for r in requirements}


def _distributions(module: str) -> set[str]:
    return {d.lower() for d in importlib.metadata.packages_distributions().get(module, [])}


def _hints(monkeypatch) -> list[tuple[str, str]]:
    """(missing module, message) of every MissingExtraError irw raises for a missing library."""
    found = []
    for module in table._EXTRAS:
        with monkeypatch.context() as m:
            m.setitem(sys.modules, module, None)  # as if it were not installed: import fails
            with pytest.raises(MissingExtraError) as caught:
                table.optional_import(module)
            found.append((module, str(caught.value)))
    for module in spark.SPARK_MODULES:
        with monkeypatch.context() as m:
            m.setitem(sys.modules, module, None)
            with pytest.raises(MissingExtraError) as caught:
                spark._pyspark()
            found.append((module, str(caught.value)))
    return found


def test_every_install_hint_names_an_extra_that_installs_the_missing_module(monkeypatch):
    extras = PROJECT["optional-dependencies"]
    hints = _hints(monkeypatch)
    assert {module for module, _ in hints} == {"pandas", "polars", "pyarrow", "pyspark"}
    for module, message in hints:
        assert message.startswith(f"{module} is not installed; install it with ")
        command = install_command(re.search(r"\[(\w+)\]", message).group(1))
        assert command in message
        # from this checkout: this venv's Python, pip, editable, the checkout's folder
        extra = re.fullmatch(rf"{re.escape(sys.executable)} -m pip install -e '{re.escape(str(ROOT))}\[(\w+)\]'",
                             command).group(1)
        assert extra in extras, (module, extra)
        assert _distributions(module) & _names(extras[extra]), (module, extra, extras[extra])


def test_no_hint_is_written_by_hand():
    """Every `pip install` irw prints comes from install_command (tested above)."""
    for path in (ROOT / "warehouse").rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "pip install" in line and path.name != "errors.py":
                pytest.fail(f"{path.name}:{number}: {line.strip()}")


def test_postgresql_and_spark_packages_are_where_the_readme_says():
    defaults = _names(PROJECT["dependencies"])
    for module in ("psycopg", "sqlglot"):  # every --db postgresql://... command imports them
        assert _distributions(module) & defaults, module
    assert PROJECT["optional-dependencies"]["postgresql"] == []  # the old extra, kept as a no-op
    spark_extra = _names(PROJECT["optional-dependencies"]["spark"])
    for module in spark.SPARK_MODULES:
        assert _distributions(module) & spark_extra, module
    readme = page("quickstart")  # its "Installing" section
    for extra in PROJECT["optional-dependencies"]:
        if extra not in ("test", "bench", "postgresql"):
            assert f"| `{extra}` |" in readme, extra  # the README's table of extras


@pytest.mark.slow
def test_the_installed_wheel_runs_a_postgresql_url_command(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True)
    (wheel,) = wheels.glob("irwarehouse-*.whl")
    with __import__("zipfile").ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    unconditional = _names([line.split(": ", 1)[1] for line in metadata.splitlines()
                            if line.startswith("Requires-Dist: ") and "extra ==" not in line])
    assert {"psycopg", "sqlglot", "duckdb"} <= unconditional
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", site,
                    str(wheel)], check=True, capture_output=True)
    ours = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(ours + "\n")  # this venv's packages, after the wheel's own
    where = subprocess.run([str(python), "-c", "import warehouse, warehouse.errors as e; print(warehouse.__file__); "
                            "print(e.install_command('spark'))"], check=True, capture_output=True, text=True,
                           cwd=tmp_path)  # not the checkout's folder, whose warehouse/ would be imported
    location, hint = where.stdout.splitlines()
    assert location.startswith(site)
    assert hint == f"{python} -m pip install 'irwarehouse[spark]'"  # the package's form, not a checkout's
    result = subprocess.run([str(python), "-m", "warehouse", "runs", "--db", "postgresql://irw@127.0.0.1:1/none"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode != 0 and result.stderr.startswith("Error: "), result.stderr
    assert "ModuleNotFoundError" not in result.stderr and "Traceback" not in result.stderr
