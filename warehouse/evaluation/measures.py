"""The measure registry: every measure irw computes, its names, parameters and the SQL behind it.

Users type ir_measures syntax (`P@10`, `AP`, `nDCG@10`, `SetF(beta=0.5)`, `AP(rel=2)`) or
trec_eval names (`P_10`, `map`, `ndcg_cut_10`, `P.5,10`, `ndcg.1=3,2=9`); both resolve to
Measure objects. Help text, the measure table of docs/measures.md and `irw measures` come from here.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, Iterable

from warehouse.errors import MeasureError
from warehouse.evaluation.settings import level_problem

# Parameter kinds: how a family's parameters are written, parsed and bound to its SQL.
NONE = "none"          # no parameter
CUTOFFS = "cutoffs"    # rank cutoffs k (trec_eval P.5,10 -> P_5, P_10)
LEVELS = "levels"      # recall levels or multiples of R (iprec_at_recall_0.30, Rprec_mult_0.20)
RAW = "raw"            # one measure whose parameter string is part of its name (utility_2,-1,0,0)

MEAN, SUM, GEO, COUNT = "mean", "sum", "geo", "count"


@dataclass(frozen=True)
class Family:
    trec_name: str
    sql: str | None                 # file under sql/measures/; None: not a stored score (runid, relstring)
    kind: str
    defaults: tuple                 # trec_eval's default parameters (all_trec)
    aggregate: str
    description: str
    ir_name: Callable[[Any], str] | None = None  # canonical irw name for a parameter value
    per_query: bool = True          # trec_eval prints a per-query line (-q)
    summary: bool = True            # trec_eval prints an "all" line
    ratio: bool = False             # value = numerator / denominator of counts: has a micro average
    v10_only: bool = False
    reference: str = ""             # what the values match (default: trec_eval, or ir_measures for extras)
    reads_run_rows: bool = False    # its SQL ranks run_rows itself (every row, not only the judged ones)
    # named options written in the name's parentheses, with defaults (None: the option is required):
    # alpha_nDCG(alpha=0.3)@10 is (("alpha", 0.5),); AP(ties=min) is (("ties", None),)
    options: tuple = ()
    conventions: str = ""           # where it departs from the evaluation's printed settings (irw eval says so)
    rel_format: str = "qrels"       # the judgments it reads: qrels, qrels_jg (judgment groups) or prefs
    definition_hash: str = ""       # a user measure's (irw measures add): the sha256 of its SQL file


def _k(fmt: str) -> Callable[[Any], str]:
    return lambda p: fmt.format(p)


def _short_float(p: float) -> str:
    """A number as a name shows it: six significant digits where they hold it exactly (0.25,
    1e-05), else every digit it needs (0.1234567): a name is the key scores are stored under, and
    two parameters sharing one would share their scores (a walk's IPrec@0.1234567 and @0.1234573)."""
    text = f"{p:g}"
    return text if float(text) == p else repr(float(p))


def _two_places(p: float) -> str:
    """A multiple of R or recall level as trec_eval prints it (0.20), or with every digit it needs
    where two places do not hold it (0.505, which trec_eval prints 0.51): the name is its key."""
    text = f"{p:.2f}"
    return text if float(text) == p else _short_float(p)


FAMILIES: dict[str, Family] = {f.trec_name: f for f in [
    Family("runid", None, NONE, (), COUNT, "The run's tag, printed first in trec_eval's summary.", per_query=False),
    Family("num_q", "measures/num_q.sql", NONE, (), SUM, "Number of queries evaluated.", _k("NumQ"),
           per_query=False),
    Family("num_ret", "measures/counts.sql", NONE, (), SUM, "Documents retrieved (after -M and -J).", _k("NumRet")),
    Family("num_rel", "measures/counts.sql", NONE, (), SUM, "Relevant documents judged (grade >= level).",
           _k("NumRel")),
    Family("num_rel_ret", "measures/counts.sql", NONE, (), SUM, "Relevant documents retrieved.", _k("NumRelRet")),
    Family("map", "measures/average_precision.sql", NONE, (), MEAN,
           "Average precision: mean of the precision at each relevant document, unretrieved ones counting 0; "
           "denominator R.", _k("AP")),
    Family("gm_map", "measures/average_precision.sql", NONE, (), GEO,
           "Geometric mean of AP over queries (AP floored at 1e-5).", _k("GMAP"), per_query=False),
    Family("Rprec", "measures/rprec.sql", NONE, (), MEAN, "Precision at rank R (R = relevant documents).",
           _k("Rprec")),
    Family("bpref", "measures/bpref.sql", NONE, (), MEAN,
           "Binary preference: judged non-relevant documents ranked above each relevant one.", _k("Bpref")),
    Family("recip_rank", "measures/reciprocal_rank.sql", NONE, (), MEAN,
           "Reciprocal rank of the first relevant document.", _k("RR")),
    Family("iprec_at_recall", "measures/interpolated_precision.sql", LEVELS,
           (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), MEAN,
           "Interpolated precision at a recall level: the highest precision at any rank whose recall reaches it.",
           lambda p: f"IPrec@{_short_float(p)}"),
    Family("P", "measures/cutoff.sql", CUTOFFS, (5, 10, 15, 20, 30, 100, 200, 500, 1000), MEAN,
           "Precision at k: relevant in the top k, divided by k even when fewer were retrieved.",
           _k("P@{}"), ratio=True),
    # relstring is text, not a score: the trec_eval drop-in prints it from sql/measures/relstring.sql,
    # where its unjudged documents are the ranks no judged one holds (judged rows suffice)
    Family("relstring", None, CUTOFFS, (10,), MEAN,
           "The relevance of the top documents as a string (irw trec-eval -q only).", summary=False),
    Family("recall", "measures/cutoff.sql", CUTOFFS, (5, 10, 15, 20, 30, 100, 200, 500, 1000), MEAN,
           "Recall at k: relevant in the top k, divided by R.", _k("R@{}"), ratio=True),
    Family("infAP", "measures/inf_ap.sql", NONE, (), MEAN,
           "Inferred AP (Yilmaz and Aslam 2006) for incomplete judgments.", _k("infAP")),
    Family("gm_bpref", "measures/bpref.sql", NONE, (), GEO, "Geometric mean of bpref.", _k("gm_bpref"),
           per_query=False),
    Family("Rprec_mult", "measures/rprec.sql", LEVELS, (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), MEAN,
           "Precision at rank x * R.", lambda p: f"Rprec_mult_{_two_places(p)}"),
    Family("utility", "measures/set.sql", RAW, ("1,-1,0,0",), MEAN,
           "Utility a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret (default 1,-1,0,0)."),
    Family("11pt_avg", "measures/interpolated_precision.sql", RAW,
           ("0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",), MEAN,
           "Mean interpolated precision over recall levels (default the 11 points 0.0 ... 1.0)."),
    Family("binG", "measures/gain.sql", NONE, (), MEAN, "Binary gain (Kekäläinen and Järvelin)."),
    Family("G", "measures/gain.sql", RAW, ("",), MEAN,
           "Normalized cumulative gain without discount, grades as gains (G.1=3,2=9 maps grades to gains)."),
    Family("ndcg", "measures/ndcg.sql", RAW, ("",), MEAN,
           "nDCG over the whole ranking, grades as gains (ndcg.1=3,2=9 maps grades to gains).",
           lambda p: "nDCG" if p == "" else f"ndcg_{p}"),
    Family("ndcg_rel", "measures/ndcg_rel.sql", RAW, ("",), MEAN, "nDCG averaged over the relevant documents."),
    Family("Rndcg", "measures/rndcg.sql", RAW, ("",), MEAN, "nDCG at rank R."),
    Family("ndcg_cut", "measures/ndcg_cut.sql", CUTOFFS, (5, 10, 15, 20, 30, 100, 200, 500, 1000), MEAN,
           "nDCG at k, grades as gains, log2 discount.", _k("nDCG@{}")),
    Family("map_cut", "measures/average_precision.sql", CUTOFFS, (5, 10, 15, 20, 30, 100, 200, 500, 1000), MEAN,
           "AP over the top k, denominator R (trec_eval's map_cut).", _k("AP@{}")),
    Family("relative_P", "measures/cutoff.sql", CUTOFFS, (5, 10, 15, 20, 30, 100, 200, 500, 1000), MEAN,
           "Relevant in the top k divided by min(k, R).", ratio=True),
    Family("success", "measures/cutoff.sql", CUTOFFS, (1, 5, 10), MEAN,
           "1 if a relevant document is in the top k, else 0.", _k("Success@{}")),
    Family("set_P", "measures/set.sql", NONE, (), MEAN, "Precision of the whole retrieved set.", _k("SetP"),
           ratio=True),
    Family("set_relative_P", "measures/set.sql", NONE, (), MEAN,
           "Relevant retrieved divided by min(retrieved, R).", ratio=True),
    Family("set_recall", "measures/set.sql", NONE, (), MEAN, "Recall of the whole retrieved set.", _k("SetR"),
           ratio=True),
    Family("set_map", "measures/set.sql", NONE, (), MEAN, "Set precision times set recall.", _k("SetAP")),
    Family("set_F", "measures/set.sql", LEVELS, (1.0,), MEAN,
           "F measure of the retrieved set, (1 + x) P R / (x P + R): SetF(beta=x), as ir_measures reads it, is "
           "trec_eval's set_F.x (x is the textbook beta squared).", lambda p: f"SetF(beta={_short_float(p)})",
           ratio=True),
    Family("num_nonrel_judged_ret", "measures/counts.sql", NONE, (), SUM,
           "Judged non-relevant documents retrieved."),
    Family("rbp", "measures/rbp.sql", RAW, ("",), MEAN,
           "Rank-biased precision (Moffat and Zobel 2008), persistence p = 0.9 (rbp.p=0.95), grades as gains "
           "normalised to [0, 1] per query (rbp.1=3,2=9 maps grades to gains).", v10_only=True),
    Family("rbp_resid", "measures/rbp.sql", RAW, ("",), MEAN,
           "RBP residual: the most rbp could still grow if the unjudged documents were relevant (p = 0.9).",
           v10_only=True),
    Family("unj", "measures/unjudged.sql", CUTOFFS, (5, 10, 20), MEAN,
           "Share of the top k documents that are unjudged (or negatively graded), denominator k.",
           ratio=True, v10_only=True),
]}

_GDEVAL_CONVENTIONS = "gdeval's conventions: ties by score as a double, then docid descending; every grade > 0 counts"
_NDEVAL_CONVENTIONS = ("ndeval's conventions (as pyndeval runs it): ties by score as a double, then docid "
                       "ascending; relevant per subtopic")

# Measures of irw beyond trec_eval's all_trec: ir_measures' names, computed by the same SQL families,
# and trec_eval's yaap, which trec_eval computes only when asked for by name.
EXTRA_FAMILIES: dict[str, Family] = {f.trec_name: f for f in [
    Family("yaap", "measures/yaap.sql", NONE, (), MEAN,
           "Yet another average precision (Robertson 2012): ln((1 + S) / (1 + R - S)), S the sum of the precision "
           "at each retrieved relevant document.", reference="trec_eval 9.0.8 (-m yaap; not in all_trec)"),
    Family("recip_rank_cut", "measures/reciprocal_rank.sql", CUTOFFS, (10,), MEAN,
           "Reciprocal rank of the first relevant document within the top k, else 0.", _k("RR@{}")),
    Family("judged", "measures/cutoff.sql", CUTOFFS, (10,), MEAN,
           "Share of the top k documents that are judged (denominator k).", _k("Judged@{}"), ratio=True),
    Family("map_cut_min", "measures/average_precision.sql", CUTOFFS, (10,), MEAN,
           "AP over the top k with denominator min(R, k).", _k("AP@{}(denom=min)")),
    # gdeval.pl's measures (TREC Web 2010-2014), as ir_measures names and runs them
    Family("gdeval_err", "measures/gdeval.sql", CUTOFFS, (20,), MEAN,
           "Expected reciprocal rank at k (Chapelle et al. 2009), stopping chance (2^grade - 1) / 16, "
           "gdeval's tie order; grades above 4 are refused.", _k("ERR@{}"),
           reference="gdeval.pl 1.2a, as ir_measures runs it", reads_run_rows=True, conventions=_GDEVAL_CONVENTIONS),
    Family("gdeval_ndcg", "measures/gdeval.sql", CUTOFFS, (20,), MEAN,
           "nDCG at k with gain 2^grade - 1 and log2 discount, ideal from the documents graded > 0, "
           "gdeval's tie order.", _k("nDCG(dcg=exp-log2)@{}"), reference="gdeval.pl 1.2a, as ir_measures runs it",
           reads_run_rows=True, conventions=_GDEVAL_CONVENTIONS),
]}

# Diversity measures over subtopic judgments (`irw ingest qrels FILE --subtopics`): ndeval's, as
# ir_measures runs it through pyndeval (sql/measures/diversity.sql).
_NDEVAL = "ndeval 4.5 (pyndeval 0.0.8), as ir_measures runs it"
DIVERSITY_FAMILIES: dict[str, Family] = {f.trec_name: f for f in [
    Family("alpha_ndcg", "measures/diversity.sql", CUTOFFS, (20,), MEAN,
           "alpha-nDCG at k (Clarke et al. 2008): each subtopic a document is relevant to gains (1 - alpha)^(times "
           "it was covered above), log2 discount, over ndeval's greedy ideal; alpha = 0.5 unless "
           "alpha_nDCG(alpha=a)@k.", _k("alpha_nDCG@{}"), reference=_NDEVAL, reads_run_rows=True, conventions=_NDEVAL_CONVENTIONS,
           options=(("alpha", 0.5),)),
    Family("err_ia", "measures/diversity.sql", CUTOFFS, (20,), MEAN,
           "Intent-aware ERR at k (Chapelle et al. 2009) as ndeval computes it: gains (1 - 0.5)^(times covered) "
           "over rank, normalised by the ideal of every subtopic covered at every rank.", _k("ERR_IA@{}"),
           reference=_NDEVAL, reads_run_rows=True, conventions=_NDEVAL_CONVENTIONS),
    Family("nrbp", "measures/diversity.sql", NONE, (), MEAN,
           "Novelty- and rank-biased precision (Clarke et al. 2009) over the whole ranking, alpha = beta = 0.5 "
           "unless NRBP(alpha=a,beta=b).", _k("NRBP"), reference=_NDEVAL, reads_run_rows=True, conventions=_NDEVAL_CONVENTIONS,
           options=(("alpha", 0.5), ("beta", 0.5))),
    Family("nnrbp", "measures/diversity.sql", NONE, (), MEAN,
           "NRBP divided by the NRBP of ndeval's greedy ideal ranking.", _k("nNRBP"), reference=_NDEVAL,
           reads_run_rows=True, options=(("alpha", 0.5), ("beta", 0.5)), conventions=_NDEVAL_CONVENTIONS),
    Family("p_ia", "measures/diversity.sql", CUTOFFS, (20,), MEAN,
           "Intent-aware precision at k: (subtopic, document) hits in the top k over k times the subtopics.",
           _k("P_IA@{}"), reference=_NDEVAL, reads_run_rows=True, conventions=_NDEVAL_CONVENTIONS),
    Family("strec", "measures/diversity.sql", CUTOFFS, (20,), MEAN,
           "Subtopic recall at k: share of the query's subtopics covered in the top k.", _k("StRecall@{}"),
           reference=_NDEVAL, reads_run_rows=True, conventions=_NDEVAL_CONVENTIONS),
]}

# Tie-aware scores (McSherry and Najork, ECIR 2008): over every order of the documents that tie
# (the evaluation's tie rule: float32 scores under --compat 9, doubles under 10), the expected
# value in closed form, and the lowest and highest any order gives (sql/measures/ties.sql).
_TIES = "McSherry and Najork, ECIR 2008 (expected); min and max over tie orders"
_TIES_OPTION = (("ties", None),)
TIE_FAMILIES: dict[str, Family] = {f.trec_name: f for f in [
    Family("map_ties", "measures/ties.sql", NONE, (), MEAN,
           "AP over the orders of tied documents: ties=expected (the mean over every order), min or max.",
           _k("AP"), reference=_TIES, reads_run_rows=True, options=_TIES_OPTION),
    Family("ndcg_cut_ties", "measures/ties.sql", CUTOFFS, (10,), MEAN,
           "nDCG@k over the orders of tied documents: ties=expected, min or max.", _k("nDCG@{}"),
           reference=_TIES, reads_run_rows=True, options=_TIES_OPTION),
    Family("P_ties", "measures/ties.sql", CUTOFFS, (10,), MEAN,
           "P@k over the orders of tied documents: ties=expected, min or max.", _k("P@{}"),
           reference=_TIES, reads_run_rows=True, options=_TIES_OPTION),
    Family("recip_rank_ties", "measures/ties.sql", NONE, (), MEAN,
           "RR over the orders of tied documents: ties=expected, min or max.", _k("RR"),
           reference=_TIES, reads_run_rows=True, options=_TIES_OPTION),
    Family("recall_ties", "measures/ties.sql", CUTOFFS, (1000,), MEAN,
           "R@k over the orders of tied documents: ties=expected, min or max.", _k("R@{}"),
           reference=_TIES, reads_run_rows=True, options=_TIES_OPTION),
]}
TIE_MODES = ("expected", "min", "max")
# the measure each tie family scores, as parse_ir finds it before ties= is read
_TIE_FAMILY = {"map": "map_ties", "ndcg_cut": "ndcg_cut_ties", "P": "P_ties", "recip_rank": "recip_rank_ties",
               "recall": "recall_ties"}

# trec_eval's measures over judgment groups (trec_eval -R qrels_jg: `qid group docid grade`, stored as
# a subtopic set whose subtopics are the groups): sql/measures/judgment_groups.sql.
_JG = "judgment groups (trec_eval -R qrels_jg)"
JG_FAMILIES: dict[str, Family] = {f.trec_name: f for f in [
    Family("map_avgjg", "measures/judgment_groups.sql", NONE, (), MEAN,
           "AP computed against each judgment group (user) of the query alone, averaged over the groups.",
           reference="trec_eval 10.0 (-R qrels_jg)", rel_format="qrels_jg"),
    Family("P_avgjg", "measures/judgment_groups.sql", CUTOFFS, (5, 10, 15, 20, 30, 100, 200, 500, 1000), MEAN,
           "P@k against each judgment group of the query alone, averaged over the groups.",
           reference="trec_eval 10.0 (-R qrels_jg)", rel_format="qrels_jg"),
    Family("Rprec_mult_avgjg", "measures/judgment_groups.sql", LEVELS,
           (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), MEAN,
           "Precision at rank x * R against each judgment group (its own R), averaged over the groups.",
           reference="trec_eval 10.0 (-R qrels_jg)", rel_format="qrels_jg"),
]}
# trec_eval's measures over preference judgments (trec_eval -R prefs and -R qrels_prefs, `irw
# ingest prefs FILE`, schema 14): sql/measures/prefs.sql, in trec_eval's printing order.
_PREFS_REF = "trec_eval 10.0 (-R prefs)"
_PREFS_CONVENTIONS = "trec_eval's preference order: ties by score, then docid ascending; relevant means rel_level > 0"
_PREFS_TAIL = {"": "", "_ret": " Only preferences whose two documents are retrieved count.",
               "_imp": " Preferences whose two documents are both unretrieved are left out."}


def _prefs(name: str, aggregate: str, description: str) -> Family:
    return Family(name, "measures/prefs.sql", NONE, (), aggregate, description, reference=_PREFS_REF,
                  reads_run_rows=True, rel_format="prefs", conventions=_PREFS_CONVENTIONS)


PREFS_FAMILIES: dict[str, Family] = {f.trec_name: f for f in [
    _prefs("prefs_num_prefs_poss", SUM, "Preferences of the judgments (each judgment group's, transitive)."),
    _prefs("prefs_num_prefs_ful", SUM, "Preferences a > b fulfilled: a retrieved above b, or a retrieved and b not."),
    _prefs("prefs_num_prefs_ful_ret", SUM, "Preferences fulfilled with both documents retrieved."),
    *(_prefs(f"prefs_{kind}{tail}", MEAN, text + _PREFS_TAIL[tail]) for tail in ("", "_ret", "_imp")
      for kind, text in [
          ("simp", "Preferences fulfilled over preferences possible."),
          ("pair", "Mean over document pairs of the share of judgment groups whose preference the ranking "
                   "fulfils."),
          ("avgjg", "Preferences fulfilled over possible within each judgment group, averaged over groups."),
          ("avgjg_Rnonrel", "prefs_avgjg with each group's non-relevant documents counted as many as its "
                            "relevant ones (R)."),
      ] if not (tail == "_imp" and kind == "avgjg_Rnonrel")),
]}
# trec_eval's table order: the counts, then simp pair avgjg avgjg_Rnonrel, their _ret, their _imp
PREFS_FAMILIES = {name: PREFS_FAMILIES[name] for name in [
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"]}

# trec_eval's measure-set nicknames (measures.c) but official and all_trec, whose all_trec depends on
# the version followed (trec_measure_set): each with measures.c's members, in trec_eval's printing
# order (its table's, whatever the order a nickname lists them in)
MEASURE_SETS = {
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_relative_P",
            "set_recall", "set_map", "set_F"),
    "all_prefs": ("runid", "num_q", *PREFS_FAMILIES),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", *JG_FAMILIES),
}
NICKNAMES = ("official", "all_trec", *MEASURE_SETS)

EXTRA_FAMILIES.update(DIVERSITY_FAMILIES)
EXTRA_FAMILIES.update(TIE_FAMILIES)
EXTRA_FAMILIES.update(JG_FAMILIES)
EXTRA_FAMILIES.update(PREFS_FAMILIES)

ALL_FAMILIES = {**FAMILIES, **EXTRA_FAMILIES}


@dataclass(frozen=True)
class Measure:
    family: Family
    param: Any = None           # a cutoff, a level, or the raw parameter string
    level: int | None = None    # per-measure relevance level (ir_measures' rel=), else the evaluation's
    options: tuple = ()         # (name, value) pairs of the family's options that differ from their default
    # the parameter list as typed to trec_eval's -m, which trec_eval 9.0.8 prints after the name for
    # a measure of one value with parameters (meas_init.c: set_F.0.5 -> set_F_0.5, utility.1,-1,0,0
    # -> utility_1,-1,0,0); set only by `irw trec-eval` (see trec_eval.requested_measures)
    typed: str | None = field(default=None, compare=False, repr=False)

    def option(self, key: str) -> Any:
        """The value of one of the family's options (alpha, beta, ties): as given, else its default."""
        return {**dict(self.family.options), **dict(self.options)}.get(key)

    @property
    def trec_name(self) -> str:
        return self.trec_name_at(None)

    def trec_name_at(self, level: int | None, *, exact: bool = False) -> str:
        """The name trec_eval prints for this measure; with level (the evaluation's relevance level),
        a measure evaluated at a level of its own (AP(rel=2)) has `rel_N` joined as an option is,
        so one output never prints two measures under one name (P_5 and P_rel_2_5). exact: a level
        that trec_eval's two decimals do not hold (Rprec_mult.0.505, printed Rprec_mult_0.51) is
        written with every digit it needs, as the measure's key (name) must be."""
        f = self.family
        if self.typed is not None:
            return f"{f.trec_name}_{self.typed}"
        # options that differ from their default join the name, so AP(ties=min) and AP(ties=max)
        # print apart: map_ties_min, P_ties_max_10, nrbp_0.3_0.8; a user measure's numbers with their
        # keys, as its parameters are all numbers (a walk's myerr(k=4) and myerr(gmax=4) both printed
        # myerr_4): myerr_k_4, myerr_gmax_4
        user = is_user(self)
        parts = [f.trec_name, *(f"{key}_{_option_text(value)}" if user else _option_text(value)
                                for key, value in self.options)]
        if level is not None and self.level is not None and self.level != level:
            parts.append(f"rel_{self.level}")
        head = "_".join(parts)
        if f.kind == NONE:
            return head
        if f.kind == CUTOFFS:
            return f"{head}_{self.param}"
        if f.kind == LEVELS and f.trec_name == "set_F":  # trec_eval: set_F.0.5 prints set_F_0.5
            return head if self.param in f.defaults else f"{head}_{_short_float(self.param)}"
        if f.kind == LEVELS:
            return f"{head}_{_two_places(self.param) if exact else format(self.param, '.2f')}"
        return head if self.param in f.defaults else f"{head}_{self.param}"

    @cached_property  # a report of a thousand runs asks for it tens of thousands of times
    def name(self) -> str:
        """The canonical irw name: ir_measures syntax where it has one, else trec_eval's (kept on
        first use: the fields it is made of never change)."""
        base = self.family.ir_name(self.param) if self.family.ir_name else self.trec_name_at(None, exact=True)
        if self.family.options:  # alpha_nDCG(alpha=0.3,rel=2)@10, AP(ties=min), NRBP(alpha=0.3,beta=0.8)
            args = [f"{key}={_option_text(value)}" for key, value in self.options]
            args += [f"rel={self.level}"] if self.level is not None else []
            head, at, cutoff = base.partition("@")
            return f"{head}({','.join(args)}){at}{cutoff}" if args else base
        if self.level is None:
            return base
        close = base.find(")")
        if close >= 0:  # SetF(beta=0.5) -> SetF(beta=0.5,rel=2), as ir_measures writes its arguments
            return f"{base[:close]},rel={self.level}{base[close:]}"
        if "@" in base:
            return base.replace("@", f"(rel={self.level})@", 1)
        return f"{base}(rel={self.level})"

    @property
    def aggregate(self) -> str:
        return self.family.aggregate

    @property
    def is_mean(self) -> bool:
        """Summarized as a mean over queries (sql/eval/summary_rule.sql), so paired tests compare it."""
        return self.family.aggregate == MEAN

    @property
    def is_count(self) -> bool:
        """A count (num_ret, num_q ...): summed over queries and printed as an integer."""
        return self.family.aggregate == SUM

    @property
    def trec_spec(self) -> str:
        """How trec_eval's -m names this measure (`ndcg_cut.10`, `set_F.0.25`, `map`)."""
        f = self.family
        if f.kind == NONE or (f.kind == RAW and self.param in ("", None)):
            return f.trec_name
        if f.kind == LEVELS:
            return f"{f.trec_name}.{self.param:g}"
        return f"{f.trec_name}.{self.param}"

    def __str__(self) -> str:
        return self.name


def _option_text(value: Any) -> str:
    return _short_float(value) if isinstance(value, float) else str(value)


# -- parsing ---------------------------------------------------------------------------------
_IR_NAMES: dict[str, tuple[str, bool]] = {
    # ir_measures name -> (family, takes @k)
    "P": ("P", True), "R": ("recall", True), "AP": ("map", False), "RR": ("recip_rank", False),
    "nDCG": ("ndcg", False), "NDCG": ("ndcg", False), "Rprec": ("Rprec", False), "Bpref": ("bpref", False),
    "bpref": ("bpref", False), "infAP": ("infAP", False), "GMAP": ("gm_map", False), "SetP": ("set_P", False),
    "SetR": ("set_recall", False), "SetF": ("set_F", False), "SetAP": ("set_map", False),
    "IPrec": ("iprec_at_recall", True), "Success": ("success", True), "Judged": ("judged", True),
    "NumQ": ("num_q", False), "NumRet": ("num_ret", False), "NumRel": ("num_rel", False),
    "NumRelRet": ("num_rel_ret", False), "ERR": ("gdeval_err", True),
    "alpha_nDCG": ("alpha_ndcg", True), "ERR_IA": ("err_ia", True), "NRBP": ("nrbp", False),
    "nNRBP": ("nnrbp", False), "P_IA": ("p_ia", True), "StRecall": ("strec", True),
}
_AT_FAMILY = {"AP": "map_cut", "RR": "recip_rank_cut", "nDCG": "ndcg_cut", "NDCG": "ndcg_cut"}
# ir_measures' aliases (its registry: MAP is AP, MRR is RR ...), read as the measure they name, so
# that one measure has one key from parsing to storage to display
_IR_ALIASES = {"MAP": "AP", "MRR": "RR", "Precision": "P", "Recall": "R", "RPrec": "Rprec", "BPref": "Bpref",
               "SetRelP": "SetP"}
# the parameters ir_measures 0.4 takes for each of its measures irw computes (SUPPORTED_PARAMS);
# irw's own additions (ties=, denom=, dcg=exp-log2) are read before these are checked
_IR_PARAMS = {
    "P": {"cutoff", "rel", "judged_only"}, "R": {"cutoff", "rel", "judged_only"},
    "AP": {"cutoff", "rel", "judged_only"}, "RR": {"cutoff", "rel", "judged_only"},
    "nDCG": {"cutoff", "dcg", "gains", "judged_only"}, "NDCG": {"cutoff", "dcg", "gains", "judged_only"},
    "Rprec": {"rel", "judged_only"}, "Bpref": {"rel"}, "bpref": {"rel"}, "infAP": {"rel"},
    "SetP": {"rel", "relative", "judged_only"}, "SetR": {"rel"}, "SetF": {"rel", "beta", "judged_only"},
    "SetAP": {"rel", "judged_only"}, "IPrec": {"recall", "rel", "judged_only"},
    "Success": {"cutoff", "rel", "judged_only"}, "Judged": {"cutoff"}, "NumQ": set(), "NumRet": {"rel"},
    "NumRel": {"rel"}, "NumRelRet": {"rel"}, "ERR": {"cutoff"}, "alpha_nDCG": {"cutoff", "rel", "alpha", "judged_only"},
    "ERR_IA": {"cutoff", "rel", "judged_only"}, "NRBP": {"rel", "alpha", "beta"}, "nNRBP": {"rel", "alpha", "beta"},
    "P_IA": {"cutoff", "rel", "judged_only"}, "StRecall": {"cutoff", "rel"},
}
# ir_measures' measures irw does not compute, and what to ask for instead where irw has a relative
_IR_NOT_COMPUTED = {
    "RBP": "irw computes trec_eval 10.0's rbp (p = 0.9, grades as gains normalised per query; --compat 10), "
           "another number than ir_measures' RBP (p = 0.8), and examples/measures/rbp.sql of irw's repository "
           "adds rank-biased precision with binary relevance (rbp_binary, p = 0.8) as a measure of your own "
           "(`irw measures add`; docs/measures.md)",
    "Compat": "", "INST": "", "INSQ": "", "SDCG": "", "NERR8": "", "NERR9": "", "NERR10": "", "NERR11": "",
    "BPM": "", "Accuracy": "", "alpha_DCG": "irw computes alpha_nDCG@k", "nERR_IA": "irw computes ERR_IA@k",
    "AP_IA": "", "MAP_IA": "",
}
# families whose value does not depend on the relevance level: a rel= on them would be a label
# without effect, so it is refused (ir_measures refuses nDCG(rel=2) and Judged(rel=2) too)
_NO_LEVEL = {
    "ndcg": "gain", "ndcg_cut": "gain", "ndcg_cut_ties": "gain", "G": "gain", "ndcg_rel": "gain", "Rndcg": "gain",
    "rbp": "gain", "rbp_resid": "gain", "gdeval_err": "gdeval", "gdeval_ndcg": "gdeval",
    "judged": "judged", "unj": "judged", "num_q": "count", "num_ret": "count",
    **dict.fromkeys(PREFS_FAMILIES, "prefs"),
}
_IR_SYNTAX = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)(?:\((?P<args>[^)]*)\))?(?:@(?P<at>-?[0-9.]+))?"
                        r"(?:\((?P<args2>[^)]*)\))?$")


