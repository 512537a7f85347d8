"""Random `trec_eval` calls on small random files, and what trec_eval (C) printed for each.

tests/test_trec_eval_random.py runs every case through `irw trec-eval` and compares its output
with trec_eval's, recorded in tests/trec_eval_cases.json by running this file with a trec_eval
binary (benchmarks/README.md builds one from the library in pytrec-eval-terrier's wheel; CI has
none):

    .venv/bin/python tests/trec_eval_cases.py --record /path/to/trec_eval [--cases 120]

Each case is made again from its number alone (random.Random(SEED + number)): 1-6 queries with
numeric or text ids, queries only in the qrels or only in the run, 3-25 documents, grades -1..3,
documents the qrels lack, scores tied, tied only in 32-bit floats, tiny and huge; options -q, -n,
-l, -J, -M, -N; and 0-3 -m arguments over trec_eval 9.0.8's measures with random parameter lists
(gain maps included). Left out, as differences irw keeps on purpose (docs/conventions.md):
relstring's parameter (this binary's library is a later commit than 9.0.8, which ignores it), a
gain for grade -1 (refused), and the queries whose judgments are all negative (trec_eval exits 4
when one is the first it evaluates).

    .venv/bin/python tests/trec_eval_cases.py --compare /path/to/trec_eval --cases 2000 --seed 7

compares irw with the binary directly on other cases, for looking further.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import random
import subprocess
import sys
from pathlib import Path

SEED = 20261204
RECORDED = Path(__file__).with_name("trec_eval_cases.json")

FAMILIES = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "infAP", "gm_bpref", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "set_P", "set_relative_P", "set_recall",
            "set_map", "set_F", "num_nonrel_judged_ret", "utility", "11pt_avg", "iprec_at_recall", "P", "recall",
            "Rprec_mult", "ndcg_cut", "map_cut", "relative_P", "success", "relstring", "yaap", "official",
            "all_trec"]
CUTOFF_FAMILIES = ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success")
LEVEL_FAMILIES = ("iprec_at_recall", "Rprec_mult", "11pt_avg")
GAIN_FAMILIES = ("ndcg", "G", "ndcg_rel", "Rndcg")
LEVELS = ["0.0", "0.1", "0.25", "0.5", "0.33", "1.0", "1", "0.05", "0.9", "2.0", "1.5"]


def _measure(rng: random.Random) -> str:
    name = rng.choice(FAMILIES)
    if rng.random() >= 0.5 or name == "relstring":
        return name
    if name in CUTOFF_FAMILIES:
        return f"{name}.{','.join(str(rng.randint(1, 30)) for _ in range(rng.randint(1, 3)))}"
    if name in LEVEL_FAMILIES:
        return f"{name}.{','.join(rng.choice(LEVELS) for _ in range(rng.randint(1, 3)))}"
    if name == "set_F":
        return f"{name}.{rng.choice(['0.5', '1.0', '2', '0.25', '3'])}"
    if name in GAIN_FAMILIES:
        grades = rng.sample([0, 1, 2, 3, -2], rng.randint(1, 3))
        return f"{name}.{','.join(f'{g}={rng.choice([0, 1, 2, 3, 5, 9, 0.5, -1])}' for g in grades)}"
    if name == "utility":
        return f"{name}.{','.join(str(rng.randint(-2, 2)) for _ in range(4))}"
    return name


def _query_id(rng: random.Random, i: int, style: int) -> str:
    if style == 0:
        return str(i + 1)
    if style == 1:
        return str(rng.choice([1, 2, 3, 10, 11, 20, 100, 101, 9, 99]) + i * 1000)
    return rng.choice(["q", "Q", "topic", "a", "b"]) + str(i)


def make_case(number: int, folder: Path, seed: int = SEED) -> list[str]:
    """Writes case `number`'s qrels and run under folder; returns its trec_eval arguments."""
    rng = random.Random(seed + number)
    style = rng.randint(0, 2)
    qids = list(dict.fromkeys(_query_id(rng, i, style) for i in range(rng.randint(1, 6))))
    docs = [f"d{j}" for j in range(rng.randint(3, 25))]
    if rng.random() < 0.3:
        docs = list(dict.fromkeys(rng.choice(["D", "doc", "x", "DOC-"]) + str(rng.randint(0, 999))
                                  for _ in range(rng.randint(3, 25))))
    qrels = []
    for q in qids:
        if rng.random() < 0.15:
            continue  # a query of the run only
        judged = [(d, rng.choice([0, 0, 1, 1, 2, 3, -1] if rng.random() < 0.3 else [0, 1, 1, 2]))
                  for d in rng.sample(docs, rng.randint(1, len(docs)))]
        if all(grade < 0 for _, grade in judged):
            judged[0] = (judged[0][0], 0)  # none all negative (the module docstring says why)
        qrels += [f"{q} 0 {d} {grade}" for d, grade in judged]
    if not qrels:
        qrels.append(f"{qids[0]} 0 {docs[0]} 1")
    rng.shuffle(qrels)
    tag = rng.choice(["t", "run1", "BM25"])
    run = []
    for q in qids + [_query_id(rng, 50 + i, style) for i in range(rng.randint(0, 2))]:
        if rng.random() < 0.15:
            continue  # a query of the qrels only
        chosen = rng.sample(docs + [f"u{k}" for k in range(5)], rng.randint(1, min(len(docs) + 5, 30)))
        mode = rng.randint(0, 3)
        for rank, d in enumerate(chosen, 1):
            if mode == 0:
                score = f"{rng.uniform(-5, 20):.6f}"
            elif mode == 1:
                score = str(rng.randint(0, 3))
            elif mode == 2:
                score = rng.choice(["1.0000001", "1.00000011", "1", "0.5", "2e1", "-0", "1e-40", "3.4e38"])
            else:
                score = f"{rng.uniform(0, 1):.3f}"
            run.append(f"{q} Q0 {d} {rank} {score} {tag}")
    if not run:
        run.append(f"{qids[0]} Q0 {docs[0]} 1 1.0 {tag}")
    if rng.random() < 0.5:
        rng.shuffle(run)
    qrels_path, run_path = folder / f"qrels.{number}", folder / f"run.{number}"
    qrels_path.write_text("\n".join(qrels) + "\n")
    run_path.write_text("\n".join(run) + "\n")
    options = []
    if rng.random() < 0.5:
        options.append("-q")
    if rng.random() < 0.1:
        options += ["-n"] if "-q" in options else ["-q", "-n"]
    if rng.random() < 0.3:
        options += ["-l", str(rng.choice([0, 1, 2, 3]))]
    if rng.random() < 0.25:
        options.append("-J")
    if rng.random() < 0.25:
        options += ["-M", str(rng.choice([1, 2, 3, 5, 10, 100]))]
    if rng.random() < 0.1:
        options += ["-N", str(rng.choice([0, 50, 1000]))]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        options += ["-m", _measure(rng)]
    return options + [str(qrels_path), str(run_path)]


