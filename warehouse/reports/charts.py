"""Chart geometry for the HTML reports: Python computes every coordinate, Jinja macros draw SVG.

Nothing here knows about runs or measures; warehouse/reports/ hands in numbers and labels and gets back
dataclasses whose fields are ready to print (coordinates as short decimal strings, tick labels
formatted through warehouse.formats.formatting). The same input gives the same strings, so reports are
byte-stable. Series are told apart by dash pattern and marker shape as well as colour, so a chart
printed in grey still reads.
"""
from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Sequence

from warehouse.formats.formatting import format_number

WIDTH = 720
# The width of a chart's second drawing, for a phone (history, difference bars, precision-recall,
# rank strips): a 390 px screen less the page's margins shows it at about its own size, so its text
# stays 11-12 px, where the 720-wide drawing would shrink to ~5.6 px or scroll sideways (the page
# shows one drawing or the other by its width: style.css).
COMPACT_WIDTH = 360
HEIGHT = 300
MARGIN_LEFT = 64
MARGIN_RIGHT = 20
MARGIN_TOP = 16
MARGIN_BOTTOM = 48
SERIES_STYLES = 6  # CSS classes series-0 ... series-5 (colour + dash); marker shapes cycle with them
MARKER_SHAPES = ("circle", "square", "triangle", "diamond", "cross", "x")


# Average glyph widths (in em) of the fonts the charts ask for, DejaVu Sans being the widest
# common one: enough to keep a label inside the chart without measuring text.
GLYPH_EM = 0.62
BOLD_GLYPH_EM = 0.7


def fit(text: str, width: float, font_px: float = 12.0, bold: bool = False) -> str:
    """text cut to about width pixels at font_px, ending in an ellipsis when cut (long run names)."""
    room = int(width / (font_px * (BOLD_GLYPH_EM if bold else GLYPH_EM)))
    return text if len(text) <= room else text[:max(room - 1, 1)] + "\u2026"


def plotted(value: float | None) -> bool:
    """Whether a value has a place on a chart: a number, not None, NaN or infinite (trec_eval's nan
    where a per-query value is undefined). The others are left off; the page's table lists them."""
    return value is not None and math.isfinite(value)


