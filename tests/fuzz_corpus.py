"""A seeded corpus of TREC run and qrels files, malformed and valid-but-unusual, and an oracle that
reads each one by the README's rules ("Input formats") in plain Python: no DuckDB, no SQL, nothing
from `warehouse`. tests/test_fuzz.py ingests every file and holds irw to the oracle's verdict.

The oracle's reading, rule by rule (README, "Input formats"):

- the text: a UTF-8 byte order mark at the start is not text; lines end in LF or CR LF, mixed
  freely, and a CR at the very end of the file ends its last line. Any other CR, or a U+0001 byte,
  refuses its line (these are checked first, for every line: only those lines are named).
- bytes that are not UTF-8 refuse their line (the first such line is named).
- fields are separated by runs of spaces and tabs; a line without fields is blank and one whose
  first field starts with `#` is a comment; neither is data. No data line: the file is empty.
- a qrels file whose first data line, and at least half of all, have 6 or more fields is a run
  file given as qrels; a run file whose first data line (3 or 4 fields, the last an integer) and at
  least half of all have 3 or 4 fields is a qrels file given as a run: named before anything else.
- a run line has exactly 6 fields: `qid Q0 docid rank score tag`; the rank is an optional sign and
  ASCII digits within 64 bits; the score is a decimal number (optional sign, digits with at most
  one point, an optional exponent) that is finite as a double. A (qid, docid) pair repeated among
  the lines of 6 or more fields refuses every later line. Then, a second tag refuses the first line
  of every later tag.
- a qrels line has 4 fields `qid iter docid grade` or 3 `qid docid grade`, as many as the first
  data line with 3 or 4; the grade is an optional sign and ASCII digits within 32 bits; a repeated
  (qid, docid) refuses every later line.
- problems are reported in line order, 20 at most, with the total.
- `irw trec-eval` reads a run with 6 or more fields, does not read the rank, takes several tags
  and keeps the last line's (read(..., strict=False)).
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import math
import random
import re
from dataclasses import dataclass, field

SCORE = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
NOT_FINITE = re.compile(rb"[+-]?(inf|infinity|nan)", re.IGNORECASE)
INTEGER = re.compile(rb"[+-]?[0-9]+")
BOM = b"\xef\xbb\xbf"
MAX_SHOWN = 20


# -- the oracle ------------------------------------------------------------------------------------

@dataclass
class Verdict:
    """Accepted (rows, and the run's tag), or refused (the lines named, 0 for the file as a whole,
    with the total count of problems and a word the first reason holds)."""

    rows: list[tuple] | None = None
    tag: str | None = None
    lines: list[int] | None = None
    total: int = 0
    reason: str = ""

    @property
    def accepted(self) -> bool:
        return self.rows is not None

    def names(self, reason: str) -> bool:
        """Whether irw's reason is one of the oracle's for the first line named."""
        return any(word in reason for word in self.reason.split("|"))


def _refused(problems: list[tuple[int, str]]) -> Verdict:
    """The README orders problems by line; on one line irw may name them in any order, so reason
    holds every problem's word of the first line named ("|"-separated)."""
    problems = sorted(problems, key=lambda p: p[0])
    first = [word for line, word in problems if line == problems[0][0]]
    return Verdict(lines=[line for line, _ in problems[:MAX_SHOWN]], total=len(problems), reason="|".join(first))


def _fields(line: bytes) -> list[bytes]:
    return [f for f in re.split(rb"[ \t]+", line) if f]