def typed_name(spec: str) -> str | None:
    """The name a measure is typed with in ir_measures' syntax (NAME, NAME(k=5), NAME@5): the name
    irw looks up among the user measures (_parse_user); None for another syntax."""
    match = _IR_SYNTAX.match(spec.strip())
    return match.group("name") if match else None


def _beta(value: float, spec: str) -> float:
    """SetF's beta (trec_eval's set_F parameter) as irw's own names take it: finite and at least 0,
    -0 read as 0 (one measure, one key). A lab walk's SetF(beta=-1) printed nan for some runs and 0
    for others; `irw trec-eval -m set_F.-1` keeps trec_eval's arithmetic (parse_trec, not parse)."""
    if not (0 <= value < float("inf")):
        raise MeasureError(f"{spec}: beta must be a finite number of at least 0 (the weight of recall, "
                           f"(1 + beta) P R / (beta P + R)); got {value!r}")
    return value + 0.0


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise MeasureError(f"{what}: {text!r} is not a number") from None


_LARGEST_CUTOFF = 2 ** 63 - 1  # trec_eval's cutoffs are C longs


def _cutoff(text: str, what: str) -> int:
    # trec_eval reads cutoffs with atol: ndcg_cut.23.4 is ndcg_cut_23.
    if text == "":
        raise MeasureError(f"{what}: the list has an empty item, which trec_eval reads as cutoff 0 and refuses "
                           f"(\"Negative cutoff detected\"): give each cutoff once, e.g. {what.partition('.')[0]}.5,10")
    value = _number(text, what)
    if value < 1:
        raise MeasureError(f"{what}: cutoff {text!r} must be at least 1")
    if value > _LARGEST_CUTOFF:
        raise MeasureError(f"{what}: cutoff {text!r} is more than trec_eval can hold (a C long, up to "
                           f"{_LARGEST_CUTOFF}): give a cutoff no run reaches, such as 1000000")
    return int(value)