def c(value: float) -> str:
    """A coordinate as printed in SVG: one decimal, no negative zero."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


# -- scales and ticks --------------------------------------------------------------------------
@dataclass(frozen=True)
class Scale:
    d0: float
    d1: float
    r0: float
    r1: float
    log: bool = False

    def __call__(self, value: float) -> float:
        if self.log:
            a, b, v = math.log10(self.d0), math.log10(self.d1), math.log10(max(value, self.d0))
        else:
            a, b, v = self.d0, self.d1, value
        if b == a:
            return (self.r0 + self.r1) / 2
        return self.r0 + (v - a) / (b - a) * (self.r1 - self.r0)


@dataclass(frozen=True)
class Tick:
    pos: str
    label: str


def _decimals(step: float) -> int:
    for decimals in range(0, 10):
        scaled = step * 10 ** decimals
        if abs(scaled - round(scaled)) < 1e-6:
            return decimals
    return 10


def nice_step(span: float, count: int = 5) -> float:
    if span <= 0:
        return 1.0
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power * (1 + 1e-9):
            return factor * power
    return 10 * power


def nice_ticks(lo: float, hi: float, count: int = 5) -> tuple[float, float, list[float]]:
    """A domain widened to whole steps and the tick values in it."""
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        hi = lo + 1.0
    step = nice_step(hi - lo, count)
    start = math.floor(lo / step + 1e-9) * step
    end = math.ceil(hi / step - 1e-9) * step
    values = []
    k = 0
    while start + k * step <= end + step * 1e-9:
        value = start + k * step
        values.append(0.0 if abs(value) < step * 1e-9 else value)
        k += 1
    return start, end, values


def tick_label(value: float, step: float) -> str:
    return format_number(value, _decimals(step))


# -- shared frame ------------------------------------------------------------------------------
@dataclass
class Frame:
    """The plot area, axes, grid and labels every chart has."""

    width: int
    height: int
    left: str
    top: str
    right: str
    bottom: str
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    x_label: str
    y_label: str
    title: str
    y_tick_x: str               # where y tick labels end (text-anchor end)
    x_tick_y: str               # baseline of x tick labels
    x_label_x: str
    x_label_y: str
    y_label_x: str
    y_label_y: str
    zero_y: str | None = None   # a stronger rule at y = 0 (difference charts)
    x_label_full: str = ""      # the whole axis label when x_label had to be cut to fit, else ""
    y_label_full: str = ""


def _frame(title: str, x_label: str, y_label: str, x_ticks: list[Tick], y_ticks: list[Tick],
           width: int = WIDTH, height: int = HEIGHT, left: int = MARGIN_LEFT, bottom_margin: int = MARGIN_BOTTOM,
           zero_y: float | None = None) -> Frame:
    right = width - MARGIN_RIGHT
    bottom = height - bottom_margin
    x_fit = fit(x_label, right - left, bold=True)
    y_fit = fit(y_label, bottom - MARGIN_TOP, bold=True)
    return Frame(width, height, c(left), c(MARGIN_TOP), c(right), c(bottom), x_ticks, y_ticks, x_fit, y_fit,
                 title, y_tick_x=c(left - 6), x_tick_y=c(bottom + 16), x_label_x=c((left + right) / 2),
                 x_label_y=c(height - 8), y_label_x="14", y_label_y=c((MARGIN_TOP + bottom) / 2),
                 zero_y=None if zero_y is None else c(zero_y), x_label_full=x_label if x_fit != x_label else "",
                 y_label_full=y_label if y_fit != y_label else "")


def _plot_box(width: int = WIDTH, height: int = HEIGHT, left: int = MARGIN_LEFT,
              bottom_margin: int = MARGIN_BOTTOM) -> tuple[float, float, float, float]:
    return left, MARGIN_TOP, width - MARGIN_RIGHT, height - bottom_margin


# -- markers -----------------------------------------------------------------------------------
def marker_path(shape: str, x: float, y: float, r: float = 4.0) -> str:
    """An SVG path for a marker centred at (x, y)."""
    if shape == "circle":
        return f"M{c(x - r)},{c(y)}a{c(r)},{c(r)} 0 1,0 {c(2 * r)},0a{c(r)},{c(r)} 0 1,0 {c(-2 * r)},0Z"
    if shape == "square":
        s = r * 0.9
        return f"M{c(x - s)},{c(y - s)}h{c(2 * s)}v{c(2 * s)}h{c(-2 * s)}Z"
    if shape == "triangle":
        return f"M{c(x)},{c(y - r * 1.15)}L{c(x + r * 1.1)},{c(y + r * 0.85)}L{c(x - r * 1.1)},{c(y + r * 0.85)}Z"
    if shape == "diamond":
        return f"M{c(x)},{c(y - r * 1.2)}L{c(x + r)},{c(y)}L{c(x)},{c(y + r * 1.2)}L{c(x - r)},{c(y)}Z"
    if shape == "cross":
        return (f"M{c(x - r)},{c(y)}H{c(x + r)}M{c(x)},{c(y - r)}V{c(y + r)}")
    return f"M{c(x - r)},{c(y - r)}L{c(x + r)},{c(y + r)}M{c(x - r)},{c(y + r)}L{c(x + r)},{c(y - r)}"


def series_class(index: int) -> str:
    return f"series-{index % SERIES_STYLES}"


def series_shape(index: int) -> str:
    return MARKER_SHAPES[index % len(MARKER_SHAPES)]


@dataclass(frozen=True)
class LegendItem:
    name: str
    css: str
    marker: str     # path in a 28 x 12 swatch
    line: bool = True


def legend_item(name: str, index: int, line: bool = True) -> LegendItem:
    return LegendItem(name, series_class(index), marker_path(series_shape(index), 14, 6, 3.5), line)


# -- difference bars ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Bar:
    x: str
    y: str
    w: str
    h: str
    css: str
    title: str


@dataclass
class BarChart:
    frame: Frame
    bars: list[Bar]
    summary: str          # one line a reader sees without the chart: wins/ties/losses
    compact: "BarChart | None" = None  # the same chart COMPACT_WIDTH wide, for a phone


def difference_bars(items: Sequence[tuple[str, float]], *, title: str, y_label: str, x_label: str,
                    summary: str = "", width: int = WIDTH) -> BarChart:
    """One bar per item (label, difference), sorted by difference, largest gain first; drawn width
    wide, and again COMPACT_WIDTH wide (its compact).

    Gains are drawn dark and solid, losses light with a dark outline, ties as a thin rule on the
    zero line, so the chart reads in grey print.
    """
    ordered = sorted([item for item in items if plotted(item[1])], key=lambda item: (-item[1], item[0]))
    left, top, right, bottom = _plot_box(width)
    values = [v for _, v in ordered] or [0.0]
    lo, hi, ticks = nice_ticks(min(values + [0.0]), max(values + [0.0]), 6)
    y = Scale(lo, hi, bottom, top)
    zero = y(0.0)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    band = (right - left) / max(1, len(ordered))
    gap = band * 0.15 if band >= 4 else 0.0
    bars = []
    for index, (label, value) in enumerate(ordered):
        x0 = left + index * band + gap / 2
        if value > 0:
            y0, height, css = y(value), zero - y(value), "gain"
        elif value < 0:
            y0, height, css = zero, y(value) - zero, "loss"
        else:
            y0, height, css = zero - 0.75, 1.5, "tie"
        bars.append(Bar(c(x0), c(y0), c(max(band - gap, 0.3)), c(max(height, 1.0 if css != "tie" else 1.5)), css,
                        f"{label}: {'+' if value > 0 else ''}{format_number(value)}"))
    frame = _frame(title, x_label, y_label, [], [Tick(c(y(t)), tick_label(t, step)) for t in ticks], width=width,
                   zero_y=zero)
    compact = None if width == COMPACT_WIDTH else difference_bars(
        items, title=title, y_label=y_label, x_label=x_label, summary=summary, width=COMPACT_WIDTH)
    return BarChart(frame, bars, summary, compact)


# -- lines (precision-recall) ------------------------------------------------------------------
@dataclass(frozen=True)
class Marker:
    d: str
    title: str


@dataclass
class LineSeries:
    name: str
    css: str
    path: str
    markers: list[Marker]


@dataclass
class LineChart:
    frame: Frame
    series: list[LineSeries]
    legend: list[LegendItem]
    compact: "LineChart | None" = None  # the same chart COMPACT_WIDTH wide, for a phone


def line_chart(series: Sequence[tuple[str, Sequence[tuple[float, float]]]], *, title: str, x_label: str,
               y_label: str, x_domain: tuple[float, float] = (0.0, 1.0),
               y_domain: tuple[float, float] = (0.0, 1.0), point_title: str = "{name}: {x} {y}",
               width: int = WIDTH) -> LineChart:
    """Lines with markers at every point; series k gets style k (colour, dash, marker shape). Drawn
    width wide, and again COMPACT_WIDTH wide (its compact)."""
    left, top, right, bottom = _plot_box(width)
    x_lo, x_hi, x_values = nice_ticks(*x_domain, 10)
    y_lo, y_hi, y_values = nice_ticks(*y_domain, 5)
    x = Scale(x_lo, x_hi, left, right)
    y = Scale(y_lo, y_hi, bottom, top)
    x_step = x_values[1] - x_values[0] if len(x_values) > 1 else 1.0
    y_step = y_values[1] - y_values[0] if len(y_values) > 1 else 1.0
    drawn, legend = [], []
    for index, (name, points) in enumerate(series):
        shape = series_shape(index)
        points = [(px, py) for px, py in points if plotted(px) and plotted(py)]
        path = "".join(f"{'M' if i == 0 else 'L'}{c(x(px))},{c(y(py))}" for i, (px, py) in enumerate(points))
        markers = [Marker(marker_path(shape, x(px), y(py)),
                          point_title.format(name=name, x=tick_label(px, x_step), y=format_number(py)))
                   for px, py in points]
        drawn.append(LineSeries(name, series_class(index), path, markers))
        legend.append(legend_item(name, index))
    frame = _frame(title, x_label, y_label, [Tick(c(x(v)), tick_label(v, x_step)) for v in x_values],
                   [Tick(c(y(v)), tick_label(v, y_step)) for v in y_values], width=width)
    compact = None if width == COMPACT_WIDTH else line_chart(
        series, title=title, x_label=x_label, y_label=y_label, x_domain=x_domain, y_domain=y_domain,
        point_title=point_title, width=COMPACT_WIDTH)
    return LineChart(frame, drawn, legend, compact)


# -- scatter (per-query values of two runs) ----------------------------------------------------
@dataclass(frozen=True)
class Point:
    d: str
    css: str
    title: str


@dataclass
class ScatterChart:
    frame: Frame
    points: list[Point]
    diagonal: tuple[str, str, str, str]
    summary: str


def scatter(points: Sequence[tuple[str, float, float]], *, title: str, x_label: str, y_label: str,
            summary: str = "", size: int = 340) -> ScatterChart:
    """Points (label, x, y) over the square [0, max]; above the diagonal y wins (filled), below it
    loses (hollow), on it ties (a small cross). A point's tooltip names each value by its axis,
    y's first as the title names its run first ("y against x")."""
    points = [p for p in points if plotted(p[1]) and plotted(p[2])]
    top_value = max([1e-9] + [max(px, py) for _, px, py in points])
    lo, hi, values = nice_ticks(0.0, top_value, 5)
    left, top, right, bottom = 56, MARGIN_TOP, size - MARGIN_RIGHT, size - MARGIN_BOTTOM
    x = Scale(lo, hi, left, right)
    y = Scale(lo, hi, bottom, top)
    step = values[1] - values[0] if len(values) > 1 else 1.0
    drawn = []
    for label, px, py in sorted(points, key=lambda p: (p[0])):
        if py > px:
            css, shape = "pt-win", "circle"
        elif py < px:
            css, shape = "pt-loss", "circle"
        else:
            css, shape = "pt-tie", "cross"
        drawn.append(Point(marker_path(shape, x(px), y(py), 3.2), css,
                           f"{label}: {y_label} {format_number(py)}, {x_label} {format_number(px)}"))
    frame = _frame(title, x_label, y_label, [Tick(c(x(v)), tick_label(v, step)) for v in values],
                   [Tick(c(y(v)), tick_label(v, step)) for v in values], width=size, height=size, left=56)
    diagonal = (c(x(lo)), c(y(lo)), c(x(hi)), c(y(hi)))
    return ScatterChart(frame, drawn, diagonal, summary)