def read(kind: str, text: bytes, strict: bool = True) -> Verdict:
    """What irw must do with a file of this kind ("run" or "qrels") whose text (decompressed) is text.
    strict=False reads a run as `irw trec-eval` does (README: 6 or more fields, the rank column not
    read, several tags allowed, the last line's tag kept); its rows are then (qid, docid, score)."""
    if text.startswith(BOM):
        text = text[len(BOM):]
    lines = text.split(b"\n")
    if text.endswith(b"\n") or not text:
        lines.pop()
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]

    control = []
    for number, line in enumerate(lines, start=1):
        if b"\r" in line:
            control.append((number, "carriage return"))
        if b"\x01" in line:
            control.append((number, "U+0001"))
    if control:
        return _refused(control)
    for number, line in enumerate(lines, start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return _refused([(number, "not valid UTF-8")])

    data = [(number, fields) for number, fields in ((n, _fields(line)) for n, line in enumerate(lines, start=1))
            if fields and not fields[0].startswith(b"#")]
    if not data:
        return _refused([(0, "the file is empty")])
    # README: a first line of several fields none of which is a number is a header line, refused;
    # the swapped-file rule then reads the lines after it
    header = data[0][0] == 1 and len(data) >= 2 and len(data[0][1]) >= 2 \
        and not any(SCORE.fullmatch(f) for f in data[0][1])
    rest = data[1:] if header else data
    first = rest[0][1]
    if kind == "qrels" and len(first) >= 6 and 2 * sum(len(f) >= 6 for _, f in rest) >= len(rest):
        return _refused([(0, "looks like a run file")])
    if kind == "run" and len(first) in (3, 4) and INTEGER.fullmatch(first[-1]) \
            and 2 * sum(len(f) in (3, 4) for _, f in rest) >= len(rest):
        return _refused([(0, "looks like a qrels file")])
    if header:
        return _refused([(1, "is a header line")])
    verdict = _read_run(data, strict) if kind == "run" else _read_qrels(data)
    if verdict.accepted:  # README: NUL in what a warehouse stores is an error naming its line
        line = _nul_line(kind, data, lines)
        if line is not None:
            return _refused([(line, "NUL")])
    return verdict


def _nul_line(kind: str, data: list[tuple[int, list[bytes]]], lines: list[bytes]) -> int | None:
    """The line a file irw would otherwise store is refused at for a NUL: the first data line with
    NUL in a stored field (a run's qid, docid, tag; qrels' qid, docid), else the first comment line
    holding NUL when the ir_metadata block holds one."""
    for number, fields in data:
        stored = (fields[0], fields[2], fields[5]) if kind == "run" else (fields[0], fields[-2])
        if any(b"\x00" in field for field in stored):
            return number
    if kind == "run":
        starts = [n for n, line in enumerate(lines, 1) if line.strip(b" ") == b"# ir_metadata.start"]
        ends = [n for n, line in enumerate(lines, 1) if line.strip(b" ") == b"# ir_metadata.end"]
        if starts and ends and ends[0] > starts[0] and any(b"\x00" in line for line in lines[starts[0]:ends[0] - 1]):
            return next(n for n, line in enumerate(lines, 1)
                        if b"\x00" in line and _fields(line) and _fields(line)[0].startswith(b"#"))
    return None


def _duplicates(data: list[tuple[int, list[bytes]]], key) -> list[tuple[int, str]]:
    seen: dict[tuple, int] = {}
    problems = []
    for number, fields in data:
        k = key(fields)
        if k is None:
            continue
        if k in seen:
            problems.append((number, "duplicate"))
        else:
            seen[k] = number
    return problems


def _read_run(data: list[tuple[int, list[bytes]]], strict: bool) -> Verdict:
    problems = []
    for number, fields in data:
        if len(fields) < 6 or (strict and len(fields) > 6):
            problems.append((number, "expected 6 fields"))
            continue
        rank, score = fields[3], fields[4]
        if SCORE.fullmatch(score):
            if not math.isfinite(float(score)):
                problems.append((number, "is not finite"))
        elif NOT_FINITE.fullmatch(score):
            problems.append((number, "is not finite"))
        else:
            problems.append((number, "is not a number"))
        if (problems and problems[-1][0] == number) or not strict:
            continue
        if not INTEGER.fullmatch(rank):
            problems.append((number, "is not an integer"))
        elif not -2**63 <= int(rank) < 2**63:
            problems.append((number, "out of range"))
    problems += _duplicates(data, lambda f: (f[0], f[2]) if len(f) >= 6 else None)
    if problems:
        return _refused(problems)
    if not strict:
        rows = [(f[0].decode(), f[2].decode(), float(f[4])) for _, f in data]
        return Verdict(rows=sorted(rows), tag=data[-1][1][5].decode())
    tags: dict[bytes, int] = {}
    for number, fields in data:
        tags.setdefault(fields[5], number)
    if len(tags) > 1:
        return _refused([(number, "a second run tag") for number in list(tags.values())[1:]])
    rows = [(f[0].decode(), f[2].decode(), int(f[3]), float(f[4])) for _, f in data]
    return Verdict(rows=sorted(rows), tag=data[0][1][5].decode())


def _read_qrels(data: list[tuple[int, list[bytes]]]) -> Verdict:
    layout = next((len(f) for _, f in data if len(f) in (3, 4)), 4)
    problems = []
    for number, fields in data:
        if len(fields) not in (3, 4):
            problems.append((number, "expected 4 fields"))
        elif len(fields) != layout:
            problems.append((number, "fields where the first line has"))
        elif not INTEGER.fullmatch(fields[-1]):
            problems.append((number, "is not an integer"))
        elif not -2**31 <= int(fields[-1]) < 2**31:
            problems.append((number, "is out of range"))
    problems += _duplicates(data, lambda f: (f[0], f[-2]) if len(f) in (3, 4) else None)
    if problems:
        return _refused(problems)
    return Verdict(rows=sorted((f[0].decode(), f[-2].decode(), int(f[-1])) for _, f in data))


# -- the corpus ------------------------------------------------------------------------------------

QIDS = ["q1", "301", "q-2", "ü", "文", "q#3", "0", "1.5"]
DOCS = ["d1", "D1", "doc#7", "msmarco_v2.1_doc_50_2286987788#13_3087841662", "ü-ñ-文档", 'quo"te', "com,ma",
        "back\\slash", "'s'", "10", "9", "😀", "a\x00b", "x\x02y", "e\x1b[0m", "del\x7f", "v\x0bt", "f\x0cf", "+1",
        "nan", "\ufeffbom", "a\u00a0b"]
TAGS = ["tagA", "run#1", "ü", "t\x02", "Q0", "1"]
SCORES = ["3.5", "-0", "+7", "1e-3", ".5", "1.", "12.125000", "-12.5e+2", "0", "1e39", "3.4028235677973366e38",
          "-1e308", "007.5", "1E5", "4.9e-324", "0.30000000000000004"]
RANKS = ["1", "+2", "01", "-3", "0", "9223372036854775807", "-9223372036854775808", "1000"]
GRADES = ["0", "1", "2", "-1", "+3", "-2147483648", "2147483647", "03", "-0"]
BAD_SCORES = ["nan", "NaN", "inf", "-Infinity", "1e999", "1_0", "0x10", "+-1", "1,5", "abc", "1.5x", "--1",
              "2.5\x0b", "\x0c2", "١", "1e", ".", "0b11", "2.5\x1b", "1e+-5", "+", "0x1p3", "1d5"]
BAD_RANKS = ["0x10", "0b11", "1.0", "1e3", "2.5", "99999999999999999999", "-", "1_0", "2\x0b", "\x0c3", "one",
             "+-1", "0X1F", "١"]
BAD_GRADES = ["1.5", "rel", "99999999999", "0x1", "1\x0b", "+-1", "2147483648", "1e0", "٣"]
SEPARATORS = [" ", " ", " ", "\t", "  ", " \t ", "\t\t"]
COMPRESSIONS = ["", "", "", ".gz", ".zst", ".bz2", ".xz", ".gz padded", ".gz members"]


@dataclass
class Case:
    id: str
    kind: str           # "run" or "qrels": how the file is ingested
    suffix: str         # the file name's compression suffix
    text: bytes         # the file's text (what the oracle reads)
    raw: bytes          # the file's bytes
    notes: list[str] = field(default_factory=list)


def _line(rng: random.Random, fields: list[str], notes: list[str]) -> str:
    if rng.random() < 0.1:
        seps = [rng.choice(SEPARATORS) for _ in fields[1:]]
        notes.append("mixed separators")
    else:
        seps = [rng.choice(SEPARATORS)] * (len(fields) - 1)
    text = fields[0] + "".join(sep + f for sep, f in zip(seps, fields[1:]))
    if rng.random() < 0.05:
        text = rng.choice([" ", "\t", "  "]) + text
        notes.append("leading whitespace")
    if rng.random() < 0.05:
        text += rng.choice([" ", "\t", "  "])
        notes.append("trailing whitespace")
    return text


def _run_records(rng: random.Random) -> list[list[str]]:
    tag = rng.choice(TAGS) if rng.random() < 0.3 else "tagA"
    records = []
    for qid in rng.sample(QIDS, rng.randint(1, 4)):
        for rank, doc in enumerate(rng.sample(DOCS, rng.randint(1, 6)), start=1):
            score = rng.choice(SCORES) if rng.random() < 0.3 else f"{rng.uniform(-5, 20):.{rng.randint(0, 6)}f}"
            rank_text = rng.choice(RANKS) if rng.random() < 0.1 else str(rank)
            records.append([qid, "Q0", doc, rank_text, score, tag])
    rng.shuffle(records) if rng.random() < 0.3 else None
    return records


def _qrels_records(rng: random.Random) -> list[list[str]]:
    four = rng.random() < 0.8
    records = []
    for qid in rng.sample(QIDS, rng.randint(1, 4)):
        for doc in rng.sample(DOCS, rng.randint(1, 6)):
            grade = rng.choice(GRADES) if rng.random() < 0.3 else str(rng.randint(0, 3))
            records.append([qid, rng.choice(["0", "Q0", "iter"]), doc, grade] if four else [qid, doc, grade])
    return records


def _mutate_records(rng: random.Random, kind: str, records: list[list[str]], notes: list[str]) -> None:
    """Changes to fields: each one makes a malformed file, or an unusual valid one."""
    if not records:
        return
    i = rng.randrange(len(records))
    rec = records[i]
    roll = rng.randrange(10)
    if len(rec) < 3:
        return
    if roll == 0:
        del rec[rng.randrange(len(rec))]
        notes.append("a field dropped")
    elif roll == 1:
        rec.insert(rng.randrange(len(rec) + 1), rng.choice(["extra", "0", "#x"]))
        notes.append("a field added")
    elif roll == 2 and kind == "run" and len(rec) >= 5:
        rec[4] = rng.choice(BAD_SCORES)
        notes.append("bad score")
    elif roll == 2 and kind == "qrels":
        rec[-1] = rng.choice(BAD_GRADES)
        notes.append("bad grade")
    elif roll == 3 and kind == "run" and len(rec) >= 4:
        rec[3] = rng.choice(BAD_RANKS)
        notes.append("bad rank")
    elif roll == 4:
        dup = list(records[rng.randrange(len(records))])
        if kind == "run" and len(dup) >= 5:
            dup[3], dup[4] = "99", "0.125"
        records.insert(rng.randrange(len(records) + 1), dup)
        notes.append("duplicate")
    elif roll == 5 and kind == "run" and len(rec) == 6:
        for later in records[i:]:
            if len(later) == 6:
                later[5] = "other"
        notes.append("second tag")
    elif roll == 6:
        rec[0] = "#" + rec[0]
        notes.append("comment shaped like a line")
    elif roll == 7 and kind == "qrels":
        records[i] = [rec[0], rec[-2], rec[-1]] if len(rec) == 4 else [rec[0], "0", *rec[1:]]
        notes.append("other layout")
    elif roll == 8:
        rec[-1] = rec[-1] + rng.choice(["\x0b", "\x0c", "\x00", "\x1b"])
        notes.append("control byte ending a line's last field")
    else:
        records.insert(rng.randrange(len(records) + 1), list(rec))
        notes.append("repeated line")


def _mutate_lines(rng: random.Random, lines: list[bytes], notes: list[str]) -> None:
    """Changes to bytes: control bytes, CR, invalid UTF-8, blank and comment lines."""
    roll = rng.randrange(9)
    i = rng.randrange(len(lines)) if lines else 0
    if not lines:
        return
    if roll == 0:
        at = rng.choice([len(lines[i]), len(lines[i]), rng.randint(0, len(lines[i]))])
        lines[i] = lines[i][:at] + b"\x01" + lines[i][at:]
        notes.append("U+0001")
    elif roll == 1:
        at = rng.randint(0, len(lines[i]))
        lines[i] = lines[i][:at] + b"\r" + lines[i][at:] + (b"x" if rng.random() < 0.5 else b"")
        notes.append("CR inside a line")
    elif roll == 2:
        bad = rng.choice([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf"])
        at = rng.randint(0, len(lines[i]))
        lines[i] = lines[i][:at] + bad + lines[i][at:]
        notes.append("not UTF-8")
    elif roll == 3:
        lines.insert(i, rng.choice([b"", b"   ", b"\t", b"# a comment", b"  # indented comment 1 2 3 4 5"]))
        notes.append("blank or comment line")
    elif roll == 4:
        lines[:0] = [b"# ir_metadata.start", b"# tag: x", b"# ir_metadata.end", b""]
        notes.append("ir_metadata header")
    elif roll == 5:
        lines.append(rng.choice([b"", b"#", b"# end"]))
        notes.append("trailing blank or comment")
    elif roll == 6:
        lines[i] = lines[i] + b"\x00"
        notes.append("NUL ending a line")
    elif roll == 7:
        lines[i] = b"\xef\xbb\xbf" + lines[i]
        notes.append("BOM inside the file")
    else:
        notes.append("no byte change")


def _join(rng: random.Random, lines: list[bytes], notes: list[str]) -> bytes:
    style = rng.choice(["lf"] * 6 + ["crlf"] * 2 + ["mixed"] * 4 + ["no final end", "cr at the end"] * 2 + ["cr only"])
    notes.append(f"line ends: {style}")
    if style == "lf":
        return b"".join(line + b"\n" for line in lines)
    if style == "crlf":
        return b"".join(line + b"\r\n" for line in lines)
    if style == "mixed":
        return b"".join(line + rng.choice([b"\n", b"\r\n"]) for line in lines)
    if style == "no final end":
        return rng.choice([b"\n", b"\r\n"]).join(lines)
    if style == "cr at the end":
        return b"".join(line + b"\n" for line in lines[:-1]) + (lines[-1] + b"\r" if lines else b"")
    return b"".join(line + b"\r" for line in lines)


def _compress(rng: random.Random, text: bytes, how: str) -> tuple[str, bytes]:
    if how == "":
        return "", text
    if how == ".gz":
        return ".gz", gzip.compress(text, mtime=0)
    if how == ".gz padded":
        return ".gz", gzip.compress(text, mtime=0) + b"\x00" * rng.choice([1, 7, 512])
    if how == ".gz members":
        cut = rng.randint(0, len(text))
        return ".gz", gzip.compress(text[:cut], mtime=0) + gzip.compress(text[cut:], mtime=0)
    if how == ".zst":
        import zstandard

        return ".zst", zstandard.ZstdCompressor(write_checksum=rng.random() < 0.5).compress(text)
    if how == ".bz2":
        return ".bz2", bz2.compress(text)
    return ".xz", lzma.compress(text)


def make_case(seed: int, index: int) -> Case:
    rng = random.Random(f"{seed}:{index}")
    kind = rng.choice(["run", "qrels"])
    notes: list[str] = []
    records = _run_records(rng) if kind == "run" else _qrels_records(rng)
    if rng.random() < 0.03:
        records = _qrels_records(rng) if kind == "run" else _run_records(rng)
        notes.append("the other kind of file")
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 3])):
        _mutate_records(rng, kind, records, notes)
    lines = [_line(rng, rec, notes).encode() if rec else b"" for rec in records]
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        _mutate_lines(rng, lines, notes)
    if rng.random() < 0.02:
        lines = rng.choice([[], [b""], [b"# only a comment", b""]])
        notes.append("no data")
    text = _join(rng, lines, notes)
    if rng.random() < 0.05:
        text = BOM + text
        notes.append("BOM")
    suffix, raw = _compress(rng, text, rng.choice(COMPRESSIONS))
    return Case(f"{seed}-{index}-{kind}{suffix or '.txt'}", kind, suffix, text, raw, notes)


def corpus(seed: int, count: int) -> list[Case]:
    return [make_case(seed, index) for index in range(count)]