def _whole_cutoff(text: str, what: str) -> int:
    """A cutoff written irw's way (P@10, P(cutoff=10)): a whole number, where trec_eval's own
    P.10.5 keeps the atol reading of _cutoff (P_10)."""
    value = _number(text, what)
    if math.isfinite(value) and not value.is_integer():
        raise MeasureError(f"{what}: cutoff {text!r} must be a whole number (a cutoff counts documents)")
    return _cutoff(text, what)


def _rel_level(text: str, spec: str) -> int:
    """A measure's own relevance level (AP(rel=2)), in the range irw eval's -l takes (settings.py),
    said with the measure it was given to."""
    value = _number(text, spec)
    level = int(value) if math.isfinite(value) and value.is_integer() else text
    problem = level_problem(level)
    if problem:
        raise MeasureError(f"{spec}: rel= {problem}")
    return level


def _level(text: str, what: str) -> float:
    # trec_eval reads recall levels and multiples of R with atof, an empty item as 0
    return 0.0 if text == "" else _number(text, what)


def parse_trec(spec: str, compat: int = 9) -> list[Measure]:
    """trec_eval -m syntax: a family name, optionally '.' and its parameters; all_trec is the set
    of trec_eval version compat."""
    name, dot, params = spec.partition(".")
    if name in ("all_trec", "official"):
        return trec_measure_set(name, compat)
    if name in MEASURE_SETS and not dot:  # set, prefs, all_prefs, qrels_jg
        return [m for n in MEASURE_SETS[name] for m in default_measures(ALL_FAMILIES[n])]
    family = ALL_FAMILIES.get(name)
    if family is None:
        printed = _parse_printed_trec_name(spec)
        if printed is None:
            raise MeasureError(f"unknown measure {spec!r}; `irw measures` lists them")
        return [printed]
    if not dot or family.kind == NONE:
        if dot and family.kind == NONE:
            raise MeasureError(f"{name} takes no parameters")
        return default_measures(family)
    if family.kind == CUTOFFS:
        values = sorted({_cutoff(p, spec) for p in params.split(",")})
        return [Measure(family, v) for v in values]
    if family.kind == LEVELS:
        values = sorted({_level(p, spec) for p in params.split(",")})
        return [Measure(family, v) for v in values]
    return [Measure(family, _canonical_list(family, params))]