# -- rank strip (where the relevant documents of one query are) --------------------------------
@dataclass(frozen=True)
class RankMark:
    x: str
    y1: str
    y2: str
    css: str
    title: str


@dataclass
class StripRow:
    label: str             # cut to fit its room; full_label is the whole name
    label_y: str
    base_y: str
    marks: list[RankMark]
    missing: str           # "4 not retrieved" text, or ""
    full_label: str = ""
    missing_y: str = ""


@dataclass
class RankStrip:
    frame: Frame
    rows: list[StripRow]
    missing_x: str
    axis_left: str
    axis_right: str
    label_x: str = ""
    label_anchor: str = "end"    # the run's name: "end" left of its strip, "start" above it
    missing_anchor: str = "start"
    compact: "RankStrip | None" = None  # the same chart COMPACT_WIDTH wide, for a phone


def rank_strip(rows: Sequence[tuple[str, Sequence[tuple[str, int, int | None]], int]], *, title: str,
               width: int = WIDTH) -> RankStrip:
    """One row per run: (label, [(doc, grade, rank or None)], depth). Ranks on a log axis; a tick's
    height grows with the grade; documents not retrieved are counted at the right. Drawn width wide,
    the run's name left of its strip and the count right of it, and again COMPACT_WIDTH wide (its
    compact), where both go on a line above the strip, which then has the whole width."""
    compact = width == COMPACT_WIDTH
    # a grade's tick is up to 38 high: a line of text above it needs the taller row
    row_height = 70 if compact else 54
    height = MARGIN_TOP + row_height * max(1, len(rows)) + 40
    left, right = (24, width - 16) if compact else (130, width - 120)
    depth = max([10] + [d for _, _, d in rows])
    top_rank = 10 ** math.ceil(math.log10(depth)) if depth > 1 else 10
    x = Scale(1, top_rank, left, right, log=True)
    strips = []
    for index, (label, docs, _depth) in enumerate(rows):
        base = MARGIN_TOP + row_height * (index + 1) - 10
        marks = []
        missing = 0
        for doc, grade, rank in docs:
            if rank is None:
                missing += 1
                continue
            level = max(1, min(grade, 4))  # taller and darker with the grade; grades above 4 look like 4
            tall = 10 + 7 * level
            marks.append(RankMark(c(x(rank)), c(base), c(base - tall), f"grade-{level}",
                                  f"{doc} (grade {grade}) at rank {rank}"))
        said = f"{missing} not retrieved" if missing else "all retrieved"
        if compact:
            label_y = c(base - 44)
            room = right - left - len(said) * TICK_LABEL_PX * GLYPH_EM - 12  # the count shares the line
            strips.append(StripRow(fit(label, room), label_y, c(base), marks, said, label, label_y))
        else:
            strips.append(StripRow(fit(label, left - 12), c(base - 20), c(base), marks, said, label, c(base)))
    ticks = []
    value = 1
    while value <= top_rank:
        ticks.append(Tick(c(x(value)), f"{value:,}"))
        value *= 10
    frame = _frame(title, "rank (log scale)", "", ticks, [], width=width, height=height, left=left, bottom_margin=40)
    if compact:
        return RankStrip(frame, strips, c(right), c(left), c(right), c(left), "start", "end")
    return RankStrip(frame, strips, c(right + 12), c(left), c(right), frame.y_tick_x, "end", "start",
                     rank_strip(rows, title=title, width=COMPACT_WIDTH))


