"""Differential tests: irw's per-query and summary values against pytrec_eval (trec_eval 9.0.8 inside).

A seeded generator builds a few hundred small (run, query) cases, writes them as TREC text files,
ingests them into one warehouse and evaluates every run in one `evaluate` call per setting. The
same data, as Python dicts, goes to pytrec_eval. Every per-query value must agree within 1e-9.

The generator aims at trec_eval's corners:
- heavy score ties (scores drawn from a few values, constant scores);
- ties that exist only in float32 (1.0 vs 1.0 + 1e-9, halfway points between float32 neighbours,
  2**24 + 1): trec_eval 9.0.8 stores scores as C floats;
- docids whose byte order is not the naive one (mixed case, digits, '#', '_', '-', '.', UTF-8);
- grades 0-3 and negative (-1, -2); queries with no relevant document, queries judged only
  with negative grades, queries with a single judgment;
- queries only in a run, queries only in the qrels, runs shorter than the cutoffs, one-document
  rankings, score texts in several spellings (repr, %.6f, %g, %e, '+0.5', '-0').

Settings compared: relevance level 1, 2 and 3 (pytrec_eval's relevance_level; it refuses 0), -J
(judged_docs_only_flag) with both levels, and -M 5 (pytrec_eval has no -M: its input is cut to the
first 5 documents in trec_eval's order, score as float32 desc then docid desc; with -J too, which
trec_eval applies after -M).

Not compared, and why:
- runid: a summary-only string.
- relstring: a string; pytrec_eval returns 0.0 for it and irw does not store it as a score.
- -c (complete): pytrec_eval cannot evaluate queries missing from the run.
- gain parameters (ndcg.1=3,2=9), utility parameters (utility.2,-1,0,0), 11pt_avg parameters:
  pytrec_eval's measure-name parser mangles them ('=' and '-' are not accepted, parameters are
  de-duplicated and re-sorted as strings), so pytrec_eval would not compute the same measure.
- gain measures (G, binG, ndcg, ndcg_rel, Rndcg, ndcg_cut) on queries judged only with negative
  grades: trec_eval 9.0.8 reads stale or freed memory there (see Oracle.pytrec) and pytrec_eval
  can loop forever; the expected value is 0 (no retrieved document has a gain), asserted as such.
  Queries judged only with grades <= -2 are not generated: they crash trec_eval 9.0.8.
- gm_map and gm_bpref per query: trec_eval prints them in the summary only. pytrec_eval returns
  the per-query term of the geometric mean, ln(max(x, 1e-5)); irw stores x itself (AP, bpref), so
  ln(max(irw, 1e-5)) is compared with pytrec_eval's value, and the summaries are compared as
  exp(mean of pytrec_eval's logs).

Each measure family is its own test id (test_per_query[L1-ndcg_cut], ...). A failure names the
smallest failing case: its qrels lines, its run lines, the measure, pytrec_eval's value and irw's.
"""
from __future__ import annotations

import functools
import math
import random
import struct
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytrec_eval  # a declared test dependency (pyproject [test]): never skipped

import warehouse
from warehouse.evaluation.measures import parse_all

SEED = 908
N_TOPICS = 260
N_RUNS = 100
TOLERANCE = 1e-9
GM_FLOOR = 1e-5  # trec_eval's floor for the geometric means (MIN_GEO_MEAN)

CUTS = "1,2,3,5,10,15,20,30,100"
IPREC_LEVELS = "0.00,0.10,0.20,0.25,0.30,0.33,0.40,0.50,0.60,0.67,0.70,0.75,0.80,0.90,1.00"
RPREC_MULTS = "0.20,0.40,0.50,0.60,0.80,1.00,1.20,1.40,1.60,1.80,2.00,3.00"