def _canonical_list(family: Family, params: str) -> str:
    """A list parameter (utility.2,-1,0,0, 11pt_avg.0.25,0.5, ndcg.1=3,2=9) with each number
    written one way, so that spellings trec_eval reads as the same numbers are one measure with one
    key (utility.2.0,-1,0,0 and utility.2,-1,0,0; 11pt_avg..25 and 11pt_avg.0.25); a list equal to
    the family's default is the default. The order stays as given: trec_eval reads 11pt_avg's levels
    and sorts the gain pairs in an order that depends on it (gain_order.py). A list that is not
    numbers is kept as typed, for measure_params to say what is wrong with it."""
    def numbers(text: str) -> str:
        items = []
        for item in text.split(","):
            key, equals, value = item.rpartition("=")
            if key and key != "p":
                key = str(int(key))
            items.append(f"{key}{equals}{_short_float(float(value)) if value else ''}")
        return ",".join(items)

    try:
        canonical = numbers(params)
        defaults = {numbers(d): d for d in family.defaults if d}
    except ValueError:
        return params
    return defaults.get(canonical, canonical)


def _parse_printed_trec_name(spec: str) -> Measure | None:
    """A name as trec_eval prints it (P_10, iprec_at_recall_0.30, ndcg_cut_10, and the names of
    measures whose parameter string is part of the name: utility_2,-1,0,0, ndcg_1=3,2=9, which are
    also how irw names them) -> its measure."""
    for family in sorted(ALL_FAMILIES.values(), key=lambda f: -len(f.trec_name)):
        prefix = family.trec_name + "_"
        if not spec.startswith(prefix):
            continue
        # what Measure.trec_name_at joins before the parameter: a tie mode (map_ties_min), the
        # measure's own level (P_rel_2_10), so that a name irw prints is a name irw takes
        value, options, level = spec[len(prefix):], (), None
        tie = re.match(rf"({'|'.join(TIE_MODES)})(?:_|$)", value) if dict(family.options).keys() >= {"ties"} else None
        if tie:
            options, value = (("ties", tie.group(1)),), value[tie.end():]
        at_level = re.match(r"rel_([0-9]+)(?:_|$)", value)
        if at_level:
            level, value = _rel_level(at_level.group(1), spec), value[at_level.end():]
        if value == "" and (options or level is not None) and family.kind in (NONE, RAW):
            return Measure(family, family.defaults[0] if family.kind == RAW else None, level=level, options=options)
        if re.fullmatch(r"[0-9]+", value) and family.kind == CUTOFFS:
            return Measure(family, _cutoff(value, spec), level=level, options=options)
        if re.fullmatch(r"[0-9]*\.?[0-9]+", value) and family.kind == LEVELS:
            return Measure(family, float(value), level=level, options=options)
        if re.fullmatch(r"[-+0-9.,=eEp]+", value) and family.kind == RAW:  # numbers, grade=gain, p=
            return Measure(family, _canonical_list(family, value), level=level, options=options)
    return None


