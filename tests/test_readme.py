"""The docs stay true: the demo warehouse's commands (docs/quickstart.md) run as printed and print
what the page shows, the measure table of docs/measures.md is the registry's, and the README names
the two set-up commands."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from docs_pages import between, page
from warehouse.evaluation.measures import measure_table_markdown

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
IRW = [sys.executable, "-m", "warehouse"]


def quickstart_commands() -> list[tuple[str, str]]:
    """(command, printed output) for each `$ irw ...` of the demo warehouse's block."""
    section = page("quickstart").split("\n## The demo warehouse\n", 1)[1].split("```", 2)[1]
    commands, current, output = [], None, []
    for line in section.splitlines()[1:]:
        if line.startswith("$ "):
            if current is not None:
                commands.append((current, "\n".join(output).strip("\n")))
            current, output = line[2:], []
        elif current is not None and line.startswith("    ") and not output:
            current += "\n" + line.strip()
        elif current is not None:
            output.append(line)
    if current is not None:
        commands.append((current, "\n".join(output).strip("\n")))
    return commands


def test_measure_table_is_generated_from_the_registry():
    table = between("<!-- measure-table:start -->\n", "<!-- measure-table:end -->")  # docs/measures.md
    assert table == measure_table_markdown()


def test_readme_has_the_two_setup_commands():
    setup = README.split("\n## Set up\n", 1)[1].split("```", 2)[1]
    assert [line.split("#")[0].strip() for line in setup.splitlines() if line.startswith("make")] == [
        "make demo", "make test"]


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory):
    work = tmp_path_factory.mktemp("readme")
    result = subprocess.run([*IRW, "demo", "demo"], cwd=work, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return work


def _volatile(text: str) -> str:
    # ingest times differ from run to run; everything else must match what the README prints
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?=  [A-Za-z])", "<time>", text)


@pytest.mark.parametrize("command, printed", quickstart_commands(), ids=lambda v: v.split("\n")[0][:40])
def test_quickstart_command_runs_as_printed(command, printed, demo_dir):
    argv = shlex.split(command)
    assert argv[0] == "irw"
    result = subprocess.run([*IRW, *argv[1:]], cwd=demo_dir, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "IRW_DB": ""})
    assert result.returncode == 0, result.stderr
    shown_stdout = "\n".join(line for line in printed.splitlines() if not line.startswith("# "))
    if shown_stdout.strip():
        assert _volatile(result.stdout.strip("\n")) == _volatile(shown_stdout)
