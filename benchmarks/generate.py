"""Seeded synthetic TREC data for the benchmarks, written by DuckDB in seconds.

Two shapes:

* ``msmarco``: MS MARCO passage dev-like. Integer query and passage ids, about 1.1 relevant
  passages per query (grade 1) and about one judged non-relevant one (grade 0), runs of 1,000
  passages per query. 7,000 queries make a 7-million-line run.
* ``trec``: a TREC ad hoc-like collection. 250 queries, about 400 judgments each with grades 0-3
  (about 16% relevant), doc ids like ``FBIS3-1234567``, and any number of runs of 1,000 documents
  per query drawn from the same 2,000-document candidate set, so runs differ in quality.

Every pseudo-random value is ``hash(seed, ...)`` of integers (DuckDB's hash: stable for a given
DuckDB version, and independent of threads, unlike random()), so the same seed gives the same bytes.
Lines are written by ``COPY (select ...) TO`` with no Python loop.

Score ties, as real runs have them: in ``msmarco`` about 5% of the documents repeat the score of
the one ranked above (duplicate passages) and scores have 3 decimals; in ``trec`` scores are
rounded to 4 decimals, which ties a few dozen pairs per query. The file's rank column follows the
generator's order, so inside a tie it is not trec_eval's order (score desc, docid desc): tools that
break ties differently get different numbers, which is the point.

Run ``python benchmarks/generate.py --help`` to write a data set by hand.
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb

GENERATOR_VERSION = 2
DOCS_PER_QUERY = 1000
MSMARCO_PASSAGES = 8841823   # a prime: (offset + p * step) mod P visits distinct passages for p < P
TREC_DOC_SPACE = 4999999     # a prime, likewise
TREC_CANDIDATES = 2000       # per query; a run returns the top 1,000 of them
TREC_MAX_JUDGED = 600        # judged per query: 200..600, about 400 on average


@dataclass
class DataSet:
    shape: str
    directory: Path
    qrels: Path
    runs: list[Path]
    queries: int
    run_lines: int
    seconds: float = 0.0
    reused: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def run(self) -> Path:
        return self.runs[0]


def _copy_to(con: duckdb.DuckDBPyConnection, select: str, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    con.execute(f"copy ({select}) to '{tmp}' (delimiter ' ', header false, quote '', escape '')")
    tmp.replace(path)


def _manifest_matches(directory: Path, params: dict) -> bool:
    manifest = directory / "manifest.json"
    if not manifest.is_file():
        return False
    try:
        stored = json.loads(manifest.read_text())
    except ValueError:
        return False
    return stored.get("params") == params and all((directory / name).is_file() for name in stored.get("files", []))


def _write_manifest(directory: Path, params: dict, files: list[Path], seconds: float) -> None:
    (directory / "manifest.json").write_text(json.dumps(
        {"params": params, "files": [f.name for f in files], "seconds": round(seconds, 3)}, indent=2) + "\n")


def _connect(seed: int) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    seed = int(seed)
    # u(...) is the only source of randomness: a hash of the seed and integers.
    con.execute(f"create macro u(a, b, c) as hash({seed}, a, b, c)")
    con.execute(f"create macro u4(a, b, c, d) as hash({seed}, a, b, c, d)")
    return con


def msmarco(root: Path, queries: int = 7000, seed: int = 42) -> DataSet:
    """MS MARCO dev-like qrels and one run of queries x 1,000 lines."""
    params = {"shape": "msmarco", "version": GENERATOR_VERSION, "queries": queries, "seed": seed,
              "duckdb": duckdb.__version__}
    directory = Path(root) / f"msmarco-q{queries}-s{seed}"
    qrels, run = directory / "qrels.txt", directory / "run.txt"
    data = DataSet("msmarco", directory, qrels, [run], queries, queries * DOCS_PER_QUERY)
    if _manifest_matches(directory, params):
        data.reused = True
        return data
    directory.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    con = _connect(seed)
    p = MSMARCO_PASSAGES
    # The passage at (virtual) position pos of query q; positions past 1,000 are never retrieved.
    con.execute(f"create macro passage(q, pos) as "
                f"((cast(u(q, 1, 0) % {p} as bigint) + pos * (1 + cast(u(q, 2, 0) % {p - 1} as bigint))) % {p})")
    con.execute("create macro qid(q) as cast(1000 + q as varchar)")
    n = queries * DOCS_PER_QUERY
    _copy_to(con, f"""
        with positions as (
            select i // {DOCS_PER_QUERY} as q, i % {DOCS_PER_QUERY} + 1 as r from range({n}) t(i)
        ),
        tied as (
            -- about 5% of documents repeat the score of the one above them
            select q, r, case when r > 1 and u(q, r, 3) % 100 < 5 then r - 1 else r end as r_score
            from positions
        )
        select qid(q), 'Q0', passage(q, r), r,
               cast(30 + (u(q, 4, 0) % 1000) / 100.0 - 4 * ln(r_score) as decimal(9, 3)), 'irw-bench'
        from tied
    """, run)
    # Judgments: j=0 relevant; j=1 relevant for 10% of queries; j=2, j=3 judged non-relevant for
    # 2/3 and 1/3 of queries. Relevant positions are log-uniform in [1, 3000) (86% retrieved, 29%
    # in the top 10); non-relevant ones uniform in [1, 2000]. Same position twice: keep one.
    _copy_to(con, f"""
        with candidates as (
            select q, j, case when j < 2 then 1 else 0 end as grade
            from range({queries}) t(q) cross join range(4) s(j)
            where j = 0 or (j = 1 and u(q, 5, 0) % 10 = 0) or (j >= 2 and u(q, 6, 0) % 3 > j - 2)
        ),
        positioned as (
            select q, j, grade,
                   case when grade = 1
                        then cast(floor(exp((u(q, j, 7) % 1000000) / 1000000.0 * ln(3000))) as bigint)
                        else cast(1 + u(q, j, 8) % 2000 as bigint) end as pos
            from candidates
        ),
        distinct_positions as (
            select q, pos, arg_min(grade, j) as grade from positioned group by q, pos
        )
        select qid(q), 0, passage(q, pos), grade from distinct_positions order by q, pos
    """, qrels)
    con.close()
    data.seconds = time.perf_counter() - start
    _write_manifest(directory, params, [qrels, run], data.seconds)
    return data


def trec(root: Path, queries: int = 250, runs: int = 1, seed: int = 42) -> DataSet:
    """TREC-like graded qrels and runs run-000.txt ... of queries x 1,000 lines each.

    Run s depends only on (seed, queries, s): asking for more runs later writes only the missing
    files, so the files benchmark and the 101-run leaderboard share one directory."""
    params = {"shape": "trec", "version": GENERATOR_VERSION, "queries": queries, "seed": seed,
              "duckdb": duckdb.__version__}
    directory = Path(root) / f"trec-q{queries}-s{seed}"
    qrels = directory / "qrels.txt"
    run_paths = [directory / f"run-{s:03d}.txt" for s in range(runs)]
    data = DataSet("trec", directory, qrels, run_paths, queries, queries * DOCS_PER_QUERY)
    fresh = not _manifest_matches(directory, params)
    if fresh and directory.exists():
        for stale in directory.glob("*.txt"):
            stale.unlink()
    missing = [s for s, path in enumerate(run_paths) if fresh or not path.is_file()]
    if not fresh and not missing:
        data.reused = True
        return data
    directory.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    con = _connect(seed)
    p = TREC_DOC_SPACE
    con.execute(f"create macro docnum(q, i) as "
                f"((cast(u(q, 1, 0) % {p} as bigint) + i * (1 + cast(u(q, 2, 0) % {p - 1} as bigint))) % {p})")
    con.execute("create macro docid(q, i) as "
                "['FBIS3', 'FT921', 'LA010189', 'FR940104'][1 + docnum(q, i) % 4] || '-' || docnum(q, i)")
    con.execute(f"create macro judged_count(q) as 200 + cast(u(q, 8, 0) % 401 as bigint)")
    # A per-query scale of how many documents are relevant (0.3x to 1.7x), then grades 3/2/1/0.
    con.execute("create macro rel_scale(q) as 0.3 + (u(q, 10, 0) % 100) / 71.0")
    con.execute("create macro grade(q, i) as case "
                "when i >= judged_count(q) then 0 "
                "when u(q, i, 9) % 1000 < 25 * rel_scale(q) then 3 "
                "when u(q, i, 9) % 1000 < 70 * rel_scale(q) then 2 "
                "when u(q, i, 9) % 1000 < 160 * rel_scale(q) then 1 else 0 end")
    con.execute("create macro qid(q) as cast(301 + q as varchar)")
    if fresh:
        _copy_to(con, f"""
            with slots as (
                select i // {TREC_MAX_JUDGED} as q, i % {TREC_MAX_JUDGED} as i
                from range({queries * TREC_MAX_JUDGED}) t(i)
            )
            select qid(q), 0, docid(q, i), grade(q, i) from slots where i < judged_count(q)
        """, qrels)
    # Run s: a weight on the true grade plus noise; the top 1,000 of the 2,000 candidates.
    con.execute(f"""
        create temp table candidates as
        select i // {TREC_CANDIDATES} as q, i % {TREC_CANDIDATES} as i, docid(q, i) as docid,
               grade(i // {TREC_CANDIDATES}, i % {TREC_CANDIDATES}) as grade
        from range({queries * TREC_CANDIDATES}) t(i)
    """)
    for s in missing:
        weight = f"(0.2 + (u({s}, 12, 0) % 100) / 75.0)"
        _copy_to(con, f"""
            with scored as (
                select q, i, docid,
                       cast({weight} * grade + (u4({s}, q, i, 11) % 1000000) / 250000.0 as decimal(9, 4)) as score
                from candidates
            ),
            ranked as (
                select q, docid, score, row_number() over (partition by q order by score desc, i) as r
                from scored
            )
            select qid(q), 'Q0', docid, r, score, 'bench-{s:03d}'
            from ranked where r <= {DOCS_PER_QUERY} order by q, r
        """, run_paths[s])
    con.close()
    data.seconds = time.perf_counter() - start
    if fresh:
        _write_manifest(directory, params, [qrels], data.seconds)
    return data


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shape", choices=("msmarco", "trec"))
    parser.add_argument("--out", default="bench-data")
    parser.add_argument("--queries", type=int)
    parser.add_argument("--runs", type=int, default=1, help="trec only")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    if args.shape == "msmarco":
        data = msmarco(Path(args.out), args.queries or 7000, args.seed)
    else:
        data = trec(Path(args.out), args.queries or 250, args.runs, args.seed)
    state = "reused" if data.reused else f"written in {data.seconds:.1f} s"
    print(json.dumps({**{k: str(v) for k, v in asdict(data).items() if k in ("directory", "qrels")},
                      "runs": len(data.runs), "run_lines": data.run_lines, "state": state}))


if __name__ == "__main__":
    main()