def missing_options(m: Measure) -> list[str]:
    """The options m's family requires (no default) that m does not give: map_ties without ties=."""
    return [key for key, default in m.family.options if default is None and key not in dict(m.options)]


def _refuse_unsaid_options(measures: list[Measure], spec: str) -> list[Measure]:
    for m in measures:
        missing = missing_options(m)
        if missing:
            example = Measure(m.family, m.param, options=((missing[0], TIE_MODES[0]),)).name
            raise MeasureError(f"{spec}: write it with its {missing[0]}= option, e.g. {example}")
    return measures


def default_measures(family: Family) -> list[Measure]:
    if family.kind == NONE:
        return [Measure(family)]
    return [Measure(family, p) for p in family.defaults]


def _parse_args(text: str | None, spec: str, args: dict[str, str] | None = None) -> dict[str, str]:
    """The name=value arguments of text added to args (a measure's arguments read so far); one
    given twice is an error, not the last one silently (prec(k=10,k=20), prec(k=5)(k=20))."""
    args = {} if args is None else args
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        if not eq:
            raise MeasureError(f"{spec}: expected name=value in parentheses, got {part!r}")
        if key.strip() in args:
            raise MeasureError(f"{spec}: {key.strip()} is given twice; give it once")
        args[key.strip()] = value.strip()
    return args


def _without_arg(spec: str, key: str) -> str:
    """spec with its key=value argument left out (`P(judged_only=True)@10` -> `P@10`)."""
    match = _IR_SYNTAX.match(spec)
    args = [a for part in ("args", "args2") for a in (match.group(part) or "").split(",")
            if a.strip() and a.partition("=")[0].strip() != key]
    head = match.group("name") + (f"({','.join(a.strip() for a in args)})" if args else "")
    return head + (f"@{match.group('at')}" if match.group("at") else "")


