"""Qrels whose grades were written as decimals (1.0, a float column written out, as pandas does) are
refused with the command that writes them whole (a messy-input walk got 9,260 lines of "grade 1.0
is not an integer" and nothing to do); the command, run as printed, gives the original's numbers."""
from __future__ import annotations

import re
import subprocess

import warehouse

from conftest import Cli


def test_the_printed_command_writes_the_grades_whole(conformance, tmp_path):
    original = conformance / "dl19-passage" / "qrels.dl19-passage.txt"
    decimals = tmp_path / "qrels.dl19.txt"
    decimals.write_text("".join(f"{line.rsplit(' ', 1)[0]} {line.split()[-1]}.0\n"
                                for line in original.read_text().splitlines()))
    refused = Cli(tmp_path / "w.duckdb")("ingest", "qrels", decimals)
    assert refused.exit_code == 1 and "grade 1.0 is not an integer" in refused.stderr
    last = refused.stderr.splitlines()[-1]
    assert last.startswith(f"Error: {decimals}: grades written as decimals (a float column written out): trec_eval "
                           "reads 1.0 as 1, irw takes whole numbers; write them whole (")
    command = re.search(r"whole \((.*) > (\S+)\) and give that file instead$", last)
    assert subprocess.run(["bash", "-c", f"{command.group(1)} > {command.group(2)}"], cwd=tmp_path).returncode == 0
    written = tmp_path / command.group(2).rsplit("/", 1)[-1]
    run = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    assert warehouse.evaluate_files(written, {"r": run}, ["AP", "nDCG@10"]).summary.rows == \
        warehouse.evaluate_files(original, {"r": run}, ["AP", "nDCG@10"]).summary.rows