# family id -> (pytrec_eval group, measure specs in trec_eval -m syntax, given to both tools).
# Families in the same group share one pytrec_eval evaluator; set_F with another parameter needs its
# own, since trec_eval keeps one parameter per family.
FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "num_q": ("main", ("num_q",)),
    "num_ret": ("main", ("num_ret",)),
    "num_rel": ("main", ("num_rel",)),
    "num_rel_ret": ("main", ("num_rel_ret",)),
    "num_nonrel_judged_ret": ("main", ("num_nonrel_judged_ret",)),
    "map": ("main", ("map",)),
    "gm_map": ("main", ("gm_map",)),
    "Rprec": ("main", ("Rprec",)),
    "bpref": ("main", ("bpref",)),
    "gm_bpref": ("main", ("gm_bpref",)),
    "recip_rank": ("main", ("recip_rank",)),
    "iprec_at_recall": ("main", (f"iprec_at_recall.{IPREC_LEVELS}",)),
    "P": ("main", (f"P.{CUTS}",)),
    "recall": ("main", (f"recall.{CUTS}",)),
    "infAP": ("main", ("infAP",)),
    "Rprec_mult": ("main", (f"Rprec_mult.{RPREC_MULTS}",)),
    "utility": ("main", ("utility",)),
    "11pt_avg": ("main", ("11pt_avg",)),
    "binG": ("main", ("binG",)),
    "G": ("main", ("G",)),
    "ndcg": ("main", ("ndcg",)),
    "ndcg_rel": ("main", ("ndcg_rel",)),
    "Rndcg": ("main", ("Rndcg",)),
    "ndcg_cut": ("main", (f"ndcg_cut.{CUTS}",)),
    "map_cut": ("main", (f"map_cut.{CUTS}",)),
    "relative_P": ("main", (f"relative_P.{CUTS}",)),
    "success": ("main", ("success.1,2,3,5,10",)),
    "set_P": ("main", ("set_P",)),
    "set_relative_P": ("main", ("set_relative_P",)),
    "set_recall": ("main", ("set_recall",)),
    "set_map": ("main", ("set_map",)),
    "set_F": ("main", ("set_F",)),
    "set_F.0.25": ("set_F_0.25", ("set_F.0.25",)),
}
GEOMETRIC = {"gm_map", "gm_bpref"}
GAIN_FAMILIES = {"binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut"}


@dataclass(frozen=True)
class Setting:
    level: int = 1
    judged_only: bool = False
    depth: int | None = None

    def irw_options(self) -> dict:
        return {"level": self.level, "judged_only": self.judged_only, "depth": self.depth, "compat": 9}

    def describe(self) -> str:
        return (f"relevance level {self.level}" + (", judged only (-J)" if self.judged_only else "")
                + (f", depth {self.depth} (-M)" if self.depth else ""))


SETTINGS = {
    "L1": Setting(1),
    "L2": Setting(2),
    "L3": Setting(3),
    "J1": Setting(1, judged_only=True),
    "J2": Setting(2, judged_only=True),
    "M5": Setting(1, depth=5),
    "M5J2": Setting(2, judged_only=True, depth=5),
}


# -- trec_eval's ranking, for cutting pytrec_eval's input at -M ---------------------------------

def f32(x: float) -> float:
    """x rounded to a C float, as trec_eval 9.0.8 stores scores."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_neighbour(x: float, steps: int) -> float:
    """The float32 `steps` representable values away from f32(x) (x > 0)."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    return struct.unpack("<f", struct.pack("<I", bits + steps))[0]


def trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval 9.0.8's ranking: score as float32 descending, then docid descending (bytes)."""
    return [d for d, _ in sorted(docs.items(), key=lambda item: (f32(item[1]), item[0].encode()), reverse=True)]


# -- the generator --------------------------------------------------------------------------------

_STEMS = ["d", "D", "doc", "Doc", "DOC", "dOc", "x", "X", "Z", "z", "_", "#", "d#", "D#", "a-b", "A_b",
          "z.", "", "é", "É", "Ω", "0"]
_TAILS = ["", "0", "1", "2", "9", "10", "11", "19", "100", "01", "001", "#1", "#10", "#2", "a", "A",
          "_a", "-1", ".5", "#", "Z", "z"]