def parse_ir(spec: str) -> list[Measure]:
    if spec.startswith("α_"):  # ir_measures' other spelling of alpha_nDCG
        spec = "alpha_" + spec[2:]
    match = _IR_SYNTAX.match(spec)
    typed_name = match.group("name") if match else None
    if typed_name in _IR_NOT_COMPUTED:
        instead = _IR_NOT_COMPUTED[typed_name]
        raise MeasureError(f"{spec}: {typed_name} is an ir_measures measure irw does not compute"
                           + (f"; {instead}" if instead else "") + "; `irw measures` lists the measures irw computes")
    if match and "gains=" in spec and typed_name in ("nDCG", "NDCG"):
        # the map typed, as trec_eval's parameter (an ir_measures user's gains={0:0,1:1,2:3,3:7} is
        # ndcg.0=0,1=1,2=3,3=7, equal to ir_measures on DL19); trec_eval cuts no ndcg with a map
        typed = re.search(r"gains\s*=\s*\{([^}]*)\}", spec)
        pairs = [p.split(":", 1) for p in typed.group(1).split(",") if ":" in p] if typed else []
        given = ",".join(f"{grade.strip()}={gain.strip()}" for grade, gain in pairs) or "1=3,2=9"
        raise MeasureError(f"{spec}: irw takes no gains= for nDCG; give the map as trec_eval's ndcg takes it: "
                           f"ndcg.{given} (over the whole ranking"
                           + ("; trec_eval cuts no nDCG with a gain map, so it has no @k" if match.group("at") else "")
                           + ")")
    if not match or (typed_name not in _IR_NAMES and typed_name not in _IR_ALIASES):
        raise MeasureError(f"unknown measure {spec!r}; `irw measures` lists them")
    name, at = _IR_ALIASES.get(typed_name, typed_name), match.group("at")
    args = _parse_args(match.group("args2"), spec, _parse_args(match.group("args"), spec))
    for key in ("cutoff", "recall"):  # ir_measures' P(cutoff=10), IPrec(recall=0.5): P@10, IPrec@0.5
        if key in args and key in _IR_PARAMS.get(name, ()):
            if at is not None:
                raise MeasureError(f"{spec}: give the {key} once, as @ or as {key}=")
            at = args.pop(key)
    if typed_name == "SetRelP":
        args.setdefault("relative", "True")
    if "judged_only" in args:
        if "judged_only" not in _IR_PARAMS.get(name, ()):
            raise MeasureError(f"{spec}: {typed_name} takes no judged_only= (ir_measures refuses it too)")
        if args.pop("judged_only").strip("'\"").lower() in ("true", "1"):
            raise MeasureError(f"{spec}: judged_only is a setting of the whole evaluation in irw, as trec_eval's -J: "
                               f"write {_without_arg(spec, 'judged_only')} with --judged-only (irw eval, compare, "
                               "report), -J (irw trec-eval) or judged_only=True (Python)")
    family_name, needs_at = _IR_NAMES[name]
    if name == "SetP" and args.pop("relative", "False").strip("'\"").lower() in ("true", "1"):
        family_name = "set_relative_P"
    if name == "NumRet" and "rel" in args:  # ir_measures: NumRet(rel=k) counts the retrieved with grade >= k
        family_name = "num_rel_ret"
    level = None
    if "rel" in args:
        level = _rel_level(args.pop("rel"), spec)
    if at is not None and name in _AT_FAMILY:
        family_name = _AT_FAMILY[name]
        if name == "AP" and args.pop("denom", "R") == "min":
            family_name = "map_cut_min"
    if name in ("nDCG", "NDCG") and "dcg" in args:
        dcg = args.pop("dcg").strip("'\"")
        if dcg == "exp-log2":  # gdeval's nDCG; nDCG(dcg='exp-log2')@k, as ir_measures prints it, too
            if at is None:
                raise MeasureError(f"{spec}: nDCG(dcg=exp-log2) needs a cutoff, as gdeval does, e.g. "
                                   "nDCG(dcg=exp-log2)@20")
            family_name = "gdeval_ndcg"
        elif dcg != "log2":
            raise MeasureError(f"{spec}: dcg= takes log2 (trec_eval's nDCG, the default) or exp-log2 (gdeval's)")
    if family_name.startswith("gdeval_") and level is not None:
        raise MeasureError(f"{spec}: gdeval's measures take no rel=: every grade above 0 counts "
                           "(its gain is 2^grade - 1)")
    if needs_at and at is None and family_name not in ("P", "recall"):
        raise MeasureError(f"{spec}: {name} needs a cutoff, e.g. {name}@10")
    if "ties" in args:
        if family_name not in _TIE_FAMILY or (at is None and family_name in ("P", "recall")):
            raise MeasureError(f"{spec}: ties= is offered for AP, nDCG@k, P@k, RR and R@k")
        family_name = _TIE_FAMILY[family_name]
    family = ALL_FAMILIES[family_name]
    options = _take_options(family, args, spec)
    if family_name == "set_F":  # ir_measures hands beta to trec_eval's set_F as its parameter x
        measure = Measure(family, _number(args.pop("beta", "1"), spec), level)  # checked by _checked_beta
    elif family.kind == CUTOFFS:
        measure = Measure(family, _whole_cutoff(at, spec), level) if at else None
    elif family.kind == LEVELS:
        if _number(at, spec) < 0:
            raise MeasureError(f"{spec}: recall level {at!r} must be at least 0")
        measure = Measure(family, _number(at, spec), level)
    elif at is not None:
        raise MeasureError(f"{spec}: {name} takes no cutoff")
    else:
        measure = Measure(family, family.defaults[0] if family.kind == RAW else None, level)
    if args:
        raise MeasureError(f"{spec}: unknown parameter(s) {', '.join(args)}")
    if measure is None:  # P or R without @k: trec_eval's default cutoffs
        return [Measure(family, k, level) for k in family.defaults]
    return [replace(measure, options=options)]


def tie_variant(measure: Measure, mode: str) -> Measure | None:
    """The tie-aware form of a measure (AP -> AP(ties=min)), or None when it has none."""
    family = _TIE_FAMILY.get(measure.family.trec_name)
    if family is None or measure.options:
        return None
    return Measure(ALL_FAMILIES[family], measure.param, measure.level, (("ties", mode),))


def _take_options(family: Family, args: dict[str, str], spec: str) -> tuple:
    """The family's options read (and removed) from args: those that differ from their default,
    in the family's order; a required one (default None) must be given."""
    taken = []
    for key, default in family.options:
        if key not in args:
            if default is None:
                raise MeasureError(f"{spec}: say which {key}= ({', '.join(TIE_MODES)})")
            continue
        text = args.pop(key).strip("'\"")
        if key == "ties":
            if text not in TIE_MODES:
                raise MeasureError(f"{spec}: ties= takes {', '.join(TIE_MODES)}, not {text!r}")
            taken.append((key, text))
            continue
        value = _number(text, spec)
        if not 0.0 <= value <= 1.0:
            raise MeasureError(f"{spec}: {key} must be between 0 and 1")
        if value != default:
            taken.append((key, value))
    return tuple(taken)


def parse(spec: str, builtin_only: bool = False, compat: int = 9) -> list[Measure]:
    """One user-typed measure (either syntax) -> the measures it names.

    An unknown name raises MeasureError with the names the user most likely meant. builtin_only:
    the user measures of the open warehouse (irw measures add) are not looked at. compat: the
    trec_eval version whose all_trec is meant (10.0's adds rbp, rbp_resid and unj)."""
    spec = spec.strip()
    if not spec:
        raise MeasureError("empty measure name")
    if not builtin_only:
        user = _parse_user(spec)
        if user is not None:
            return user
    try:
        return _parse_exact(spec, compat)
    except MeasureError as exc:
        if not str(exc).startswith("unknown measure"):
            raise
        hint = suggestion(spec)
        error = MeasureError(f"unknown measure {spec!r}; " + (f"did you mean {hint}? " if hint else "")
                             + listing_pointer())
        if hint and [m.name for m in _parse_quietly(hint, compat)] == [hint]:
            error.meant = (spec, hint)  # one measure: irw serve's error page links the page with it
        raise error from None


def _parse_quietly(spec: str, compat: int) -> list:
    try:
        return _parse_exact(spec, compat)
    except MeasureError:
        return []


def listing_pointer() -> str:
    """The commands that list the measures a name may mean: `irw measures` lists the built-in ones
    only, so where the open warehouse has measures of its own (irw measures add), `irw measures list`
    (which lists those) is named too."""
    if not USER_FAMILIES:
        return "`irw measures` lists them"
    return "`irw measures` lists the built-in measures, `irw measures list` this warehouse's own"


_TREC_NAME_AT_LEVEL = re.compile(r"(?P<name>[A-Za-z0-9_.]+)\(rel=(?P<level>-?[0-9]+)\)")


def _parse_exact(spec: str, compat: int = 9) -> list[Measure]:
    return _checked_beta(_refuse_level_unused(_refuse_unsaid_options(_parse_exact_names(spec, compat), spec), spec),
                         spec)