# -- history (one system's runs over time) -----------------------------------------------------
HISTORY_HEIGHT = 260
TICK_LABEL_PX = 11  # svg.chart .tick-label's font size
MAX_TIME_TICKS = 6


@dataclass(frozen=True)
class HistoryPoint:
    d: str
    css: str
    title: str
    flag_x: str
    flag_y: str
    flagged: bool


@dataclass
class CompactHistory:
    """A history chart drawn COMPACT_WIDTH wide with the ticks that fit there. A class of dots is
    one path without titles: nothing hovers on a phone, and the wide drawing names every dot."""
    frame: Frame
    dots: list[tuple[str, str]]       # (CSS classes, the path of every dot drawn so)
    flags: list[tuple[str, str]]      # (x, y) of the mark over each flagged dot
    best_path: str


@dataclass
class HistoryChart:
    frame: Frame
    points: list[HistoryPoint]
    best_path: str
    legend: list[LegendItem]
    compact: CompactHistory | None = None


_DAY = 86400
# Tick intervals, finest first: (unit of the label, how many, about how long in seconds). Seconds to
# hours count from midnight UTC; the others fall on the calendar: each day or every other (1st, 3rd,
# ...), Mondays, the 1st and 15th, month starts (every 2nd, 3rd or 6th from January), year starts.
_CLOCK_STEPS = (1, 5, 15, 30, 60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600)
_CALENDAR_STEPS = (("day", 1, _DAY), ("day", 2, 2 * _DAY), ("week", 1, 7 * _DAY), ("half-month", 1, 15.2 * _DAY),
                   ("month", 1, 30.4 * _DAY), ("month", 2, 61 * _DAY), ("month", 3, 91 * _DAY),
                   ("month", 6, 182 * _DAY))
