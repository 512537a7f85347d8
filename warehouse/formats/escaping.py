"""How names and other text given by users (run, system, tag, qrels set, description, query id,
doc id) go out of irw: one rule per kind of output, used by every writer.

- Every text output (terminal tables and messages, trec_eval lines, csv/tsv, Markdown, LaTeX, HTML
  reports): `shown` writes control characters (C0, DEL, C1: ESC, OSC sequences, backspace, CR,
  LF, tab) and the characters that reorder or split text (bidi embeddings, overrides and isolates,
  U+2028/U+2029) as visible escapes, `\\x1b`, `\\n`, `\\u202e`. So no name moves a terminal's
  cursor, writes its clipboard, clears it, splits a line or a field of any format, or reverses the
  text after it in a page or a PDF. JSON, jsonl, Parquet and Arrow keep the exact text (JSON
  escapes control characters itself).
- Text table, csv and tsv cells (`reversible`): as `shown`, and a backslash is written `\\\\` too, so
  that an escape reads back as one: `a\\nb` is a line break, `a\\\\nb` the four characters typed.
- csv/tsv cells (`spreadsheet_cell`): a text cell a spreadsheet would read as a formula (starting
  with =, +, -, @, tab or CR) gets a leading ', OWASP's rule against formula injection; numbers,
  and text that is just a number (-0.5), stay as they are.
- Names irw stores (`name_problem`): a run, qrels set or system name is refused at ingest when it
  is empty or only blanks, or is not UTF-8 text; any other is stored as given and shown as above.
"""
from __future__ import annotations

import re

# C0 and C1 controls, DEL; Arabic letter mark, LRM, RLM; bidi embeddings and overrides
# (U+202A-U+202E) and isolates (U+2066-U+2069); line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """text with every control and bidi character written as a visible escape; the same text when
    it holds none (the common case costs one search). Surrogates from undecodable bytes
    (os.fsdecode) are written as \\udcXX too, so the result always encodes."""
    if text.isascii() and text.isprintable():
        return text  # no control character (every unsafe ASCII one is unprintable), no surrogate
    if _UNSAFE.search(text):
        text = _UNSAFE.sub(_escape, text)
    if _has_surrogates(text):
        text = "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return text


def reversible(text: str) -> str:
    """text as `shown` writes it, with each backslash doubled first: the cells of a table, csv or
    tsv output, where a typed `\\n` would otherwise read as an escaped line break."""
    return shown(text.replace("\\", "\\\\"))


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def spreadsheet_cell(text: str) -> str:
    """A csv/tsv text cell safe to open in a spreadsheet: `'` before a leading =, +, -, @, tab or
    CR, unless the text is just a number."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def name_problem(name: object) -> str | None:
    """Why a name (of a run, qrels set or system) cannot be stored, or None."""
    if not isinstance(name, str):
        return f"is a {type(name).__name__}, not text"
    if not name.strip():
        return "is empty" if not name else "is only blanks"
    if _has_surrogates(name):
        return "is not UTF-8 text"
    return None
