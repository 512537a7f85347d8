"""Jinja rendering: the templates/ environment and the filters that format values."""
from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from warehouse.formats.escaping import shown
from warehouse.resources import templates_dir
from warehouse.reports.display import fmt_count, fmt_date, fmt_datetime, fmt_delta, fmt_p, fmt_value, plural, sort_value


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(loader=FileSystemLoader(str(templates_dir())), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=_finalize,
                      bytecode_cache=compiled_templates_cache())
    env.filters.update(num=fmt_value, delta=fmt_delta, pvalue=fmt_p, count=fmt_count, date=fmt_date,
                       datetime=fmt_datetime, sortval=sort_value, plural=plural,
                       urlquote=lambda text: quote(str(text), safe=""), breakable=breakable, whole=whole,
                       code_spans=code_spans)
    return env


def compiled_templates_cache(templates=None):
    """Where the templates (templates_dir(), or `templates`), compiled to Python, are kept between
    commands: compiling them took ~0.1 s of every report command and of irw serve's first pages
    (0.003 s read back). A folder of the user's cache that only the user may write (it holds code
    irw runs), with a folder per install of irw (Jinja keys a compiled template by its file's path);
    None, so that the templates are compiled in every process, where there is no such folder or it
    cannot be made.

    Why a folder per install: each clone or virtual environment compiles its own set (~2 MB), and
    the sets of installs since removed would stay for ever. When an install first keeps its set,
    the sets of installs whose templates folder is gone are removed."""
    import hashlib

    from jinja2 import FileSystemBytecodeCache

    from warehouse.resources import only_ours, private_cache_folder

    folder = private_cache_folder("templates")
    if folder is None:
        return None  # someone else's, or others may write it: its code is not run
    templates = str(templates or templates_dir())
    install = folder / hashlib.sha256(templates.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    try:
        if not install.exists():
            install.mkdir(mode=0o700)
            (install / _INSTALL_MARK).write_text(templates, encoding="utf-8", errors="surrogateescape")
            _remove_sets_of_removed_installs(folder)
        if not only_ours(install):
            return None
    except OSError:
        return None

    class KeptWhereWritable(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass  # a full disk or a folder gone: compiled again next time

    return KeptWhereWritable(str(install), "%s.jinja")


_INSTALL_MARK = "templates-folder"  # in an install's folder of compiled templates: the path it compiled


def _remove_sets_of_removed_installs(folder) -> None:
    """Removes from folder the compiled sets of installs whose templates folder is gone, and the
    files an earlier irw kept there directly (one folder for every install)."""
    import shutil
    import stat

    for entry in folder.iterdir():
        try:
            info = entry.lstat()
            if stat.S_ISREG(info.st_mode) and entry.name.endswith(".jinja"):
                entry.unlink()
            elif stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
                compiled = (entry / _INSTALL_MARK).read_text(encoding="utf-8", errors="surrogateescape")
                if not os.path.isdir(compiled):
                    shutil.rmtree(entry)
        except OSError:
            continue  # another process removed it first, or it is not ours to read: left as it is


_BREAK_CHARS = "_-/:."
# the longest piece of a name a table cell keeps whole: a longer one between break points (a generated
# name of 300 characters) gets a <wbr> at least every this many characters (WHOLE_NAME_CHARS, below)
LONGEST_PIECE = 20
_LONG_PIECE = re.compile(r"[^_\-/:. ]{%d,}" % (LONGEST_PIECE + 1))


def code_spans(text: Any) -> Markup:
    """A message's `...` spans (the commands and names it quotes, as a terminal shows them) as
    <code>, the rest as text; each piece with the page's escaping rule (escaping.py, then HTML's).
    Backticks that do not pair are text as written. A served error page showed the backticks."""
    pieces = str(text).split("`")
    if len(pieces) % 2 == 0:
        return Markup(escape(shown(str(text))))
    return Markup("".join(f"<code>{escape(shown(piece))}</code>" if i % 2 else str(escape(shown(piece)))
                          for i, piece in enumerate(pieces)))


def breakable(text: Any) -> Markup:
    """A run or system name that a narrow table cell may break only after _ - / : . (an empty
    <wbr> after each), never inside a word: SPLADE_P_P_ENSEMBLE_DISTIL goes over lines as
    SPLADE_P_P_ / ENSEMBLE_ / DISTIL at most, and the names ingest gives runs of several
    collections and nights (BM25.covid.2026-11-02) after their dots. A piece of more than LONGEST_PIECE characters between
    those (a generated name, "L" * 300) is cut into equal parts of at most LONGEST_PIECE, a <wbr>
    between them: `overflow-wrap: break-word` breaks a line but never narrows a table column, which
    was as wide as the whole name, and pushed every score of a 1,280 px page off screen. The text is
    the page's escaping rule applied (warehouse/formats/escaping.py, then HTML escaping), so the
    result is safe markup; its textContent is the name itself."""
    name = shown(str(text))
    out = str(escape(name))
    if _LONG_PIECE.search(name):  # rare: the names of real runs have no such piece
        out = _LONG_PIECE.sub(_cut_long_piece, out)  # before the <wbr> below: <wbr> is no separator
    # str.replace per character: what re.sub(r"([_\-/:])", r"\1<wbr>") did, in a fraction of the time
    # (escaping writes none of these characters, and <wbr> holds none of them)
    for char in _BREAK_CHARS:
        if char in out:
            out = out.replace(char, char + "<wbr>")
    return Markup(out)


_SHOWN_CHARACTER = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|\w+);|.", re.S)  # an entity is one


def _cut_long_piece(match: re.Match) -> str:
    """A piece of escaped text between break points (_ - / : . or a space) in equal parts of at most
    LONGEST_PIECE characters as shown (an entity such as &amp; is one, never cut), a <wbr> between them."""
    units = _SHOWN_CHARACTER.findall(match.group())
    if len(units) <= LONGEST_PIECE:
        return match.group()
    parts = -(-len(units) // LONGEST_PIECE)
    size = -(-len(units) // parts)
    return "<wbr>".join("".join(units[i:i + size]) for i in range(0, len(units), size))


# a name this long or shorter stays on one line in a table on a wider screen (style.css, td.run.whole)
WHOLE_NAME_CHARS = 20


def whole(text: Any) -> bool:
    """Whether a run or system name is short enough to be kept whole on a wider screen: a table
    column then breaks the longer names beside it rather than it (BM25.trec_results_covid breaks,
    trec_results_covid does not); on a phone it still breaks after _ - / : . as every name does."""
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
