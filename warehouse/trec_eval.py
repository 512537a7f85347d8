"""`irw trec-eval`: a drop-in for trec_eval on files, through an in-memory warehouse.

Same flags (-q -c -l -M -J -n -m, measure parameters, -m all_trec / official), same output
(`%-22s\\t%s\\t%6.4f`, its names, its order, the runid line). Conventions: trec_eval 9.0.8 by
default, 10.0 with --compat 10 (see /README.md, "trec_eval conventions").
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .core import Warehouse
from .db import MEMORY
from .errors import IrwError, UsageError
from .evaluate import NO_DEPTH, Settings
from .formatting import trec_line
from .measures import FAMILIES, Measure, parse_trec, trec_measure_set

FAMILY_ORDER = {name: i for i, name in enumerate(FAMILIES)}


class NoQueriesError(IrwError):
    exit_code = 7


@dataclass
class TrecEvalArgs:
    qrels: Path
    run: Path
    measures: list[str]
    per_query: bool
    no_summary: bool
    settings: Settings


def parse_args(argv: list[str]) -> TrecEvalArgs:
    parser = argparse.ArgumentParser(prog="irw trec-eval", add_help=False, allow_abbrev=False)
    parser.add_argument("-q", action="store_true")
    parser.add_argument("-c", action="store_true")
    parser.add_argument("-J", action="store_true")
    parser.add_argument("-n", action="store_true")
    parser.add_argument("-l", type=int, default=1)
    parser.add_argument("-M", type=int, default=None)
    parser.add_argument("-m", action="append", default=[])
    parser.add_argument("--compat", type=int, default=9, choices=(9, 10))
    parser.add_argument("qrels")
    parser.add_argument("run")
    try:
        ns = parser.parse_args(argv)
    except SystemExit:
        raise UsageError("usage: irw trec-eval [-q] [-c] [-J] [-n] [-l N] [-M N] [-m MEASURE]... "
                         "[--compat 9|10] QRELS_FILE RUN_FILE") from None
    settings = Settings(level=ns.l, depth=ns.M, judged_only=ns.J, complete=ns.c, compat=ns.compat)
    return TrecEvalArgs(Path(ns.qrels), Path(ns.run), ns.m or ["official"], ns.q, ns.n, settings)


def requested_measures(specs: list[str], compat: int) -> list[Measure]:
    """The measures trec_eval would print, in its table order (never in -m order).

    As in trec_eval, a family named in several -m arguments takes the first explicit parameter
    list given for it (`-m all_trec -m P.5,7` prints P_5 and P_7 only), else its defaults.
    """
    families: list[str] = []
    explicit: dict[str, str] = {}
    for spec in specs:
        name, dot, params = spec.partition(".")
        if name in ("all_trec", "official"):
            families.extend(m.family.trec_name for m in trec_measure_set(name, compat))
            continue
        parse_trec(spec)  # validates the name and parameters
        families.append(name)
        if dot:
            explicit.setdefault(name, spec)
    ordered = []
    for family in sorted(set(families), key=lambda f: FAMILY_ORDER.get(f, len(FAMILY_ORDER))):
        if FAMILIES.get(family) is not None and FAMILIES[family].v10_only and compat == 9:
            continue
        if family == "relstring" and compat == 9:
            # trec_eval 9.0.8 printed relstring at its default width whatever the parameter.
            ordered.extend(parse_trec("relstring"))
            continue
        ordered.extend(parse_trec(explicit.get(family, family)))
    return ordered


def _format(m: Measure, qid: str, value) -> str:
    if m.family.trec_name == "relstring":
        name = "relstring" if m.param == 10 else f"relstring_{m.param}"
        return trec_line(name, qid, f"'{value}'")
    return trec_line(m.trec_name, qid, value, m.is_count)


def run(argv: list[str], out: TextIO) -> None:
    args = parse_args(argv)
    s = args.settings
    measures = requested_measures(args.measures, s.compat)
    with Warehouse(MEMORY) as wh:
        wh.ingest_qrels(args.qrels, "qrels")
        from .ingest import ingest_run
        # relstring prints unjudged documents too
        judged_rows_only = s.reads_judged_rows_only and not any(m.family.trec_name == "relstring" for m in measures)
        ingest_run(wh.db, args.run, "run", strict=False, judged_rows_only=judged_rows_only)
        scored = [m for m in measures if m.family.trec_name not in ("runid", "relstring")]
        evaluation = wh.evaluate(["run"], "qrels", scored, per_query=True, settings=s) if scored else None
        db = wh.db
        evaluated = [r[0] for r in db.fetchall("select query_id from eval_run_queries order by query_id")] \
            if evaluation else []
        if not evaluated:
            raise NoQueriesError("trec_eval: No queries with both results and relevance info")
        in_run = {r[0] for r in db.fetchall("select query_id from run_queries")}
        per_query: dict[tuple[str, str], float] = {}
        if evaluation and evaluation.per_query:
            for _, query, measure, value in evaluation.per_query.rows:
                per_query[(query, measure)] = value
        relstrings = {}
        for m in measures:
            if m.family.trec_name == "relstring":
                relstrings[m.trec_name] = dict(db.run_file(
                    "measures/relstring.sql",
                    {"width": int(m.param), "compat": s.compat, "judged_only": s.judged_only,
                     "depth": s.depth or NO_DEPTH}).fetchall())
        if args.per_query:
            for qid in evaluated:
                if qid not in in_run and s.compat == 9:
                    continue  # 9.0.8 -c averages over missing queries but prints no lines for them
                for m in measures:
                    if not m.family.per_query:
                        continue
                    if m.family.trec_name == "relstring":
                        value = relstrings[m.trec_name].get(qid, "") if qid in in_run else ""
                    else:
                        value = per_query[(qid, m.name)]
                    out.write(_format(m, qid, value))
        if args.no_summary:
            return
        summary = {row[1]: row[2] for row in evaluation.summary.rows} if evaluation else {}
        tag = db.fetchone("select tag from runs where name = 'run'")[0]
        for m in measures:
            family = m.family.trec_name
            if not m.family.summary:
                continue
            if family == "runid":
                value = tag
            elif family == "num_q":
                value = len(evaluated)
            elif family == "num_rel" and s.complete:
                # trec_eval -c replaces the sum by the qrels lines with grade > 0 (ignoring -l)
                value = db.fetchone("select count(*) from qrels where grade > 0")[0]
            else:
                value = summary[m.name]
            out.write(_format(m, "all", value))
