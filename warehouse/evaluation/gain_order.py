"""The order trec_eval's gain measures (ndcg, ndcg_rel, Rndcg, G) leave their table of gains in.

Each of trec_eval's m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c and m_G.c builds, per query, a table of
(grade, gain) entries: the measure's grade=gain pairs in the order given, then every grade from 0
to the query's highest judged grade that no pair names, with the grade as its gain. It sorts the
table with C's qsort and a comparator that returns the difference of two gains converted to int,
so gains less than 1 apart compare equal and the order is the one qsort's algorithm leaves: glibc's
qsort is a top-down merge sort that keeps the left entry of a pair comparing equal. The ideal
ranking walks the table from its end, and a retrieved document's gain is that of the first entry
of its grade: sql/eval/06_gains.sql reads the table this module writes, so that `ndcg.1=0.5,2=1,3=1.5`
or trec_eval's own example `ndcg.1=3.5,2=9.0,4=7.0` give trec_eval's numbers. Gains whole numbers
apart, and the grades as gains, sort as expected.

The table depends only on the pairs and on the query's number of grade levels (its highest judged
grade + 1), so it is written once per gain scheme and level count, not per query.
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence, TypeVar

T = TypeVar("T")

# eval_gain_order's columns (warehouse/engines' load_rows types): one row per entry of the table
# of one scheme for queries with `levels` grade levels, `position` its place after the sort (0
# first); `counted`: the entry trec_eval counts the query's documents of that grade under (the
# first pair naming the grade, else the grade's own entry; none for grades outside 0..levels-1);
# `first_of_grade`: the first entry of its grade after the sort, whose gain a retrieved document
# of that grade gets; `walked`: the gain at the table's end is > 0 (else trec_eval's ideal ranking
# is empty)
GAIN_ORDER_COLUMNS = [("scheme", "varchar"), ("levels", "bigint"), ("position", "integer"),
                      ("grade", "bigint"), ("gain", "double"), ("counted", "boolean"), ("first_of_grade", "boolean"),
                      ("walked", "boolean")]

# Up to this many grade levels a table holds every grade, as trec_eval's does. Above it (a grade of
# 2^31 - 1 would make 2^31 entries, and trec_eval itself allocates a count per grade) it holds the
# pairs and the grades the queries judge: the same order wherever gains compare as numbers do.
FULL_TABLE_LEVELS = 100


def merge_sort(items: Sequence[T], compare: Callable[[T, T], int]) -> list[T]:
    """items in the order glibc's qsort (msort.c) leaves them: halves of n // 2 and the rest,
    each sorted alike, merged taking the left item while compare(left, right) <= 0. With a
    comparator that is not a consistent order this is the only way to the same result."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = merge_sort(items[:half], compare), merge_sort(items[half:], compare)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def _c_int(value: float) -> int:
    """A double converted to C's int: toward zero."""
    return int(value)


def gain_table(pairs: Sequence[tuple[int, float]], levels: int,
               judged: Iterable[int] = ()) -> list[tuple[int, float, bool]]:
    """(grade, gain, counted) entries of one measure's gain table, in trec_eval's sorted order, for
    a query whose highest judged grade is levels - 1 (levels 0: no grade >= 0 judged). judged: the
    grades the queries of that many levels judge, which are all the table holds besides the pairs
    when levels is above FULL_TABLE_LEVELS."""
    entries: list[tuple[int, float, bool]] = []
    named: set[int] = set()
    for grade, gain in pairs:
        entries.append((grade, gain, 0 <= grade < levels and grade not in named))
        named.add(grade)
    grades = range(levels) if levels <= FULL_TABLE_LEVELS else sorted(set(judged))
    entries += [(grade, float(grade), True) for grade in grades if grade not in named]
    return merge_sort(entries, lambda a, b: _c_int(a[1] - b[1]))


def gain_order_rows(schemes: dict[str, Sequence[tuple[int, float]]],
                    judged_by_levels: dict[int, set[int]]) -> list[tuple]:
    """Rows of eval_gain_order (GAIN_ORDER_COLUMNS) for these schemes (scheme -> its grade=gain
    pairs in the order given; '' the grades as gains) and the level counts the queries have, each
    with the grades its queries judge (sql/eval/gain_levels.sql)."""
    rows = []
    for scheme, pairs in schemes.items():
        for levels, judged in sorted(judged_by_levels.items()):
            table = gain_table(pairs, levels, judged)
            walked = bool(table) and table[-1][1] > 0
            seen: set[int] = set()
            for position, (grade, gain, counted) in enumerate(table):
                rows.append((scheme, levels, position, grade, gain, counted, grade not in seen, walked))
                seen.add(grade)
    return rows
