"""Jinja rendering: the templates/ environment and the filters that format values."""
from __future__ import annotations

import os
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from warehouse.formats.escaping import shown
from warehouse.resources import templates_dir
from warehouse.reports.display import fmt_count, fmt_date, fmt_datetime, fmt_delta, fmt_p, fmt_value, sort_value


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(loader=FileSystemLoader(str(templates_dir())), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=_finalize,
                      bytecode_cache=compiled_templates_cache())
    env.filters.update(num=fmt_value, delta=fmt_delta, pvalue=fmt_p, count=fmt_count, date=fmt_date,
                       datetime=fmt_datetime, sortval=sort_value,
                       urlquote=lambda text: quote(str(text), safe=""), breakable=breakable, whole=whole)
    return env


def compiled_templates_cache():
    """Where the templates, compiled to Python, are kept between commands: compiling them took
    ~0.1 s of every report command and of irw serve's first pages (0.003 s read back). A folder
    of the user's cache that only the user may write (it holds code irw runs); None, so that the
    templates are compiled in every process, where there is no such folder or it cannot be made."""
    import stat

    from jinja2 import FileSystemBytecodeCache

    from warehouse.resources import user_cache_dir

    root = user_cache_dir()
    if root is None or not hasattr(os, "getuid"):
        return None
    folder = root / "templates"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid()
            or stat.S_IMODE(info.st_mode) & (stat.S_IWGRP | stat.S_IWOTH)):
        return None  # someone else's, or others may write it: its code is not run

    class KeptWhereWritable(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass  # a full disk or a folder gone: compiled again next time

    return KeptWhereWritable(str(folder), "%s.jinja")


_BREAK_CHARS = "_-/:"


def breakable(text: Any) -> Markup:
    """A run or system name that a narrow table cell may break only after _ - / : (an empty
    <wbr> after each), never inside a word: SPLADE_P_P_ENSEMBLE_DISTIL goes over lines as
    SPLADE_P_P_ / ENSEMBLE_ / DISTIL at most. The text is the page's escaping rule applied
    (warehouse/formats/escaping.py, then HTML escaping), so the result is safe markup; its textContent is
    the name itself."""
    # str.replace per character: what re.sub(r"([_\-/:])", r"\1<wbr>") did, in a fraction of the time
    # (escaping writes none of these characters, and <wbr> holds none of them)
    out = str(escape(shown(str(text))))
    for char in _BREAK_CHARS:
        if char in out:
            out = out.replace(char, char + "<wbr>")
    return Markup(out)


# a name this long or shorter stays on one line in a table on a wider screen (style.css, td.run.whole)
WHOLE_NAME_CHARS = 20


def whole(text: Any) -> bool:
    """Whether a run or system name is short enough to be kept whole on a wider screen: a table
    column then breaks the longer names beside it rather than it (BM25.trec_results_covid breaks,
    trec_results_covid does not); on a phone it still breaks after _ - / : as every name does."""
    return len(shown(str(text))) <= WHOLE_NAME_CHARS


def _finalize(value: Any) -> Any:
    """Every text a template prints (names, tags, descriptions) with control and bidi characters
    written as visible escapes (warehouse/formats/escaping.py), before autoescape: a U+202E in a run name
    cannot reverse the rest of its paragraph. Markup irw built (charts) is left as it is."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return shown(value)
    return value


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