_FIRST_DAY = (dt.date(1, 1, 2) - dt.date(1970, 1, 1)).days * float(_DAY)
_LAST_DAY = (dt.date(9999, 12, 30) - dt.date(1970, 1, 1)).days * float(_DAY)
_TIME_FORMATS = {"second": "%H:%M:%S", "minute": "%m-%d %H:%M", "day": "%Y-%m-%d", "week": "%Y-%m-%d",
                 "half-month": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}


def _epoch(when: dt.datetime) -> float:
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.timestamp()


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=seconds)


def _time_label(seconds: float, unit: str) -> str:
    return _utc(seconds).strftime(_TIME_FORMATS[unit])


def _time_steps(with_time: bool):
    if with_time:
        for step in _CLOCK_STEPS:
            yield ("second" if step < 60 else "minute"), step, step
    yield from _CALENDAR_STEPS
    decade = 1
    while True:
        for years in (decade, 2 * decade, 5 * decade):
            yield "year", years, years * 365.25 * _DAY
        decade *= 10


def _tick_times(unit: str, every: int, lo: float, hi: float) -> list[float]:
    """The times from lo to hi (seconds) where a tick of this interval falls."""
    if unit in ("second", "minute"):
        first = math.ceil(lo / every)
        return [k * every for k in range(first, math.floor(hi / every) + 1)]
    start, end = _utc(lo).date(), _utc(hi).date()
    if unit == "year":
        days = [dt.date(year, 1, 1) for year in range(start.year, end.year + 1) if year % every == 0]
    elif unit == "month":
        months = range(start.year * 12 + start.month - 1, end.year * 12 + end.month)
        days = [dt.date(m // 12, m % 12 + 1, 1) for m in months if (m % 12) % every == 0]
    else:
        keep = {"day": lambda d: (d.day - 1) % every == 0, "week": lambda d: d.weekday() == 0,
                "half-month": lambda d: d.day in (1, 15)}[unit]
        days = [d for d in (start + dt.timedelta(days=k) for k in range((end - start).days + 1)) if keep(d)]
    epoch = dt.date(1970, 1, 1)
    return [t for t in ((d - epoch).days * float(_DAY) for d in days) if lo <= t <= hi]


def _time_ticks(lo: float, hi: float, x: Scale, width: int, with_time: bool) -> list[Tick]:
    """Ticks from lo to hi at calendar boundaries: those of the finest interval whose labels are
    apart by a gap at least and inside the chart (at most MAX_TIME_TICKS); none finer than a day
    without with_time, so that runs dated by day show no 00:00."""
    lo, hi = max(lo, _FIRST_DAY), min(hi, _LAST_DAY)  # the padding of a date near year 1 or 9999
    for unit, every, length in _time_steps(with_time):
        if (hi - lo) / length > MAX_TIME_TICKS + 1:  # too many of them: not even listed
            continue
        label_px = len(_time_label(lo, unit)) * GLYPH_EM * TICK_LABEL_PX
        times = [t for t in _tick_times(unit, every, lo, hi)
                 if x(t) - label_px / 2 >= 0 and x(t) + label_px / 2 <= width]
        apart = all(x(b) - x(a) >= label_px + 12 for a, b in zip(times, times[1:]))
        if 1 <= len(times) <= MAX_TIME_TICKS and apart:
            return [Tick(c(x(t)), _time_label(t, unit)) for t in times]
        if not times and length > 2 * (hi - lo):  # coarser intervals have none either
            return []
    return []


def _history_drawing(points: Sequence[tuple[dt.datetime, float, str, bool]], times: list[float],
                     styles: list[tuple[str, str]], t0: float, t1: float, y: Scale, width: int,
                     with_time: bool) -> tuple[list[Tick], list[HistoryPoint], str]:
    """The x ticks, dots and best-so-far path of a history chart drawn width units wide."""
    left, _, right, _ = _plot_box(width=width, height=HISTORY_HEIGHT)
    if t1 - t0 >= 1:  # under a second apart (files copied together) is one moment on a time axis
        # 5% of the span on either side, and at least room for a date under the first and last run
        inset = max((right - left) / 22, 20.0)
        x = Scale(t0, t1, left + inset, right - inset)
        per_px = (t1 - t0) / (right - left - 2 * inset)
        x_ticks = _time_ticks(t0 - inset * per_px, t1 + inset * per_px, x, width, with_time)
    else:
        x = Scale(t0, t0, left, right)  # every point at the middle
        x_ticks = [Tick(c(x(t0)), _time_label(t0, "day"))] if points else []
    drawn = []
    best_path = ""
    best = None
    for (_, value, label, flagged), t, (css, shape) in zip(points, times, styles):
        px, py = x(t), y(value)
        drawn.append(HistoryPoint(marker_path(shape, px, py, 4.5), css, label, c(px), c(py - 12), flagged))
        if best is None or value > best:
            if best is None:
                best_path = f"M{c(px)},{c(py)}"
            else:
                best_path += f"H{c(px)}V{c(py)}"
            best = value
    if points:
        best_path += f"H{c(x(times[-1]))}"
    return x_ticks, drawn, best_path


def history_chart(points: Sequence[tuple[dt.datetime, float, str, bool]], *, title: str, y_label: str,
                  y_top: float | None = None,
                  time_domain: tuple[dt.datetime, dt.datetime] | None = None,
                  systems: Sequence[str] | None = None, with_time: bool | None = None) -> HistoryChart:
    """Dots (date, value, title, flagged) in time order, and a step line for the best value so far;
    drawn WIDTH wide, and again COMPACT_WIDTH wide (HistoryChart.compact).

    systems: each point's system (the overview of every system): each system's dots get a colour
    and marker of their own, named in the legend, in the order of the systems' names.

    time_domain: the dates the axis spans (default: these points'); the same for every system of a
    report puts their charts on one time axis.

    with_time: whether the runs' dates have a time of day (default: whether a point's is not
    midnight); without, the axis has ticks of a day and longer only."""
    if systems is not None:
        systems = [system for system, (_, value, _, _) in zip(systems, points) if plotted(value)]
    points = [p for p in points if plotted(p[1])]
    times = [_epoch(when) for when, _, _, _ in points]
    if with_time is None:
        with_time = any(t % _DAY for t in times)
    if time_domain is not None:
        t0, t1 = _epoch(time_domain[0]), _epoch(time_domain[1])
    else:
        t0, t1 = (min(times), max(times)) if times else (0.0, 0.0)
    _, top, _, bottom = _plot_box(height=HISTORY_HEIGHT)
    values = [v for _, v, _, _ in points]
    hi = max(values + [y_top if plotted(y_top) else 0.0, 1e-9])
    lo = min(values + [0.0])
    y_lo, y_hi, y_values = nice_ticks(lo, hi, 5)
    y = Scale(y_lo, y_hi, bottom, top)
    y_step = y_values[1] - y_values[0] if len(y_values) > 1 else 1.0
    y_ticks = [Tick(c(y(v)), tick_label(v, y_step)) for v in y_values]
    system_index = {name: i for i, name in enumerate(sorted(set(systems or ())))}
    styles = []
    for index, (_, _, _, flagged) in enumerate(points):
        if systems is not None:  # a flagged run keeps its system's shape: its colour says it is flagged
            series = system_index[systems[index]]
            styles.append(("flagged" if flagged else f"marker {series_class(series)}", series_shape(series)))
        else:
            styles.append(("flagged" if flagged else "run", "circle"))
    x_ticks, drawn, best_path = _history_drawing(points, times, styles, t0, t1, y, WIDTH, with_time)
    frame = _frame(title, "run date", y_label, x_ticks, y_ticks, height=HISTORY_HEIGHT)
    x_ticks, small, small_best = _history_drawing(points, times, styles, t0, t1, y, COMPACT_WIDTH, with_time)
    dots: dict[str, str] = {}
    for p in sorted(small, key=lambda p: p.flagged):  # flagged dots last, on top
        # not class "marker": path.marker is one dot with its title, in the wide drawing
        css = p.css.replace("marker ", "dots ")
        dots[css] = dots.get(css, "") + p.d
    compact = CompactHistory(_frame(title, "run date", y_label, x_ticks, y_ticks, width=COMPACT_WIDTH,
                                    height=HISTORY_HEIGHT),
                             list(dots.items()), [(p.flag_x, p.flag_y) for p in small if p.flagged], small_best)
    if systems is None:
        legend = [LegendItem("run", "run", marker_path("circle", 14, 6, 3.5), line=False)]
    else:
        legend = [legend_item(name, i, line=False) for name, i in system_index.items()]
    legend.append(LegendItem("best so far", "best", "", line=True))
    if any(flagged for _, _, _, flagged in points):
        legend.append(LegendItem("significantly worse than the run before", "flagged",
                                 marker_path("circle", 14, 6, 3.5), line=False))
    return HistoryChart(frame, drawn, best_path, legend, compact)