def run_irw(argv: list[str]) -> tuple[int, str]:
    """`irw trec-eval ARGV` in this process: (exit status, stdout)."""
    from warehouse.commands import trec_eval

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = trec_eval.main(argv)
    return status, out.getvalue()


def run_c(binary: str, argv: list[str]) -> tuple[int, str]:
    done = subprocess.run([binary, *argv], capture_output=True, text=True)
    return done.returncode, done.stdout


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def shown(argv: list[str], folder: Path) -> str:
    """The arguments with the case's files named as in the folder (for reports)."""
    return " ".join(a.replace(str(folder) + "/", "") for a in argv)


def main() -> int:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", metavar="TREC_EVAL", help="write tests/trec_eval_cases.json from this binary")
    what.add_argument("--compare", metavar="TREC_EVAL", help="compare irw with this binary, print the differences")
    parser.add_argument("--cases", type=int, default=120)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.record:
            cases = []
            for number in range(args.cases):
                argv = make_case(number, folder, args.seed)
                status, out = run_c(args.record, argv)
                cases.append({"case": number, "argv": shown(argv, folder), "status": status,
                              "lines": out.count("\n"), "sha256": digest(out)})
            made_by = ("trec_eval's library in pytrec-eval-terrier 0.5.11 (the 9.0.8 release's measures; its "
                       "relstring reads a parameter), a main following trec_eval.c")
            RECORDED.write_text(json.dumps({"seed": args.seed, "trec_eval": made_by, "cases": cases}, indent=1) + "\n")
            print(f"{len(cases)} cases written to {RECORDED}")
            return 0
        differ = 0
        for number in range(args.cases):
            argv = make_case(number, folder, args.seed)
            (c_status, c_out), (status, out) = run_c(args.compare, argv), run_irw(argv)
            if (c_status == 0) != (status == 0) or (c_status == 0 and c_out != out):
                differ += 1
                print(f"case {number}: trec_eval exit {c_status}, irw exit {status}: {shown(argv, folder)}")
        print(f"{args.cases} cases, {differ} differ")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