def _checked_beta(measures: list[Measure], spec: str) -> list[Measure]:
    """SetF's beta checked in either spelling (SetF(beta=-1), set_F.-1: irw eval stored the latter
    unchecked), the one place irw's names read it; irw trec-eval reads trec_eval's names with
    parse_trec, which keeps trec_eval's arithmetic."""
    return [replace(m, param=_beta(m.param, spec)) if m.family.trec_name == "set_F" else m for m in measures]


def _refuse_level_unused(measures: list[Measure], spec: str) -> list[Measure]:
    """A rel= on a measure whose value no relevance level changes is refused: it would label the
    score with a level that did not apply."""
    for m in measures:
        kind = _NO_LEVEL.get(m.family.trec_name)
        if m.level is None or kind is None:
            continue
        plain = replace(m, level=None).name
        if kind == "gdeval":
            raise MeasureError(f"{spec}: gdeval's measures take no rel=: every grade above 0 counts "
                               "(its gain is 2^grade - 1)")
        why = {"gain": "the gain measures (nDCG, G, Rndcg, rbp ...) take no rel=, as ir_measures refuses "
                       "nDCG(rel=...): their gains are the grades whatever the relevance level",
               "judged": "Judged and unj take no rel=: they count judged documents whatever their grade",
               "count": "NumQ and NumRet take no rel=: they count queries and retrieved documents "
                        "(NumRet(rel=k), as ir_measures reads it, is NumRelRet(rel=k))",
               "prefs": "the prefs measures take no rel=: their preferences come from the rel_levels of each "
                        "sub-group, and relevant means rel_level > 0, as in trec_eval"}[kind]
        raise MeasureError(f"{spec}: {why}; write {plain}")
    return measures


def _parse_exact_names(spec: str, compat: int = 9) -> list[Measure]:
    if "@" in spec or "(" in spec:
        at_level = _TREC_NAME_AT_LEVEL.fullmatch(spec)
        if at_level and at_level.group("name") not in _IR_NAMES:  # a trec_eval name at a level: gm_bpref(rel=2)
            return [replace(m, level=_rel_level(at_level.group("level"), spec))
                    for m in parse_trec(at_level.group("name"), compat)]
        return parse_ir(spec)
    head = re.match(r"[A-Za-z0-9_]+", spec).group(0) if re.match(r"[A-Za-z0-9_]+", spec) else ""
    if (head in _IR_NAMES or head in _IR_ALIASES or head in _IR_NOT_COMPUTED) and head not in ALL_FAMILIES \
            and "." not in spec:
        return parse_ir(spec)
    return parse_trec(spec, compat)


# What users type for a measure elsewhere (other libraries, papers, habit), lower-cased -> irw's name.
_COMMON_SPELLINGS = {
    "map": "AP", "mean_ap": "AP", "avg_precision": "AP", "average_precision": "AP",
    "mrr": "RR", "reciprocal_rank": "RR", "recip_rank": "RR",
    "recall": "R", "r": "R", "p": "P", "precision": "P", "prec": "P",
    "ndcg_cut": "nDCG", "hits": "Success", "hit": "Success", "hit_rate": "Success", "f": "SetF", "f1": "SetF",
}


def _ir_head_in_any_case() -> dict[str, str]:
    heads = {name.lower(): name for name in _IR_NAMES}
    heads.update({name.lower(): name for name in ALL_FAMILIES if name.lower() not in heads})
    heads.update(_COMMON_SPELLINGS)
    return heads


def builtin_name_in_any_case(name: str) -> str | None:
    """The built-in measure's name (either syntax, ir_measures' aliases and trec_eval's set nicknames
    included) that `name` is in other letters' case (`ap` -> AP, `Ndcg` -> ndcg, `mrr` -> MRR,
    `Set` -> set), or None."""
    lowered = name.lower()
    known_names = (*_IR_NAMES, *_IR_ALIASES, *ALL_FAMILIES, *NICKNAMES)
    return next((known for known in known_names if known.lower() == lowered), None)


# a name and the cutoff written after it: P_10, P10 (head P, cutoff 10), nDCG_cut_10, RECALL_100
_HEAD_AND_CUTOFF = re.compile(r"([A-Za-z][A-Za-z0-9_]*?)(?:_?([0-9]+))?")


def builtin_spelled_otherwise(name: str) -> str | None:
    """The built-in measure(s) `name` is when its letters are read in any case and its cutoff
    written as irw and trec_eval write one (`p_10`, `P10` -> P@10, `MAP_CUT_10` -> AP@10,
    `nDCG_cut_10` -> nDCG@10, `RECALL_100` -> R@100, `mrr10` -> RR@10): the names `-m` answers with
    "did you mean" that built-in, or None. Other libraries' words that irw only suggests for a
    built-in (`prec` for P, `hits` for Success) and names merely close to one (`myap`, `rbpg`) are
    not built-in names, so they are not matched here."""
    match = _HEAD_AND_CUTOFF.fullmatch(name)
    if not match:
        return None
    head, cutoff = match.group(1).lower(), match.group(2)
    heads = dict.fromkeys(known for known in (*_IR_NAMES, *_IR_ALIASES, *ALL_FAMILIES, *NICKNAMES)
                          if known.lower() == head)
    spellings = heads if cutoff is None else [f"{known}{joint}{cutoff}" for known in heads for joint in ("_", "@")]
    for spelling in spellings:
        try:
            found = _parse_exact(spelling)
        except MeasureError:
            continue
        names = [m.name for m in found]
        return ", ".join(names) if len(names) <= 3 else f"{spelling} ({names[0]} ... {names[-1]})"
    return None


def suggestion(spec: str) -> str | None:
    """The canonical name(s) a mistyped measure most likely means (`ndcg@10` -> nDCG@10,
    `map@100` -> AP@100, `recall@1000` -> R@1000, `mrr` -> RR, `NDCG_cut_10` -> nDCG@10,
    `ndgc@10` -> nDCG@10), or None."""
    import difflib

    # a measure of the warehouse's own in other letter case (P_G2 -> p_g2), before P10 -> P@10 below
    # reads its last digits as a cutoff (it offered p_g2(k=2))
    own = {name.lower(): name for name in USER_FAMILIES}.get(spec.lower())
    if own is not None:
        return own
    squeezed = re.sub(r"\s+", "", spec)  # P@ 10, P @10
    if squeezed != spec and squeezed:
        try:
            return ", ".join(m.name for m in _parse_exact(squeezed))
        except MeasureError:
            return suggestion(squeezed)
    glued = re.fullmatch(r"([A-Za-z][A-Za-z_]*?)_?([0-9]+)", spec)  # P10, ndcg10, R1000: P@10 (trec_eval's P_10)
    if glued and not spec.endswith(f"_{glued.group(2)}"):
        split = f"{glued.group(1)}@{glued.group(2)}"
        try:
            return ", ".join(m.name for m in _parse_exact(split))
        except MeasureError:
            return suggestion(split)
    builtin_heads = _ir_head_in_any_case()
    listed = re.fullmatch(r"([A-Za-z_]+)@([0-9]+(?:,[0-9]+)+)", spec)  # nDCG@5,10: trec_eval's list, ndcg_cut.5,10
    if listed:
        name = builtin_heads.get(listed.group(1).lower(), listed.group(1))
        candidate = f"{_AT_FAMILY.get(name) or _IR_NAMES.get(name, (name,))[0]}.{listed.group(2)}"
        try:
            return f"{candidate} ({', '.join(m.name for m in _parse_exact(candidate))})"
        except MeasureError:
            pass
    # a printed trec_eval name with its level's point typed as _: iprec_at_recall_0_10 means
    # iprec_at_recall_0.10 (IPrec@0.1), not IPrec@10, which the rest below would offer
    candidates = [re.sub(r"_([0-9]+)_([0-9]+)$", r"_\1.\2", spec)]
    head = re.match(r"[A-Za-z][A-Za-z0-9_]*?(?=(_[0-9.]+)?([@(.]|$))", spec)
    if head:
        rest = spec[head.end():]
        typed = head.group(0).lower()
        # the warehouse's own measures (irw measures add) first: `firstrel` -> FirstRel
        for heads in ({name.lower(): name for name in USER_FAMILIES}, builtin_heads):
            known = heads.get(typed)
            if known is None:
                close = difflib.get_close_matches(typed, list(heads), n=1, cutoff=0.7)
                known = heads[close[0]] if close else None
            if known:
                candidates.append(known + rest)
                if rest.startswith("_"):  # a printed trec_eval name: NDCG_cut_10 -> ndcg_cut_10
                    candidates.append(known + "@" + rest[1:])
    candidates += [spec.lower(), spec.replace("-", "_")]
    for candidate in candidates:
        if candidate == spec:
            continue
        try:
            names = [m.name for m in _parse_user(candidate) or _parse_exact(candidate)]
        except MeasureError:
            continue
        return ", ".join(names) if len(names) <= 3 else f"{candidate} ({names[0]} ... {names[-1]})"
    return None