def _docid(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return str(rng.randint(0, 150))  # "10" < "9" in byte order
    return (rng.choice(_STEMS) + rng.choice(_TAILS)) or "0"


_TOPIC_KINDS = {  # kind -> (weight, grades drawn for the judged documents)
    "graded": (30, [-1, 0, 0, 0, 1, 1, 2, 3]),
    "binary": (15, [0, 0, 1]),
    "high": (10, [0, 2, 3, 3]),
    "norel": (8, [0]),
    "norel_neg": (6, [0, -1]),
    "neg_only": (4, [-1, -1, -2]),
    "allrel": (8, [1, 2, 3]),
    "single": (10, [-1, 0, 1, 2, 3]),
    "big": (9, [-1, 0, 0, 0, 0, 1, 1, 2, 3]),
}


@dataclass
class Topic:
    qid: str
    kind: str
    qrels: dict[str, int]
    pool: list[str]  # judged and unjudged documents the runs draw from


@dataclass
class Ranking:
    """One (run, query) ranking: the score texts as written, and the values pytrec_eval gets."""
    lines: list[tuple[str, str]]  # (docid, score text)
    mode: str

    @property
    def scores(self) -> dict[str, float]:
        return {d: float(s) for d, s in self.lines}


@dataclass
class Corpus:
    topics: dict[str, Topic]
    runs: dict[str, dict[str, Ranking]]  # run name -> qid -> ranking
    qrels_text: str = ""
    run_texts: dict[str, str] = field(default_factory=dict)

    @property
    def qrels(self) -> dict[str, dict[str, int]]:
        return {qid: dict(t.qrels) for qid, t in self.topics.items()}

    def run_scores(self, run: str, depth: int | None = None) -> dict[str, dict[str, float]]:
        out = {}
        for qid, ranking in self.runs[run].items():
            scores = ranking.scores
            if depth is not None:
                scores = {d: scores[d] for d in trec_order(scores)[:depth]}
            out[qid] = scores
        return out


def _make_topic(rng: random.Random, qid: str) -> Topic:
    kinds = list(_TOPIC_KINDS)
    kind = rng.choices(kinds, weights=[_TOPIC_KINDS[k][0] for k in kinds])[0]
    grades = _TOPIC_KINDS[kind][1]
    size = rng.randint(35, 60) if kind == "big" else rng.randint(1, 18)
    pool: list[str] = []
    while len(pool) < size:
        d = _docid(rng)
        if d not in pool:
            pool.append(d)
    judged = 1 if kind == "single" else rng.randint(1, len(pool))
    qrels = {d: rng.choice(grades) for d in rng.sample(pool, judged)}
    if kind == "neg_only":
        # At least one -1: a query judged only with grades <= -2 crashes trec_eval 9.0.8 itself
        # (form_res_rels.c clears (max_rel + 1) * sizeof(long) bytes, a negative size), so no
        # reference value exists for it.
        qrels[next(iter(qrels))] = -1
    return Topic(qid, kind, qrels, pool)


_FEW = [3.0, 2.0, 1.0, 0.5, 0.25, 0.0, -1.0, -2.5]
_BASES = [1.0, 0.1, 100.0, 16777216.0, 1e-3, -1.0, 12.3456789, 1e-30, 0.3]


def _f32_tie_score(rng: random.Random, base: float) -> float:
    """A score near base: equal to it in float32 only, a float32 neighbour, or a halfway point."""
    b = f32(base)
    choice = rng.randrange(7)
    if choice == 0:
        return b
    if choice == 1:
        return b * (1 + rng.choice([1e-9, -1e-9, 2e-8, -2e-8, 1e-12]))  # same float32
    if choice == 2:
        return base  # the double base itself (0.1 != f32(0.1), same float32)
    if choice == 3 and b > 0:
        return f32_neighbour(b, rng.choice([1, -1]))  # distinct in float32
    if choice == 4 and b > 0:
        lo, hi = f32_neighbour(b, -1), b
        return (lo + hi) / 2  # halfway: round-half-even decides which neighbour it ties with
    if choice == 5 and b > 0:
        return (b + f32_neighbour(b, 1)) / 2
    return b + rng.choice([0.0, 1.0, -1.0]) * abs(b) * 1e-10


def _score_text(rng: random.Random, x: float) -> str:
    r = rng.random()
    if r < 0.70:
        return repr(x)
    if r < 0.78:
        return f"{x:.6f}"
    if r < 0.84:
        return f"{x:g}"
    if r < 0.90:
        return f"{x:.4e}"
    if r < 0.94 and x > 0:
        return "+" + repr(x)
    if r < 0.97 and x == 0:
        return "-0"
    if r < 1.0 and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _make_ranking(rng: random.Random, topic: Topic) -> Ranking:
    pool = topic.pool
    if rng.random() < 0.12:
        size = 1
    elif topic.kind == "big":
        size = rng.randint(20, len(pool))
    else:
        size = rng.randint(1, len(pool))
    docs = rng.sample(pool, size)
    mode = rng.choice(["few", "few", "const", "f32", "f32", "distinct", "ranked", "mixed"])
    if mode == "few":
        values = rng.sample(_FEW, rng.randint(1, 3))
        scores = [rng.choice(values) for _ in docs]
    elif mode == "const":
        scores = [rng.choice(_FEW)] * len(docs)
    elif mode == "f32":
        base = rng.choice(_BASES)
        scores = [_f32_tie_score(rng, base) for _ in docs]
    elif mode == "distinct":
        scores = [rng.uniform(-5, 5) for _ in docs]
    elif mode == "ranked":
        scores = [float(len(docs) - i) for i in range(len(docs))]
    else:
        base = rng.choice(_BASES)
        scores = [rng.choice([rng.choice(_FEW), _f32_tie_score(rng, base), rng.uniform(0, 2)]) for _ in docs]
    return Ranking([(d, _score_text(rng, s)) for d, s in zip(docs, scores)], mode)


def generate(seed: int = SEED) -> Corpus:
    rng = random.Random(seed)
    topics: dict[str, Topic] = {}
    suffixes = ["", "", "", "a", "A", "_b", "#1", "-x", ".0"]
    for i in range(N_TOPICS):
        qid = f"{rng.choice(['q', 'Q', 't', '1'])}{i}{rng.choice(suffixes)}"
        topics[qid] = _make_topic(rng, qid)
    qids = list(topics)
    qrels_only = set(rng.sample(qids, N_TOPICS // 10))  # never retrieved: must not be evaluated
    pickable = [q for q in qids if q not in qrels_only]
    runs: dict[str, dict[str, Ranking]] = {}
    orphan = 0
    for r in range(N_RUNS):
        chosen = rng.sample(pickable, rng.randint(1, 8))
        run = {qid: _make_ranking(rng, topics[qid]) for qid in chosen}
        for _ in range(rng.choice([0, 0, 0, 1, 2])):  # queries the qrels do not judge: ignored
            orphan += 1
            docs = {_docid(rng) for _ in range(rng.randint(1, 6))}
            run[f"orphan{orphan}"] = Ranking([(d, repr(rng.uniform(0, 1))) for d in docs], "orphan")
        runs[f"run{r:03d}"] = run
    corpus = Corpus(topics, runs)

    qrels_lines = [f"{qid} 0 {d} {g}" for qid, t in topics.items() for d, g in t.qrels.items()]
    rng.shuffle(qrels_lines)
    corpus.qrels_text = "".join(line.replace(" ", rng.choice([" ", "\t"])) + "\n" for line in qrels_lines)
    for name, run in runs.items():
        lines = [(qid, d, s) for qid, ranking in run.items() for d, s in ranking.lines]
        rng.shuffle(lines)  # trec_eval ignores the file order and the rank column
        sep = rng.choice([" ", "\t"])
        corpus.run_texts[name] = "".join(
            sep.join([qid, "Q0", d, str(i + 1), s, name]) + "\n" for i, (qid, d, s) in enumerate(lines))
    return corpus


# -- running both tools ---------------------------------------------------------------------------

def pytrec_key(m) -> str:
    """The key pytrec_eval gives a measure's value: trec_eval's printed name, but set_F under its
    family's name whatever beta (trec_eval prints set_F_0.25 only for a typed -m set_F.0.25, and
    pytrec_eval types none)."""
    return m.family.trec_name if m.family.trec_name == "set_F" else m.trec_name

def _family_measures(family: str):
    return parse_all(list(FAMILIES[family][1]))


def _comparable(family: str, value: float, from_irw: bool) -> float:
    if family in GEOMETRIC and from_irw:
        return math.log(max(value, GM_FLOOR))  # irw stores AP / bpref; pytrec_eval the log term
    return value


class Oracle:
    """Builds the corpus once, ingests it, and evaluates lazily per setting (cached)."""

    def __init__(self, directory: Path, warehouse_at: str | Path | None = None):
        """warehouse_at: where irw stores and evaluates the corpus (a DuckDB file in directory by
        default, or a PostgreSQL URL: the same SQL files on the other engine)."""
        self.corpus = generate()
        self.wh = warehouse.open(warehouse_at if warehouse_at is not None else directory / "irw.duckdb")
        qrels_path = directory / "diff.qrels"
        qrels_path.write_text(self.corpus.qrels_text, encoding="utf-8")
        self.wh.ingest_qrels(qrels_path, "diff")
        for name, text in self.corpus.run_texts.items():
            path = directory / f"{name}.run"
            path.write_text(text, encoding="utf-8")
            self.wh.ingest_run(path, name)

    def close(self):
        self.wh.close()

    @functools.cache
    def pytrec(self, setting_id: str, group: str) -> dict[tuple[str, str], dict[str, float]]:
        """(run, qid) -> {trec_name: value} from pytrec_eval, for the families of one group.

        Queries judged only with negative grades go to a second evaluator without the gain
        families: for them trec_eval 9.0.8 never resets rel_levels/num_rel_levels (form_res_rels.c
        sizes its memset by max_rel + 1 = 0), so G, ndcg... read the previous query's counts, or
        uninitialised memory (te_calc_G then loops forever in pytrec_eval: seen with this corpus).
        Their gain values are still defined: every retrieved document has gain 0, so DCG = 0 and
        every gain measure is 0 whatever the ideal; that 0 is the expected value."""
        setting = SETTINGS[setting_id]
        families = [f for f, (g, _) in FAMILIES.items() if g == group]
        specs = [s for f in families for s in FAMILIES[f][1]]
        safe_specs = [s for f in families if f not in GAIN_FAMILIES for s in FAMILIES[f][1]]
        zero_names = [pytrec_key(m) for f in families if f in GAIN_FAMILIES for m in _family_measures(f)]
        qrels = self.corpus.qrels
        ordinary = {q: j for q, j in qrels.items() if max(j.values()) >= 0}
        negative_only = {q: j for q, j in qrels.items() if max(j.values()) < 0}
        options = {"relevance_level": setting.level, "judged_docs_only_flag": setting.judged_only}
        evaluator = pytrec_eval.RelevanceEvaluator(ordinary, specs, **options)
        safe = pytrec_eval.RelevanceEvaluator(negative_only, safe_specs, **options) if safe_specs else None
        out = {}
        for run in self.corpus.runs:
            scores = self.corpus.run_scores(run, setting.depth)
            for qid, values in evaluator.evaluate(scores).items():
                out[(run, qid)] = values
            if safe is not None and negative_only:
                for qid, values in safe.evaluate(scores).items():
                    out[(run, qid)] = {**values, **{name: 0.0 for name in zero_names}}
        return out

    @functools.cache
    def irw(self, setting_id: str) -> tuple[dict[str, object], dict[str, object]]:
        """family -> Evaluation, or family -> the exception evaluate raised for it.

        All families in one call (one SQL pass over every run); if that call fails, family by
        family, so one broken family does not hide the others."""
        options = SETTINGS[setting_id].irw_options()
        runs = list(self.corpus.runs)
        specs = [s for _, specs in FAMILIES.values() for s in specs]
        results: dict[str, object] = {}
        try:
            evaluation = self.wh.evaluate(runs, "diff", specs, per_query=True, **options)
            return {f: evaluation for f in FAMILIES}, {}
        except Exception:  # noqa: BLE001 - reported per family below
            pass
        errors: dict[str, object] = {}
        for family, (_, family_specs) in FAMILIES.items():
            try:
                results[family] = self.wh.evaluate(runs, "diff", list(family_specs), per_query=True, **options)
            except Exception as exc:  # noqa: BLE001 - the family's test reports it
                errors[family] = exc
        return results, errors

    def irw_evaluation(self, setting_id: str, family: str):
        results, errors = self.irw(setting_id)
        if family in errors:
            exc = errors[family]
            pytest.fail(f"irw evaluate({list(FAMILIES[family][1])}, {SETTINGS[setting_id]}) raised "
                        f"{type(exc).__name__}: {str(exc)[:600]}", pytrace=False)
        return results[family]

    # -- the two sides of one family, as {(run, qid, trec_name): value} --------------------------
    def per_query(self, setting_id: str, family: str):
        measures = _family_measures(family)
        by_name = {m.name: pytrec_key(m) for m in measures}
        evaluation = self.irw_evaluation(setting_id, family)
        got = {}
        for run, qid, name, value in evaluation.per_query.rows:
            if name in by_name:
                got[(run, qid, by_name[name])] = _comparable(family, value, True)
        expected = {}
        trec_names = set(by_name.values())
        for (run, qid), values in self.pytrec(setting_id, FAMILIES[family][0]).items():
            for name, value in values.items():
                if name in trec_names:
                    expected[(run, qid, name)] = value
        return expected, got

    # -- reporting ----------------------------------------------------------------------------
    def case_text(self, run: str, qid: str, setting_id: str) -> str:
        setting = SETTINGS[setting_id]
        topic = self.corpus.topics.get(qid)
        qrels = "".join(f"    {qid} 0 {d} {g}\n" for d, g in sorted(topic.qrels.items())) if topic else "    (none)\n"
        ranking = self.corpus.runs[run].get(qid)
        lines = ""
        if ranking is not None:
            for i, (d, s) in enumerate(ranking.lines):
                lines += f"    {qid} Q0 {d} {i + 1} {s} {run}\n"
        order = trec_order(ranking.scores) if ranking else []
        return (f"setting: {setting.describe()}\nqrels:\n{qrels}run {run} (mode {ranking.mode if ranking else '-'}):\n"
                f"{lines}trec_eval 9.0.8 order: {' '.join(order)}\n")


def _close(a: float, b: float) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOLERANCE


@pytest.fixture(scope="module", params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def oracle(request, tmp_path_factory):
    """The corpus in a warehouse of each engine: every case runs against DuckDB and PostgreSQL."""
    directory = tmp_path_factory.mktemp("differential")
    if request.param == "duckdb":
        built = Oracle(directory)
        yield built
        built.close()
        return
    from conftest import fresh_postgres_database, require_postgres

    with fresh_postgres_database(require_postgres()) as url:
        built = Oracle(directory, url)
        yield built
        built.close()


# -- the tests ------------------------------------------------------------------------------------

def test_generator_covers_the_corners():
    """The corpus really holds the cases this file is about (guards against a generator change)."""
    corpus = generate()
    cases = [(run, qid, r) for run, rs in corpus.runs.items() for qid, r in rs.items() if qid in corpus.topics]
    assert len(cases) >= 250

    def f32_only_tie(r: Ranking) -> bool:
        values = list(r.scores.values())
        return any(a != b and f32(a) == f32(b) for i, a in enumerate(values) for b in values[i + 1:])

    def heavy_tie(r: Ranking) -> bool:
        return len(r.lines) >= 3 and len(set(r.scores.values())) <= len(r.lines) // 2

    def byte_order_trap(r: Ranking) -> bool:
        docs = [d for d, _ in r.lines]
        return any(a.lower() == b.lower() and a != b for a in docs for b in docs) or \
            any(a.isdigit() and b.isdigit() and len(a) != len(b) for a in docs for b in docs)

    counts = {
        "float32-only ties": sum(f32_only_tie(r) for *_, r in cases),
        "heavy ties": sum(heavy_tie(r) for *_, r in cases),
        "case or digit byte-order traps": sum(byte_order_trap(r) for *_, r in cases),
        "'#' in docids": sum(any("#" in d for d, _ in r.lines) for *_, r in cases),
        "one-document rankings": sum(len(r.lines) == 1 for *_, r in cases),
        "rankings shorter than 10": sum(len(r.lines) < 10 for *_, r in cases),
        "rankings of 30 or more": sum(len(r.lines) >= 30 for *_, r in cases),
        "no relevant document": sum(max(corpus.topics[q].qrels.values()) < 1 for _, q, _ in cases),
        "negative grades retrieved": sum(any(corpus.topics[q].qrels.get(d, 0) < 0 for d, _ in r.lines)
                                         for _, q, r in cases),
        "judged with negative grades only": sum(max(corpus.topics[q].qrels.values()) < 0 for _, q, _ in cases),
        "grade 3 retrieved": sum(any(corpus.topics[q].qrels.get(d) == 3 for d, _ in r.lines) for _, q, r in cases),
    }
    qrels_only = set(corpus.topics) - {q for rs in corpus.runs.values() for q in rs}
    counts["queries only in the qrels"] = len(qrels_only)
    counts["queries only in a run"] = sum(q not in corpus.topics for rs in corpus.runs.values() for q in rs)
    thin = {k: v for k, v in counts.items() if v < 3}
    assert not thin, f"generator coverage too thin: {thin} (all: {counts})"


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("setting_id", list(SETTINGS))
def test_per_query(oracle, setting_id, family):
    """Every per-query value of the family equals pytrec_eval's, on the same queries."""
    expected, got = oracle.per_query(setting_id, family)
    assert expected, "pytrec_eval computed nothing: the test data is wrong"
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = sorted(k for k in set(expected) & set(got) if not _close(expected[k], got[k]))
    if not (missing or extra or wrong):
        return

    def size(key):
        run, qid, _ = key
        topic = oracle.corpus.topics.get(qid)
        return (len(topic.qrels) if topic else 0) + len(oracle.corpus.runs[run].get(qid, Ranking([], "")).lines)

    report = [f"{family} under {SETTINGS[setting_id].describe()}: {len(wrong)} wrong values, "
              f"{len(missing)} missing from irw, {len(extra)} irw-only, of {len(expected)} compared"]
    if wrong:
        key = min(wrong, key=lambda k: (size(k), k))
        cases = {(k[0], k[1]) for k in wrong}
        report.append(f"{len(cases)} failing (run, query) cases; smallest: {key[2]} for query {key[1]!r} of "
                      f"{key[0]}: pytrec_eval {expected[key]!r}, irw {got[key]!r}")
        others = {k[2]: (expected[k], got[k]) for k in wrong if k[:2] == key[:2]}
        report.append(f"all wrong measures of that case (pytrec_eval, irw): {others}")
        report.append(oracle.case_text(key[0], key[1], setting_id))
    for label, keys in (("missing from irw", missing), ("irw-only", extra)):
        if keys:
            key = min(keys, key=lambda k: (size(k), k))
            report.append(f"{label}: {keys[:5]}{' ...' if len(keys) > 5 else ''}")
            report.append(oracle.case_text(key[0], key[1], setting_id))
    pytest.fail("\n".join(report), pytrace=False)


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("setting_id", list(SETTINGS))
def test_summary(oracle, setting_id, family):
    """irw's summary ('all') = pytrec_eval's per-query values aggregated as trec_eval does: counts
    summed, gm_* as exp(mean of the log terms), everything else the arithmetic mean; and the
    summary's query count = the number of queries pytrec_eval evaluated."""
    measures = _family_measures(family)
    by_name = {m.name: pytrec_key(m) for m in measures}
    evaluation = oracle.irw_evaluation(setting_id, family)
    per_run: dict[tuple[str, str], list[float]] = {}
    for (run, _), values in oracle.pytrec(setting_id, FAMILIES[family][0]).items():
        for name in set(by_name.values()):
            per_run.setdefault((run, name), []).append(values[name])
    got = {(run, by_name[name]): (value, queries) for run, name, value, _micro, queries in evaluation.summary.rows
           if name in by_name}
    problems = []
    for (run, name), values in sorted(per_run.items()):
        if name.startswith("num_"):
            want = math.fsum(values)
        elif name.startswith("gm_"):
            want = math.exp(math.fsum(values) / len(values))
        else:
            want = math.fsum(values) / len(values)
        if (run, name) not in got:
            problems.append(f"{run} {name}: no summary row (pytrec_eval aggregate {want!r})")
            continue
        value, queries = got[(run, name)]
        if not _close(want, value) or queries != len(values):
            problems.append(f"{run} {name}: pytrec_eval aggregate {want!r} over {len(values)} queries, "
                            f"irw {value!r} over {queries}")
    extra = sorted(set(got) - set(per_run))
    if extra:
        problems.append(f"irw summaries for runs/measures pytrec_eval did not evaluate: {extra[:5]}")
    assert not problems, f"{len(problems)} summary mismatches, first: " + "\n".join(problems[:5])


def test_scores_beyond_float32_range_tie_at_infinity(tmp_path):
    """trec_eval 9.0.8 converts scores to C float: 1e39 and 2e39 both become +inf and tie (then
    docid descending decides); 3.40282350e38 rounds to FLT_MAX. pytrec_eval does the same."""
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 2e39, "b": 1e39, "c": 3.4028235e38, "d": -1e39, "e": -2e39}}
    (tmp_path / "q.qrels").write_text("".join(f"q 0 {d} {g}\n" for d, g in qrels["q"].items()))
    (tmp_path / "r.run").write_text("".join(f"q Q0 {d} {i + 1} {s!r} big\n"
                                            for i, (d, s) in enumerate(run["q"].items())))
    specs = ["recip_rank", "map", "P.1,2,3"]
    expected = pytrec_eval.RelevanceEvaluator(qrels, specs).evaluate(run)["q"]
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        wh.ingest_qrels(tmp_path / "q.qrels", "q")
        wh.ingest_run(tmp_path / "r.run", "big")
        measures = {m.name: m.trec_name for m in parse_all(specs)}
        evaluation = wh.evaluate("big", "q", specs, per_query=True, compat=9)
        got = {measures[name]: value for _, _, name, value in evaluation.per_query.rows}
    assert got == pytest.approx(expected, abs=TOLERANCE)
