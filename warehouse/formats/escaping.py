"""How names and other text given by users (run, system, tag, qrels set, description, query id,
doc id) go out of irw: one rule per kind of output, used by every writer.

- Every text output (terminal tables and messages, trec_eval lines, csv/tsv, Markdown, LaTeX, HTML
  reports and served pages): `shown` writes control characters (C0, DEL, C1: ESC, OSC sequences,
  backspace, CR, LF, tab), the characters that reorder or split text (bidi embeddings, overrides
  and isolates, U+2028/U+2029) and the invisible ones (every format character, Unicode category
  Cf, and every other default-ignorable one: zero-width space, soft hyphen, BOM, word joiner,
  U+034F, the Hangul fillers, variation selectors, tag characters) as visible escapes, `\\x1b`,
  `\\n`, `\\u202e`, `\\xad`, `\\U000e0041`. So no name moves a terminal's cursor, writes its
  clipboard, clears it, splits a line or a field of any format, or reverses the text after it in a
  page or a PDF, nor do two names differing by an invisible character print alike. Three kinds of
  invisible character stay as written where they join or select what is drawn, and only there: a
  variation selector right after a visible non-ASCII character (the red heart emoji, U+2764 U+FE0F;
  an ideograph's variant, U+E0100) or making a keycap (1 U+FE0F U+20E3); a zero-width joiner or
  non-joiner between two visible non-ASCII characters (emoji families, Persian and Indic words);
  tag characters completing an emoji flag (U+1F3F4, tags, U+E007F). Anywhere else (BM\\u200d25)
  they are escaped too. JSON, jsonl, Parquet and Arrow keep the exact text (JSON escapes control
  characters itself).
- Text table, csv and tsv cells (`reversible`): as `shown`, and a backslash is written `\\\\` too, so
  that an escape reads back as one: `a\\nb` is a line break, `a\\\\nb` the four characters typed.
- csv/tsv cells (`spreadsheet_cell`): a text cell a spreadsheet would read as a formula (starting
  with =, +, -, @, tab or CR) gets a leading ', OWASP's rule against formula injection; numbers,
  and text that is just a number (-0.5), stay as they are.
- Names irw stores (`name_problem`): a run, qrels set or system name is refused at ingest when it
  is empty or only blanks, `.` or `..`, or is not UTF-8 text; any other is stored as given and shown
  as above.
"""
from __future__ import annotations

import re

# Joiners and variation selectors: invisible, yet what emoji, Persian, Indic and ideographic text
# are drawn with, so kept in place where they join or select (_KEPT) and escaped elsewhere.
_JOINERS = "\u200c\u200d"
_SELECTORS = "\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef"
_TAGS = "\U000e0020-\U000e007e"
# C0 and C1 controls, DEL; line and paragraph separators; every format character (category Cf:
# soft hyphen, Arabic letter mark, zero-width space, joiners, LRM, RLM, bidi embeddings, overrides
# and isolates, word joiner, invisible operators, BOM, tags ...; U+13439-1343F are Cf from Unicode
# 15 on); the other default-ignorable ones (U+034F, Hangul fillers, Khmer inherent vowels,
# variation selectors, and the unassigned U+2065, U+FFF0-FFF8 and U+E0000-E0FFF: a terminal
# draws nothing for them either).
_UNSAFE_CHARS = ("\x00-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
                 "\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164"
                 "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
                 "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
_UNSAFE = re.compile(f"[{_UNSAFE_CHARS}]")
# a character drawn as itself that a joiner or selector can belong to (surrogates are escaped)
_VISIBLE = f"[^\x00-\x7f\ud800-\udfff{_UNSAFE_CHARS}]"
_KEPT = (f"\U0001f3f4[{_TAGS}]+\U000e007f"
         f"|{_VISIBLE}(?:[{_SELECTORS}](?:[{_JOINERS}](?={_VISIBLE}))?|[{_JOINERS}](?={_VISIBLE}))"
         "|[0-9#*]\ufe0f(?=\u20e3)")
_KEPT_OR_UNSAFE = re.compile(f"(?P<kept>{_KEPT})|[{_UNSAFE_CHARS}]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# a leading ' is irw's too: `'=x` (a name so typed) would otherwise read back as `=x`
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _escape(match: re.Match) -> str:
    if match.group("kept"):
        return match.group("kept")
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"  # \u reads 4 digits: \ue0041 would read as two


def shown(text: str) -> str:
    """text with every control, bidi and invisible character written as a visible escape; the same
    text when it holds none (the common case costs one search). Surrogates from undecodable bytes
    (os.fsdecode) are written as \\udcXX too, so the result always encodes."""
    if text.isascii() and text.isprintable():
        return text  # no control character (every unsafe ASCII one is unprintable), no surrogate
    if _UNSAFE.search(text):
        text = _KEPT_OR_UNSAFE.sub(_escape, text)
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
    CR, unless the text is just a number; and before a leading `'`, so that a leading `'` is always
    irw's (a walk's runs `=x` and `'=x` both read `'=x`)."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def name_problem(name: object) -> str | None:
    """Why a name (of a run, qrels set or system) cannot be stored, or None."""
    if not isinstance(name, str):
        return f"is a {type(name).__name__}, not text"
    if not name.strip():
        return "is empty" if not name else "is only blanks"
    if name.strip() in (".", ".."):
        # a link to /runs/.. is a link to /runs/ (browsers resolve dot segments, %2E%2E too), and
        # a folder or path of that name is this folder or the one above
        return "is a dot segment, which links and paths read as this folder or the one above"
    if _has_surrogates(name):
        return "is not UTF-8 text"
    return None


def shell_word(text: str) -> str:
    """text as one word of a command a user pastes into bash or zsh: shlex.quote's quoting, or, for
    text holding a character shown() escapes (a control, bidi or invisible one), bash's $'...' with
    each such character as \\xHH, \\uHHHH or \\UHHHHHHHH, so that the word pasted is the text
    itself: a message line is escaped whole (shown), which turned a quoted ESC into the four
    characters \\x1b and the pasted command into one naming another run (an escaping walk). A
    surrogate of an undecodable byte (os.fsdecode) is that byte, \\xHH."""
    import shlex

    if shown(text) == text:
        return shlex.quote(text)
    out = []
    for c in text:
        code = ord(c)
        if c in "\\'":
            out.append("\\" + c)
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif shown(c) == c:
            out.append(c)
        else:
            out.append(f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return "$'" + "".join(out) + "'"


def shell_join(words) -> str:
    """Words as a command line a user pastes into bash or zsh (shell_word each)."""
    return " ".join(shell_word(str(word)) for word in words)


def shell_command(words, names=()) -> str:
    """A command line (shell_join) whose options come first, then the names it takes as arguments,
    after `--` when one of them starts with a dash: a run named -2+3 was read as an option
    (`No such option: -2`) when a printed command was pasted (an escaping walk)."""
    names = [str(name) for name in names]
    ends_options = ["--"] if any(name.startswith("-") for name in names) else []
    return shell_join([*words, *ends_options, *names])