# -- user measures (warehouse/evaluation/user_measures.py) -------------------------------------------------
# The measures added to the warehouse open in this process, by name: set when a warehouse opens
# and when a measure is added or removed.
USER_SQL_PREFIX = "user:"
USER_FAMILIES: dict[str, Family] = {}


AGGREGATE_WORDS = {SUM: "a sum over queries", GEO: "a geometric mean over queries", COUNT: "a count of queries"}


def not_means(measures: Iterable[Measure]) -> str:
    """What the measures summarized otherwise than by a mean over queries are (sql/eval/summary_rule.sql),
    said after "values are means over queries": " (GMAP: a geometric mean over queries; NumRelRet: a
    sum over queries)", or "" when every one is a mean."""
    others = [f"{m.name}: {AGGREGATE_WORDS.get(m.aggregate, m.aggregate)}" for m in measures if not m.is_mean]
    return f" ({'; '.join(others)})" if others else ""


def user_family(name: str, parameters: tuple, aggregate: str, description: str, definition_hash: str) -> Family:
    """A user measure as a family: its declared parameters are its options (name=default), written
    as NAME(k=5) when they differ from the default; NAME@5 sets the first one."""
    return Family(name, USER_SQL_PREFIX + name, NONE, (), aggregate, description, lambda _p: name,
                  reference="user measure (irw measures add)", options=tuple(parameters),
                  definition_hash=definition_hash)


def set_user_families(families: dict[str, Family]) -> None:
    USER_FAMILIES.clear()
    USER_FAMILIES.update(families)


def is_user(measure: Measure) -> bool:
    return (measure.family.sql or "").startswith(USER_SQL_PREFIX)


def _parse_user(spec: str) -> list[Measure] | None:
    """A user measure's name with its parameters (NAME, NAME(k=5,rel=2), NAME@5), or None when
    the name is not one of the warehouse's user measures."""
    match = _IR_SYNTAX.match(spec)
    if not match or match.group("name") not in USER_FAMILIES:
        return None
    family = USER_FAMILIES[match.group("name")]
    args = _parse_args(match.group("args2"), spec, _parse_args(match.group("args"), spec))
    level = _rel_level(args.pop("rel"), spec) if "rel" in args else None
    declared = dict(family.options)
    if match.group("at") is not None:
        if not declared:
            raise MeasureError(f"{spec}: {family.trec_name} takes no parameters")
        first = family.options[0][0]
        if first in args:
            raise MeasureError(f"{spec}: give {first} once, as @ or as {first}=")
        args[first] = match.group("at")
    unknown = [key for key in args if key not in declared]
    if unknown:
        known = ", ".join(declared) or "none"
        raise MeasureError(f"{spec}: {family.trec_name} has no parameter {', '.join(unknown)} (its parameters: {known})")
    options = []
    for key, default in family.options:
        if key in args:
            value = _number(args[key].strip("'\""), spec)
            if value != default:
                options.append((key, value))
    return [Measure(family, None, level, tuple(options))]


def parse_all(specs: list[str], compat: int = 9) -> list[Measure]:
    seen: dict[str, Measure] = {}
    for spec in specs:
        for measure in parse(spec, compat=compat):
            seen.setdefault(measure.name, measure)
    return list(seen.values())


OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P")


def trec_measure_set(which: str, compat: int = 9) -> list[Measure]:
    names = OFFICIAL if which == "official" else [n for n, f in FAMILIES.items() if compat >= 10 or not f.v10_only]
    return [m for n in names for m in default_measures(FAMILIES[n])]


def _name_pattern(family: Family) -> str:
    """How a family's measures are written: P@k, IPrec@x, nDCG, utility, AP(ties=expected|min|max) ..."""
    required = [key for key, default in family.options if default is None]
    if required:
        head, at, cutoff = (family.ir_name("k") if family.kind == CUTOFFS else family.ir_name(None)).partition("@")
        return f"{head}({required[0]}={'|'.join(TIE_MODES)}){at}{cutoff}"
    if family.kind == CUTOFFS and family.ir_name:
        return family.ir_name("k")
    if family.kind == CUTOFFS:
        return f"{family.trec_name}_k"
    if family.trec_name == "iprec_at_recall":
        return "IPrec@x"
    if family.trec_name == "set_F":
        return "SetF(beta=b)"
    if family.kind == LEVELS:
        return f"{family.trec_name}_x"
    example = Measure(family, family.defaults[0]) if family.kind == RAW else Measure(family)
    return example.name


def reference(family: Family) -> str:
    """What a family's values are checked against: its own reference, else trec_eval's version, or
    ir_measures for the extras that came from it."""
    if family.reference:
        return family.reference
    if family.trec_name in FAMILIES:
        return "trec_eval 10.0" if family.v10_only else "trec_eval 9.0.8"
    return "ir_measures"


def measure_table():
    """Every measure family: irw name, trec_eval name, parameters, summary rule, description, reference."""
    from warehouse.formats.table import Table

    rows = []
    for family in ALL_FAMILIES.values():
        if family.trec_name == "runid":
            continue
        params = {NONE: "", CUTOFFS: "k", LEVELS: "x", RAW: "parameter string"}[family.kind]
        defaults = ",".join(str(d) for d in family.defaults if d != "")
        rows.append((_name_pattern(family), family.trec_name, params, defaults, family.aggregate,
                     "10.0 only" if family.v10_only else "", family.description, reference(family)))
    return Table(["irw name", "trec_eval", "parameter", "trec_eval defaults", "summary", "note", "description",
                  "reference"], rows)


def measure_table_markdown() -> str:
    """The measure table of docs/measures.md, generated from this registry (scripts/docs.py writes
    it, tests/test_readme.py checks it)."""
    # the file computing each (a newcomer asked which SQL computes AP); relstring, text and no score,
    # is printed by the trec_eval drop-in from its own file
    sql_of = {family.trec_name: f"`sql/{family.sql or 'measures/relstring.sql'}`" for family in ALL_FAMILIES.values()}
    lines = ["| irw name | trec_eval name | parameter (trec_eval default) | summary | what it is | reference | computed by |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, trec, param, defaults, aggregate, note, description, ref in measure_table().rows:
        parameter = f"{param} ({defaults})" if param and defaults else param
        if note:
            description = f"{description} ({note})"
        name = name.replace("|", "\\|")  # a pipe inside a cell, even in code, splits it
        lines.append(f"| `{name}` | `{trec}` | {parameter} | {aggregate} | {description} | {ref} | {sql_of[trec]} |")
    return "\n".join(lines) + "\n"


def at_level(measures: Iterable[Measure], level: int) -> list[Measure]:
    """The measures of an evaluation at relevance level `level`, each once and by one name: a
    measure whose own rel= is the evaluation's level is the evaluation's measure (AP(rel=1) at
    level 1 is AP, one score, one column, one comparison); one of another level keeps it."""
    out: dict[str, Measure] = {}
    for m in measures:
        out.setdefault((m := replace(m, level=None) if m.level == level else m).name, m)
    return list(out.values())


def stored_name(m: Measure) -> str:
    """Scores are stored under the name without rel=: the level is part of the evaluation's settings."""
    return replace(m, level=None).name


# What the reports read (warehouse/reports/scope.py), and an evaluation on Spark computes for them
# when its runs' rows stay on the cluster (warehouse/engines/spark_store.py): their measures when
# none are named, and beside the measures they show, judged coverage and the 11-point
# precision-recall curve.
DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10")
COVERAGE_MEASURE = "Judged@10"
PR_RECALLS = tuple(i / 10 for i in range(11))


def pr_measures() -> list[str]:
    return [f"IPrec@{x:.1f}" for x in PR_RECALLS]
