"""Batches of run files: each file one run, named by one deterministic rule, dated, and the whole
batch checked before anything is stored.

Real run files share tags (all six TREC DL 2019 passage runs are tagged `rank`, Anserini's runs
`Anserini`) or carry a placeholder (`run_id`), and the same file names recur in every folder of a
collection (dl21/BM25.txt, dl22/BM25.txt) or of a system (BM25/trec_results_dl21.txt,
BM25_RM3/trec_results_dl21.txt), so a run's name cannot always be its tag or its file name. The
rule (`name_from`; docs/input-formats.md, "Run names and dates"):

- "tag": the run tag.
- "file": the file's {short}: its name without its extensions (.gz/.zst/.bz2/.xz, then
  .txt/.trec/.run/.res/.tsv) and without the prefix the file names of its folder in the batch share,
  cut after a separator (. _ - or space): run.dl19.BM25.txt and run.dl19.BM25_RM3.txt give BM25 and
  BM25_RM3. One file keeps its whole name.
- "auto" (the default), the first that applies:
  1. a file whose content a stored run holds keeps that run's name (the same bytes are the same run,
     whichever folder they are read from, and so is the same text compressed: BM25.txt.gz of a
     stored BM25.txt), and a file whose content an earlier file of the batch has is that file's
     run (stored once, left out of the naming of the others);
  2. the tag, unless it is a placeholder (PLACEHOLDER_TAGS, or digits, or Q and digits), another file
     of the batch has it, or a stored run of that name holds other bytes and replace is off;
  3. a folder whose files answer different queries (two files share a collection when they share
     at least half the queries of the smaller and their documents, where they can tell, do not say
     otherwise: _collections) holds one system's runs of several collections: the run is
     {folder}.{short} and its system the folder (BM25/trec_results_dl21.txt: BM25.dl21, system BM25);
  4. otherwise the file is one system's run: {short}, its system {short}; when that name is another
     file's of the batch, or a stored run's holding other bytes (and replace is off), then
     - if one of those, read from a folder of another name, answers the same queries (one
       collection, as in rule 3), the files of that name are different systems' runs of one
       collection, so the folder names the system:
       {folder}.{short}, system the folder (BM25_RM3/trec_results_covid.txt beside
       BM25/trec_results_covid.txt: BM25_RM3.trec_results_covid, system BM25_RM3);
     - else they are one system's runs of different collections, or an earlier version of the file
       (stored from its folder or one of the same name: bycoll/covid, bycoll2/covid name no two
       systems): {short}.{folder} (dl22/BM25.txt beside dl21/BM25.txt: BM25.dl22, system BM25);
     - a file alone under its {short}, when a stored run of the folder's system (or, in a night's
       folder, of the system {short}: a collection's folder) was read from a file of its name in a
       folder of its folder's name and answers the same queries, is that run's next version, under that run's name,
       whatever it is (later/BM25/trec_results_covid.txt after runs/BM25/trec_results_covid.txt
       was stored as BM25.covid, system BM25; nights/2026-11-02/covid/BM25.txt after
       nights/2026-11-01/covid/BM25.txt was stored as BM25.covid beside BM25.dl21);
     - a name a stored run holds with other bytes ({folder}.{short}, {short}.{folder}, or an
       earlier version's), in a folder whose folder above is named by a date (a night kept a
       folder per system or per collection), is that night's version: {name}.{night}
       (nightly/2026-03-09/BM25/trec_results_covid.txt: BM25.trec_results_covid.2026-03-09, system
       BM25; nights/2026-11-02/covid/BM25.txt: BM25.covid.2026-11-02, system BM25);
     - a file alone in a night's folder, whose name one system's stored runs were read from in
       another folder, answering the same queries, is that system's run of the night: {system}.{night}
       after a night's folder (2026-02-02/run.dl19.BM25.txt after 2026-01-05/, where it was BM25),
       {name}.{night} after a folder of no date (after runs/: BM25.2026-02-02), system that run's.
  Every name not taken from the tag is said on stderr with its reason, and runs of one folder
  stored under tags sharing a prefix are told how to share the folder's system (_tag_systems_note).
  A file's folder is the one it was given in: a link is in the folder holding the link, wherever it
  points.
- a template (`name_template`, `--name-template`): str.format fields TEMPLATE_FIELDS of each file;
  `system` may hold the same fields. A file whose bytes a stored run holds keeps that run, as by
  rule 1 of auto: a folder ingested again under a template adds only the files that changed.

Two files resolving to one name, or a name a stored run holds with other bytes (replace off), is an
error whose hints (in backquotes) each resolve it: `--replace`, and a `--name-template` found to give
every file of the batch a free name, or, where the auto name is a stored run answering the same
queries (a new version of it), the command storing the file beside it in its system (_version_hint).
One file of a batch never replaces another. A stored run holding the same bytes under the resolved
name is a no-op; with replace, the system, description, parameters and date given are applied to it
in place (the scores stay: the bytes are the same), and a date given by --date is kept unless
another is given. A stored run replaced by other bytes
keeps its system, description and parameters unless others are given (ingest.insert_staged_run);
its date is the new file's.

Dates (runs.file_created_at, its source in runs.date_source): the date given (`--date`), else the
`date:` key at the top level of the file's ir_metadata header, else the date its folder, or the
folder above it, is named by (2026-02-02/BM25.txt, 2026-02-02/BM25/trec_results_dl21.txt), else the
file's modification time (ingest.file_date).

Every file is validated (sql/ingest, through ingest.stage_run) before the first run is stored; a
file whose bytes a stored run holds was validated when it was stored and is not read again. Files
of several nights (a backfill) are then named and stored night by night, each night against what
the nights before it stored (_by_night), as the nights given one at a time are.
Staging happens outside any transaction (DuckDB aborts a transaction on any error, and the column
reader's fallback to line mode is such an error), so each run is then stored in a transaction of
its own. The file staged last in the check is the first stored, so a one-file batch reads its file
once.
"""
from __future__ import annotations

import datetime as dt
import os
import re
import string
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from warehouse.formats.escaping import shell_command, shell_join
from warehouse.formats.cells import said_date, said_value
from warehouse.formats.escaping import name_problem, shown
from warehouse.ingestion import files as ingest
from warehouse.store.catalog import refuse_bad_name
from warehouse.engines.duckdb import Database
from warehouse.errors import BatchError, ConflictError, InputFileError, IrwError, Problem, UsageError
from warehouse.ingestion.files import IngestResult, RunDate

NAME_FROM = ("auto", "file", "tag")
# Warehouse.ingest_run without a name: the tag, unless it is a placeholder (then the file's name)
TAG_UNLESS_PLACEHOLDER = "tag unless placeholder"
# Tags that name no run: tools' defaults and the values of a file's other columns; compared
# ignoring case. Tags of digits only, or Q and digits, are placeholders too.
PLACEHOLDER_TAGS = frozenset({
    "rank", "run_id", "runid", "run-id", "run", "runtag", "run_tag", "tag", "system", "results", "output",
    "anserini", "pyserini", "lucene", "terrier", "pyterrier", "standard", "default",
    "q0", "none", "null", "nan", "na", "n/a", "-",
})
_PLACEHOLDER_PATTERN = re.compile(r"q?\d+", re.IGNORECASE)
# the fields of --name-template (and of --system): see _fields
TEMPLATE_FIELDS = ("tag", "file", "stem", "short", "folder", "above")
# the templates an error may suggest, tried in this order: the first that names every file apart is shown
# ({folder}.{above} before {short}.{folder}: runs kept COLLECTION/SYSTEM/trec_results.txt, their file named
# alike everywhere, are SYSTEM.COLLECTION in system SYSTEM, whose hint was {short}.{folder}, each run a system)
_HINT_TEMPLATES = ("{short}", "{stem}", "{folder}.{short}", "{folder}.{above}", "{short}.{folder}", "{folder}.{stem}",
                   "{stem}.{folder}", "{folder}.{short}.{tag}")


def is_placeholder(tag: str) -> bool:
    """Whether a run tag names no run (PLACEHOLDER_TAGS, digits, Q and digits)."""
    return tag.strip().lower() in PLACEHOLDER_TAGS or bool(_PLACEHOLDER_PATTERN.fullmatch(tag.strip()))


def check_template(template: str, option: str = "--name-template") -> None:
    """A template's fields must be TEMPLATE_FIELDS, without conversions or format specs."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise UsageError(f"{option} {template!r}: {exc} (a literal brace is written {{{{ or }}}})") from None
    for _, field_name, spec, conversion in parts:
        if field_name is None:
            continue
        if field_name not in TEMPLATE_FIELDS or spec or conversion:
            raise UsageError(f"{option} {template!r}: {{{field_name}}} is not a field; the fields are "
                             + ", ".join(f"{{{f}}}" for f in TEMPLATE_FIELDS)
                             + " (a literal brace is written {{ or }})")
    if option == "--name-template" and all(field_name is None for _, field_name, _, _ in parts):
        raise UsageError(f"--name-template {template!r} has no field, so it would give every file one name; "
                         "use --name for one file")
_COMPRESSION_EXTENSIONS = (".gz", ".zst", ".bz2", ".xz")
_RUN_EXTENSIONS = (".txt", ".trec", ".run", ".res", ".tsv")
_SEPARATORS = "._- "

# -- dates -------------------------------------------------------------------------------------------
DATE_FORMAT = ("an ISO date or date and time: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] (a space may stand for the T), "
               "optionally ending in Z or +HH:MM (then converted to UTC)")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})"
                       r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?[ ]?(Z|[+-]\d{2}:?\d{2})?)?",
                       re.IGNORECASE)
# ir_metadata (https://www.ir-metadata.org, schema 0.1) defines no date of the run; its general
# section at the top level holds schema-version, run-version and tag. irw reads a `date:` key there.
_IR_METADATA_DATE = re.compile(r"^date[ \t]*:(.*)$", re.MULTILINE)


def parse_iso_date(text: str) -> dt.datetime | None:
    """An ISO 8601 date or date and time as a naive UTC datetime, or None when text is not one.
    The same forms are taken on every Python irw supports (3.10's fromisoformat takes fewer)."""
    match = _ISO_DATE.fullmatch(text.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        value = dt.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0),
                            int((fraction or "0").ljust(6, "0")))
        if zone and zone.upper() != "Z":
            digits = zone[1:].replace(":", "")
            offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
            value = (value.replace(tzinfo=dt.timezone(offset if zone[0] == "+" else -offset))
                     .astimezone(dt.timezone.utc).replace(tzinfo=None))
    except ValueError:  # 2026-02-30, 25:00, an offset of a day or more
        return None
    return value


def refuse_bad_run_fields(*, name: str | None = None, system: str | None = None, description: str | None = None,
                          parameters: Mapping[str, str] | None = None) -> None:
    """The one check of what a user gives a run, by ingest (`irw ingest run`, ingest_runs) and by
    `irw edit run` alike: a name or system that cannot be stored (catalog.refuse_bad_name: empty,
    blank, `.`, not UTF-8 ...), a description or parameter that is not UTF-8 text (the engines
    refuse it with their own words). A system holding template fields is checked by ingest first."""
    for option, value in (("--name", name), ("--system", system)):
        if value is not None:
            refuse_bad_name("run", value, option)
    texts = [("--description", description)] + [("--param", f"{k}={v}") for k, v in (parameters or {}).items()]
    for option, value in texts:
        if isinstance(value, str) and name_problem(value) == "is not UTF-8 text":
            raise UsageError(f"the run's {option} '{shown(value)}' is not UTF-8 text")


def given_date(value: str | dt.date | dt.datetime) -> RunDate:
    """The date a user gave (`--date`, or date= in Python) as a RunDate; a bad value is a UsageError
    that shows the format."""
    if isinstance(value, dt.datetime):
        parsed = value.astimezone(dt.timezone.utc).replace(tzinfo=None) if value.tzinfo else value
    elif isinstance(value, dt.date):
        parsed = dt.datetime(value.year, value.month, value.day)
    else:
        parsed = parse_iso_date(str(value))
        if parsed is None and _ISO_DATE.fullmatch(str(value).strip()):
            raise UsageError(f"--date {str(value)!r} is written as a date but names no day of the calendar (or no time "
                             "of day): give one that exists")
        if parsed is None:
            raise UsageError(f"--date takes {DATE_FORMAT}; got {value!r}")
    return RunDate(parsed, ingest.DATE_GIVEN)


def ir_metadata_date(path: Path, ir_metadata: str | None) -> RunDate | None:
    """The date of the file's ir_metadata header (its top-level `date:` key), None when it has none;
    a value that is not a date is an InputFileError (the header says something irw cannot read)."""
    match = _IR_METADATA_DATE.search(ir_metadata or "")
    if not match:
        return None
    text = re.sub(r"\s+#.*$", "", match.group(1)).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    parsed = parse_iso_date(text)
    if parsed is None:
        raise InputFileError([Problem(str(path), 0, f"the ir_metadata date {text!r} is not {DATE_FORMAT}; "
                                                    "correct the header, or pass --date")])
    return RunDate(parsed, ingest.DATE_IR_METADATA)


# -- names -------------------------------------------------------------------------------------------
def run_file_stem(path: Path) -> str:
    """The file name without its compression and run-file extensions: run.dl19.BM25.txt.gz -> run.dl19.BM25."""
    name = path.name
    if name.lower().endswith(_COMPRESSION_EXTENSIONS):
        name = name[: name.rindex(".")]
    while name.lower().endswith(_RUN_EXTENSIONS) and "." in name[1:]:
        name = name[: name.rindex(".")]
    return name or path.name


def common_prefix(stems: list[str]) -> str:
    """The prefix shared by every stem, cut just after a separator, leaving every stem something;
    "" for fewer than two stems."""
    if len(stems) < 2:
        return ""
    shared = os.path.commonprefix(stems)
    for cut in range(len(shared), 0, -1):
        if shared[cut - 1] in _SEPARATORS and all(len(stem) > cut for stem in stems):
            return shared[:cut]
    return ""


# -- the batch -----------------------------------------------------------------------------------------
@dataclass
class _File:
    path: Path
    sha: str = ""  # the content it is known by: its text's sha256 (a compressed file's decompressed text)
    file_sha: str = ""  # its bytes' sha256 (stored as runs.sha256 beside runs.text_sha256)
    holds: dict | None = None
    tag: str | None = None
    ir_metadata: str | None = None
    known_as: str | None = None  # a stored run holding this content (validated when it was stored)
    same_as: "_File | None" = None  # an earlier file of the batch with this content: one run, stored once
    known_id: int | None = None  # that run's id
    date: RunDate | None = None
    name: str | None = None
    system: str | None = None  # the system the rule gives (None: the run's name)
    queries: frozenset | None = None  # the query ids the file answers (auto naming)
    short: str = ""  # the stem without the prefix its folder's files in the batch share
    note: str | None = None  # why the name is not the tag, in auto mode
    asked: str | None = None  # the name --name-template gives a file a stored run holds (it keeps that run's)
    existing: tuple | None = None  # stored_run() of the name
    errors: list[str] = field(default_factory=list)
    error: IrwError | None = None  # the first error, raised as is when the batch is one file

    @property
    def text_sha(self) -> str | None:
        """Its text's sha256, stored as runs.text_sha256; None for a compressed file known by the
        bytes of a run stored before schema 21, whose text was not read."""
        return None if ingest.is_compressed(self.path) and self.sha == self.file_sha else self.sha


def _same(file: _File, other: _File) -> str:
    """How a file of a batch is an earlier one's content: the same bytes, or the same text (one of
    them compressed)."""
    return "the same bytes" if file.file_sha == other.file_sha else "the same text"


def _fail(file: _File, error: IrwError) -> None:
    file.error = file.error or error
    file.errors.extend(error.message_lines())


def _expand(paths: Iterable[str | os.PathLike[str]], folders: bool) -> list[_File]:
    """The batch's files in the order given; when folders, a folder's files (not hidden, not in
    subfolders) and the files a glob pattern no file is named by matches (quoted, so the shell left
    it: ingest.pattern_files, as irw trec-eval takes it), each in name order; a file given twice is
    one file. Another name of a file already in the batch (a link to it) is kept: it is the same
    bytes, which the batch says, and the run is named by the file linked to (it was left out
    silently, and named by the link when the link came first)."""
    files, seen = [], {}

    def add(path: Path) -> None:
        key = path.resolve() if path.exists() else path
        if key not in seen or (seen[key] != path and (path.is_symlink() or seen[key].is_symlink())):
            seen.setdefault(key, path)
            files.append(_File(path))

    for raw in paths:
        path = Path(raw)
        if folders and path.is_dir():
            inside = ingest.folder_files(path)
            if not inside:
                failed = _File(path)
                _fail(failed, InputFileError([Problem(str(path), 0, ingest.no_input_files(
                    path, "run", "ingest them with `irw ingest run {folders}`"))]))
                files.append(failed)
            for child in inside:
                add(child)
        elif folders and ingest.is_pattern(raw):
            try:
                matched = ingest.pattern_files(raw)
            except InputFileError as exc:
                failed = _File(path)
                _fail(failed, exc)
                files.append(failed)
                continue
            for child in matched:
                add(child)
        else:
            add(path)
    return files


def _check(db: Database, file: _File, staged: list[Path]) -> None:
    """Reads what naming and dating need: the content's sha256, tag, ir_metadata, and the query ids
    the file answers (the auto rule's folders, and whether a stored run of its name is another
    collection's: ~0.04 s at 2M lines). A file is known by its text: a stored run holding its bytes, or
    the text of a compressed one (gzip BM25.txt is still run BM25), is that run. A file no stored
    run holds is staged, which validates it, and only then is a compressed file's text read again to
    be hashed (a bomb its head refuses is not read whole); staged records the file whose stage is
    left in place."""
    scan = ingest.read_input(file.path)  # says what a path that is not a readable file is
    file.sha = file.file_sha = scan.sha256
    file.holds = scan.holds
    if _known(db, file, file.sha):
        return
    ingest._drop_stage(db.staging)
    staged.clear()
    ir_metadata, tags = ingest.stage_run(db.staging, file.path, strict=True, holds=scan.holds)
    staged.append(file.path)
    file.tag, file.ir_metadata = ingest.staged_tag(file.path, tags, True), ir_metadata
    text_sha = ingest.text_sha256(file.path, scan)
    if text_sha != file.sha:
        file.sha = text_sha
        if _known(db, file, text_sha):
            return
    rows = db.staging.run_file("ingest/staged_queries.sql", {"top": TOP_DOCUMENTS}).fetchall()
    # which stored sets judge its documents: read where the warehouse stages its files itself (a
    # server's qrels are not in the local staging database)
    judging = ({row[0] for row in db.run_file("ingest/staged_judging_sets.sql").fetchall()}
               if db.staging is db else None)
    file.queries = Answered([query for query, _top in rows], [(query, doc) for query, top in rows for doc in top],
                            judging)


def _known(db: Database, file: _File, sha: str) -> bool:
    """Whether a stored run holds this content (sha: the file's bytes' or text's sha256); if so the
    file takes its name, tag, ir_metadata and content sha256. Its queries are read only when the
    rule needs them (_known_queries)."""
    known = db.run_file("catalog/run_by_content.sql", {"sha256": sha}).fetchone()
    if known:
        file.known_as, file.tag, file.ir_metadata, file.known_id, file.sha = known
    return bool(known)


def _known_queries(db: Database, files: list[_File]) -> None:
    """The queries of the stored runs whose bytes files of the batch are, in the folders where a
    file is still to be named by the rule (a folder of files all stored names nothing)."""
    pending = {ingest.placed_folder(f.path) for f in files if f.tag is not None and not f.known_as}
    for file in files:
        if file.known_as and file.queries is None and ingest.placed_folder(file.path) in pending:
            file.queries = stored_answers(db, file.known_id)


def _folder(path: Path) -> str:
    """The name of the folder holding a file as the user laid the files out (ingest.placed_folder):
    a run in the working folder is named by it, and `../x.txt` by the folder above, never `..`."""
    return ingest.placed_folder(path).name


def _fields(file: _File) -> dict[str, str]:
    """The fields of a name template for a file: {tag}, {file} (its name), {stem} (without
    extensions), {short} (the stem without its folder's shared prefix), {folder}, {above} (the
    folder holding its folder, as placed: dl21 of dl21/BM25/trec_results.txt)."""
    placed = ingest.placed_folder(file.path)  # _folder's rule
    return {"tag": file.tag or "", "file": file.path.name, "stem": run_file_stem(file.path), "short": file.short,
            "folder": placed.name, "above": placed.parent.name}


class Answered(frozenset):
    """The query ids a run answers (a frozenset, as the naming rule compares them), carrying what
    its documents say of its collection: `top`, the (query, document) pairs of the ten documents it
    ranks first for each (two runs of one collection rank some of the same documents first, two
    collections whose query ids coincide, as BEIR's trec-covid and webis-touche2020 both number
    theirs 1..49, none), and `judged_by`, the ids of the stored qrels sets that judge one of its
    documents (None: not known, as for a file staged for a server warehouse). A plain frozenset
    carries neither, and its query ids alone decide."""

    top: frozenset
    judged_by: frozenset | None

    def __new__(cls, queries: Iterable[str], top: Iterable[tuple[str, str]],
                judged_by: Iterable[int] | None = None) -> "Answered":
        answered = super().__new__(cls, queries)
        answered.top = frozenset(top)
        answered.judged_by = None if judged_by is None else frozenset(judged_by)
        return answered


def stored_answers(db: Database, run_id: int) -> Answered:
    """What a stored run answers, as _check reads it of a staged file."""
    queries = [row[0] for row in db.run_file("catalog/run_query_ids.sql", {"run_id": run_id}).fetchall()]
    return Answered(queries, db.run_file("catalog/run_top_documents.sql",
                                         {"run_id": run_id, "top": TOP_DOCUMENTS}).fetchall(),
                    [row[0] for row in db.run_file("catalog/run_judging_sets.sql", {"run_id": run_id}).fetchall()])


ONE_COLLECTION, IDS_ALIKE = "one collection", "query ids alike"


def _collections(queries: frozenset | None, other: frozenset | None) -> str | None:
    """How the collections of two runs compare: ONE_COLLECTION where they share at least half the
    query ids of the smaller and their documents do not say otherwise (_same_documents); IDS_ALIKE
    where they share those ids but their documents are of different collections (two collections
    numbering their queries alike); None for other queries, or unknown or no queries, which tell
    nothing."""
    if not queries or not other or len(queries & other) * 2 < min(len(queries), len(other)):
        return None
    return IDS_ALIKE if _same_documents(queries, other) is False else ONE_COLLECTION


def _one_collection(queries: frozenset | None, other: frozenset | None) -> bool:
    """Whether two runs answer one collection's queries (_collections)."""
    return _collections(queries, other) == ONE_COLLECTION


# How many documents of each query a run's Answered carries: the ten it ranks first, in trec_eval's
# order (ingest/staged_queries.sql, catalog/run_top_documents.sql, Spark's run_rows.trec_rank)
TOP_DOCUMENTS = 10

# The (query, document) pairs each of two runs must rank first over the queries they share before
# their documents may say "two collections": ten queries' top ten. Two runs of one collection share
# some of so many (BEIR's trec-covid and webis-touche2020 runs: 490 each, none shared), while two
# runs of a few documents may share none by chance (q1 -> d1 and q1 -> d2 are one collection).
DOCUMENTS_TO_TELL = 100


def _same_documents(queries: frozenset, other: frozenset) -> bool | None:
    """Whether the documents of two runs say they are of one collection (None: they cannot tell):
    where stored qrels sets judge documents of both, whether one set judges documents of each (as
    the judging rule, sql/catalog/judging_rule.sql, reads it once they are stored); else whether
    they rank one of the same documents first for a query they share, where each ranks enough
    first (DOCUMENTS_TO_TELL)."""
    judged, other_judged = getattr(queries, "judged_by", None), getattr(other, "judged_by", None)
    if judged and other_judged:
        return not judged.isdisjoint(other_judged)
    top, other_top = getattr(queries, "top", None), getattr(other, "top", None)
    if top is None or other_top is None:
        return None
    shared = queries & other
    own = {pair for pair in top if pair[0] in shared}
    theirs = {pair for pair in other_top if pair[0] in shared}
    if min(len(own), len(theirs)) < DOCUMENTS_TO_TELL:
        return None
    return not own.isdisjoint(theirs)


def _several_collections(group: list[_File]) -> bool:
    """Whether the files of a folder are runs of as many collections as files: no two share half the
    queries of the smaller. One file tells nothing."""
    answered = [f.queries for f in group if f.queries is not None]
    if len(answered) < 2:
        return False
    for i, queries in enumerate(answered):
        for other in answered[i + 1:]:
            if _one_collection(queries, other):
                return False
    return True


def _groups(files: list[_File]) -> dict[Path, list[_File]]:
    """The checked files by the folder holding them."""
    groups: dict[Path, list[_File]] = {}
    for file in files:
        if file.tag is not None:
            groups.setdefault(ingest.placed_folder(file.path), []).append(file)
    return groups


# what to do of a run file's tag a stored run holds with other content: `irw ingest run`'s options, and
# `irw eval --engine spark --into`'s (which names runs by this rule, and takes no --name)
HELD_HINT = "--replace replaces it, --name names the run"
SPARK_HELD_HINT = "--replace replaces it; rename the file to name the run otherwise"


def _name(files: list[_File], name: str | None, name_from: str, template: str | None,
          stored: Callable[[str], tuple | None], replace: bool,
          run_queries: Callable[[int], frozenset] | None = None,
          run_source: Callable[[int], str | None] | None = None, held_hint: str = HELD_HINT,
          runs_read_from: Callable[[str], list[tuple]] | None = None, alike: list[_File] | None = None) -> None:
    """Gives every checked file its run name, and the system the rule gives (the module docstring).
    run_queries(run_id) and run_source(run_id) are the queries and the file a stored run was read
    from (rule 4 asks them of a run a name clashes with); runs_read_from('/FOLDER/FILE') the stored
    runs read from such a file (rule 4: a file's earlier version). held_hint: what the note of a file named
    so because a stored run holds its tag with other content says to do, in the caller's options.
    alike: the batch's files of bytes another file of it holds too (not named), whose names join
    their folder's common prefix: a night's folder whose unchanged files are an earlier night's
    leaves its changed file named as the night's folder names it (run.dl19.BM25.txt beside
    run.dl19.BM25_RM3.txt is BM25, as when the nights are ingested one by one)."""
    groups = _groups(files)
    for group in _groups([*files, *(alike or ())]).values():
        prefix = common_prefix([run_file_stem(f.path) for f in group])
        for file in group:
            file.short = run_file_stem(file.path)[len(prefix):]
    tag_count = Counter(f.tag for f in files if f.tag is not None)

    def taken(run_name: str, file: _File) -> bool:
        held = stored(run_name)
        return bool(held) and held[1] != file.sha and not replace

    def night_version(file: _File) -> None:
        """A file whose name a stored run holds with other bytes, in a folder whose folder above is
        a night (nightly/2026-03-09/BM25/trec_results_covid.txt, nights/2026-11-02/covid/BM25.txt):
        that run's version of the night, {name}.{night}, in its system, as a night's own folder
        gives {short}.{night}. A run read from a folder of that same night is not versioned: the file
        is a second one of its night (a re-run), refused with the name to store it under, as a re-run
        of a later night is (its {name}.{night} is taken)."""
        above = ingest.placed_folder(file.path).parent.name
        if taken(file.name, file) and ingest.night_of(above) is not None:
            source = run_source(stored(file.name)[0]) if run_source else None
            if source is not None and Path(source).parent.parent.name == above:
                return
            version = f"{file.name}.{above}"
            file.note = file.note.replace(f"named {file.name},", f"named {version},", 1) + (
                f"; the folder above, {above}, is a date, so the file is that night's version of run {file.name} "
                f"(history follows it in system {file.system})")
            file.name = version

    by_short: list[tuple[_File, str]] = []  # auto: named {short} (and why), to be told apart by their folders
    for group in groups.values():
        several = name_from == "auto" and template is None and name is None and _several_collections(group)
        for file in group:
            if name is not None:
                file.name = name
            elif template is not None:
                fields = _fields(file)
                if "{above}" in template and not fields["above"]:  # a run named `tmp.` (a regression hunt)
                    _fail(file, UsageError(f"{file.path}: --name-template {template!r}: {{above}} names no folder "
                                           f"here: the file's folder, {ingest.placed_folder(file.path)}, is at the "
                                           "top of the file system"))
                    continue
                file.name = template.format(**fields)
                if file.known_as and file.known_as != file.name:
                    file.asked, file.name = file.name, file.known_as
            elif name_from == "tag":
                file.name = file.tag
            elif name_from == "file":
                file.name = file.short
            elif name_from == TAG_UNLESS_PLACEHOLDER:
                file.name = run_file_stem(file.path) if is_placeholder(file.tag) else file.tag
                if is_placeholder(file.tag):
                    file.note = (f"{file.path}: named {file.name} from its file name: its tag {file.tag} is a "
                                 "placeholder, not a name")
            elif file.known_as:
                file.name = file.known_as
            elif not (is_placeholder(file.tag) or tag_count[file.tag] > 1 or taken(file.tag, file)):
                file.name = file.tag
            elif several:
                folder = _folder(file.path)
                file.name, file.system = f"{folder}.{file.short}", folder
                alike = any(_collections(file.queries, other.queries) == IDS_ALIKE for other in group
                            if other is not file)
                answer = ("are of different collections (one each: those sharing query ids have documents of "
                          "different collections)" if alike else "answer different queries (one collection each)")
                file.note = (f"{file.path}: named {file.name}, system {folder}, from its folder and file name: the "
                             f"files of {folder} {answer}, so the folder names the system")
                night_version(file)
            else:
                file.name = file.short
                # a placeholder is the reason whether or not other files share it (said either way, a
                # file named so alone and in a batch read as two rules)
                if is_placeholder(file.tag):
                    why = f"its tag {file.tag} is a placeholder, not a name"
                elif tag_count[file.tag] > 1:
                    why = f"its tag {file.tag} is shared by {tag_count[file.tag]} files of this batch"
                else:
                    why = f"run {file.tag} (its tag) holds other content ({held_hint})"
                file.note = f"{file.path}: named {file.name} from its file name: {why}"
                by_short.append((file, why))
    # rule 4: a {short} another file of the batch has, or a stored run holds with other bytes
    sharing: dict[str, list[_File]] = {}
    for other in files:
        if other.name is not None:
            sharing.setdefault(other.name, []).append(other)

    def queries_of(other: _File) -> frozenset | None:
        if other.queries is None and other.known_id is not None and run_queries is not None:
            other.queries = run_queries(other.known_id)
        return other.queries

    for file, not_tag in by_short:
        rivals = [other for other in sharing[file.name] if other is not file]
        held = taken(file.name, file)
        folder = _folder(file.path)
        # a night's file whose name a run of an earlier night holds (nightly/2026-01-20/BM25/x.txt
        # alone after nightly/2026-01-19/BM25/x.txt) is that run's version of the night: it was
        # named x.BM25 in system x by the clash rule below, a system history did not follow; so too
        # beside files of the night sharing its name (nights/2026-12-04/covid/BM25.txt and
        # news/BM25.txt after nights/2026-12-01/covid/BM25.txt alone, run BM25, was BM25.covid;
        # nightly/2026-02-02/BM25/trec_results_covid.txt beside BM25_RM3's, after BM25/ alone stored
        # BM25.covid, was BM25.trec_results_covid)
        night_above = ingest.night_of(ingest.placed_folder(file.path).parent.name) is not None
        earlier = (_earlier_version(file, folder, runs_read_from, run_queries)
                   if ((not rivals and not held) or night_above) and runs_read_from and run_queries else None)
        if earlier and (held and earlier[1] == file.name
                        or not any(other.name == earlier[1] for other in files if other is not file)):
            # alone now, and a run read before from a file of its name in a folder of its name
            # answers its queries: the file's earlier version (named by its folder when its batch
            # held another system's file of one name, or given a name of its own)
            file.name, file.system = earlier[1], earlier[2]
            file.note = (f"{file.path}: named {file.name}, system {file.system}: {not_tag}, and run {earlier[1]}, "
                         f"read before from a file {file.path.name} in a folder {folder}, answers the same "
                         "queries (an earlier version of this file)")
            night_version(file)
            continue
        if not rivals and not held:
            other_night = (_other_night_version(file, folder, runs_read_from, run_queries)
                           if runs_read_from and run_queries else None)
            if other_night:
                # a night's folder holding only what changed: no other file to share a prefix with
                # (run.dl19.BM25.txt alone is not BM25), so the name its file had before says
                file.name, file.system, earlier = other_night
                file.note = (f"{file.path}: named {file.name}, system {file.system}: {not_tag}, and {earlier}; "
                             f"{folder} is a date, so the file is that system's run of the night (history follows "
                             "it)")
            continue
        if held and not rivals and run_source and not taken(f"{file.short}.{folder}", file) \
                and _read_from_here(file, folder, run_source(stored(file.name)[0])):
            # the run of its name was read from this file (a file of its name in a folder of its
            # folder's name), and no run holds the name the clash would give it: its new version,
            # refused as one (docs/input-formats.md, rule 4), not stored beside it as {short}.{folder}
            # (a walk's edited variants/run.dl19.BM25.v18.txt, stored as v18, became v18.variants)
            continue
        clash = (f"run {file.name} holds other content" if held
                 else f"{len(rivals)} other file(s) of this batch would have it too")
        why = f"{not_tag.split(' (--replace')[0]}, and {file.short} would clash ({clash})"
        # the same file name in a folder of another name for runs of one collection (the same
        # queries): the folders are systems. Two folders of one name (bycoll/covid, bycoll2/covid)
        # cannot name two systems: a stored run read from either is an earlier version of the file.
        night = ingest.night_of(folder) is not None  # a night's folder names no system: its file names do
        compared = [(other, _collections(file.queries, queries_of(other))) for other in rivals
                    if not night and _folder(other.path) != folder]
        same = [other for other, relation in compared if relation == ONE_COLLECTION]
        # the same query ids, but documents of another collection: said in the note, where a
        # reader would expect the folder to name the system
        alike = [other for other, relation in compared if relation == IDS_ALIKE]
        stored_relation = None
        if held and run_source and run_queries and not night and not any(o.known_as == file.name for o in rivals):
            run_id = stored(file.name)[0]
            source = run_source(run_id)
            # a stored run's source is its resolved path: read from a folder of this name, through a
            # link or not
            if source is not None and Path(source).parent.name not in (folder, file.path.resolve().parent.name):
                stored_relation = _collections(file.queries, run_queries(run_id))
        stored_same, stored_alike = stored_relation == ONE_COLLECTION, stored_relation == IDS_ALIKE
        if same or stored_same:
            total = len(rivals) + (held and not any(o.known_as == file.name for o in rivals))
            count = len(same) + stored_same
            who = (("that run" if stored_same else "that file") + " answers" if total == 1
                   else "they answer" if count == total else f"{count} of them answer{'s' * (count == 1)}")
            kept = [f"run {file.name}"] * stored_same + [f"run {o.known_as}" for o in same if o.known_as]
            file.name, file.system = f"{folder}.{file.short}", folder
            file.note = (f"{file.path}: named {file.name}, system {folder}, from its folder and file name: {why}; "
                         f"{who} the same queries (one collection), so the folder names the system"
                         + (f"; {kept[0]}, stored before, keeps its name and system" if len(kept) == 1 else
                            f"; {', '.join(kept)}, stored before, keep their names and systems" if kept else "")
                         + (" (irw rename run and irw edit run --system change them)" if kept else ""))
            night_version(file)
        else:
            file.name, file.system = f"{file.short}.{folder}", file.short
            file.note = f"{file.path}: named {file.name}, system {file.short}, from its file name and folder: {why}"
            if alike or stored_alike:
                count = len(alike) + stored_alike
                who, its = ((f"that {'run' if stored_alike else 'file'} answers", "its documents are") if count == 1
                            else (f"{count} of them answer", "their documents are"))
                file.note += (f"; {who} the same query ids but {its} another collection's (numbering its queries "
                              "alike), so the file names the system")
            if night:
                file.note += (f"; {folder} is a date, so the folder holds one night's runs and the file names the "
                              "system (history follows it)")
            night_version(file)


def _read_from_here(file: _File, folder: str, source: str | None) -> bool:
    """Whether a stored run's source (its resolved path) is a file of this file's name in a folder
    of this file's folder's name (as placed, or as its links resolve), outside nights (a night's
    file of a stored name is that night's version: night_version)."""
    if source is None or ingest.night_of(folder) is not None \
            or ingest.night_of(ingest.placed_folder(file.path).parent.name) is not None:
        return False
    resolved = file.path.resolve()
    return (Path(source).parent.name, Path(source).name) in {(folder, file.path.name),
                                                             (resolved.parent.name, resolved.name)}


def _earlier_version(file: _File, folder: str, runs_read_from: Callable[[str], list[tuple]],
                     run_queries: Callable[[int], frozenset]) -> tuple | None:
    """(run_id, name, system) of the first stored run read from a file of this file's name in a
    folder of its folder's name (as placed, or as its links resolve), in a system of the folder's
    name (the folder names the system: BM25/trec_results_covid.txt) or, in a night's folder, of the
    file's short name (a collection's folder, the file names the system: nights/2026-11-02/covid/
    BM25.txt after BM25.covid, stored beside BM25.dl21), that answers the same queries (one
    collection), else None. Outside nights a collection's folder leaves the file to the file rule,
    whose name is the system's (BM25). A run read from this very file (its resolved path) is its
    earlier version whatever its system: a walk's f/run.dl19.BM25.txt, stored as BM25 with its
    folder's other file, edited and given alone, was stored as a new run, run.dl19.BM25."""
    resolved = file.path.resolve()
    # a collection's folder names no system: its earlier version is found only within nights,
    # where the folder above says which night the file is of (elsewhere the file rule names it)
    systems = (folder, file.short) if ingest.night_of(ingest.placed_folder(file.path).parent.name) else (folder,)
    for tail in dict.fromkeys([f"/{folder}/{file.path.name}", f"/{resolved.parent.name}/{resolved.name}"]):
        for row in runs_read_from(tail):
            if (row[2] in systems or row[3] == str(resolved)) and _one_collection(file.queries, run_queries(row[0])):
                return tuple(row)
    return None


def _other_night_version(file: _File, folder: str, runs_read_from: Callable[[str], list[tuple]],
                         run_queries: Callable[[int], frozenset]) -> tuple[str, str, str] | None:
    """(name this night's run takes, its system, why) from the latest stored run read from a file of
    this file's name in another folder, answering the same queries (one collection), when this
    file's folder is a night (a folder named by a date); else None. That run read from another
    night's folder gives {system}.{night} (its name holds its own night, or is the system's); one
    read from a folder of no date (runs/, as the README ingests a collection's runs) gives
    {name}.{night}: a walk's nightly/2026-01-15/run.dl19.BM25.txt alone after runs/ was
    run.dl19.BM25, a system of its own that history did not follow."""
    if ingest.night_of(folder) is None:
        return None
    earlier = [(name, system or name, Path(source).parent.name)
               for run_id, name, system, source in reversed(runs_read_from(f"/{file.path.name}"))
               if Path(source).parent.name != folder and _one_collection(file.queries, run_queries(run_id))]
    if not earlier or len({system for _, system, _ in earlier}) > 1:
        return None  # none, or runs of several systems (runs/BM25/x.txt, runs/BM25_RM3/x.txt): the file names none
    name, system, source_folder = earlier[0]
    if ingest.night_of(source_folder) is not None:
        return (f"{system}.{folder}", system,
                f"run {name} of system {system}, read before from a file {file.path.name} in the folder of night "
                f"{source_folder}, answers the same queries")
    return (f"{name}.{folder}", system,
            f"run {name} of system {system}, read before from a file {file.path.name} in {source_folder}/, answers "
            "the same queries")


def _later_by_file_time(db: Database, file: _File, run_queries: Callable[[int], frozenset]) -> str | None:
    """What is said of a run dated by its folder, header or --date when its system holds runs of its
    collection (the same queries) dated later only by their files' modification time (a walk: the
    published runs copied in on a December day, then the system's nights of January and February):
    history and the systems table take the latest of those as the system's latest run; the command
    that dates it."""
    if file.date is None or file.date.source == ingest.DATE_FILE_MTIME:
        return None
    run_id = ingest.stored_run(db, file.name)[0]
    system, name = db.run_file("catalog/run_system.sql", {"run_id": run_id}).fetchone()
    queries = file.queries or run_queries(run_id)
    rows = [(later, when) for later_id, later, when in db.run_file(
                "catalog/later_runs_dated_by_file_time.sql",
                {"system": system or name, "run_id": run_id, "after": file.date.value}).fetchall()
            if _one_collection(queries, run_queries(later_id))]
    if not rows:
        return None
    latest, when = rows[0]
    others = f" ({len(rows) - 1} more of its runs likewise)" if len(rows) > 1 else ""
    source = {ingest.DATE_GIVEN: "--date", ingest.DATE_IR_METADATA: "its ir_metadata header",
              ingest.DATE_FOLDER: "its folder's name"}.get(file.date.source, file.date.source)
    return (f"run {file.name} is dated {file.date.value:%Y-%m-%d} (from {source}), but run {latest} of "
            f"system {system or name} is dated {when:%Y-%m-%d} by its file's modification time{others}: history and "
            f"the systems table take {latest} as the system's latest run; "
            f"`{shell_command(['irw', 'edit', 'run', '--date', 'DATE'], [latest])}` dates it")


def _rollback_note(db: Database, file: _File, system: str | None, stored_date: "dt.datetime | None",
                   run_queries: Callable[[int], frozenset], description: str | None = None,
                   parameters: Mapping[str, str] | None = None) -> list[str]:
    """The note of a file whose bytes a stored run holds, dated later than that run (a night's
    folder), when a run of its system answering the same queries is dated between: the night goes
    back to the older run's output (a regression rolled back), which the reports, taking each
    system's latest run, would not show; the command that stores it as the night's run, with the
    description and parameters the batch gave (else the stored run's), as the night's other runs have."""
    if stored_date is None or file.date is None or file.date.value <= stored_date:
        return []
    own = system if system is not None else file.name
    rows = db.run_file("catalog/later_runs_of_system.sql", {"system": own, "run_id": file.existing[0],
                                                            "after": stored_date, "until": file.date.value}).fetchall()
    if not rows:  # the common case, a night unchanged since: one query said it
        return []
    queries = file.queries or run_queries(file.existing[0])
    later = next((row for row in rows if _one_collection(queries, run_queries(row[0]))), None)
    if later is None or later[3] == file.sha:  # the latest holds these bytes: stored as the night's already
        return []

    day = f"{file.date.value:%Y-%m-%d}"
    night = next((name for name in (ingest.placed_folder(file.path).name, ingest.placed_folder(file.path).parent.name)
                  if ingest.night_of(name) is not None), day)
    command = ["irw", "ingest", "run", str(file.path), "--name", f"{_without_night(file.name)}.{night}", "--system",
               own]
    if file.date.source == ingest.DATE_GIVEN:
        command += ["--date", file.date.value.isoformat()]
    if description is not None:
        command += ["--description", description]
    for key, value in (parameters or {}).items():
        command += ["--param", f"{key}={value}"]
    return [f"{file.path}: these bytes are run {file.name}'s, dated {stored_date:%Y-%m-%d}, but run {later[1]} of "
            f"system {own}, dated {later[2]:%Y-%m-%d}, is later: this file goes back to {file.name}'s output, and "
            f"the reports take {later[1]} as {own}'s latest run; `{shell_join(command)}` stores it as the run of "
            f"{day}"]


def _without_night(name: str) -> str:
    """A run's name without the night a night's version carries at its end (BM25.covid.2026-03-02 ->
    BM25.covid), so that a night going back to that version is offered BM25.covid.NIGHT, not
    BM25.covid.2026-03-02.NIGHT (a regression hunt); a name carrying no night is itself."""
    parts = name.split(".")
    for cut in range(1, len(parts)):
        if ingest.night_of(".".join(parts[cut:])) is not None:
            return ".".join(parts[:cut])
    return name


def stored_lookups(db: Database) -> tuple[Callable[[str], tuple | None], Callable[[int], Answered],
                                           Callable[[int], str | None], Callable[[str], list[tuple]]]:
    """What the naming rule asks of the runs a warehouse holds (_name): stored(name), the stored run
    of that name; run_queries(run_id), what it answers; run_source(run_id), the file it was read
    from; runs_read_from('/FOLDER/FILE'), the runs read from such a file. Each name and run is read
    once."""
    stored_cache: dict[str, tuple | None] = {}

    def stored(run_name: str) -> tuple | None:
        if run_name not in stored_cache:
            stored_cache[run_name] = ingest.stored_run(db, run_name)
        return stored_cache[run_name]

    queries_cache: dict[int, Answered] = {}

    def run_queries(run_id: int) -> Answered:
        if run_id not in queries_cache:
            queries_cache[run_id] = stored_answers(db, run_id)
        return queries_cache[run_id]

    def run_source(run_id: int) -> str | None:
        row = db.run_file("catalog/run_source_path.sql", {"run_id": run_id}).fetchone()
        return row[0] if row else None

    def runs_read_from(tail: str) -> list[tuple]:
        return db.run_file("catalog/runs_read_from_file.sql", {"tail": tail}).fetchall()

    return stored, run_queries, run_source, runs_read_from


def future_date_said(name: str, date: RunDate | None) -> str | None:
    """What is said of a run dated after today (a typo, 2052 for 2025, or a clock ahead): it is
    every later night's run before it, in history and in which run of its system is the latest,
    until that date comes. None for a date up to a day ahead (time zones)."""
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    if date is None or date.value <= now + dt.timedelta(days=1):
        return None
    return (f"run {name} is dated {said_date(date.value)} (from {date.source}), after today ({now:%Y-%m-%d} UTC): history and "
            f"the systems table take it as its system's latest run until then; "
            f"`{shell_command(['irw', 'edit', 'run', '--date', 'DATE'], [name])}` corrects it")


def name_read_files(read: Iterable[tuple[Path, str, frozenset | None, str, str | None]],
                    stored: Callable[[str], tuple | None] = lambda name: None, replace: bool = False,
                    hint: Callable[[], str | None] = lambda: None, *, target: Database | None = None) -> list[_File]:
    """The files of a batch another engine read and checked (Spark, warehouse/engines/spark.py and
    spark_store.py), named by the auto rule as ingest_runs names them: one rule, so that a run
    evaluated there and the same file ingested here are one run. read: (path, tag, the query ids it
    answers, its sha256 or "", the stored run holding its bytes or None) of each file; stored and
    replace as for ingest_runs; target: the warehouse the runs go to, whose stored runs are then
    asked all ingest_runs asks them (stored_lookups: stored included). Two files resolving to one
    name raise as ingest_runs raises (hint: the --name-template that names them apart, where the
    caller takes one)."""
    files = [_File(path, sha=sha, tag=tag, queries=queries, known_as=known_as)
             for path, tag, queries, sha, known_as in read]
    if target is None:
        _name(files, None, "auto", None, stored, replace, held_hint=SPARK_HELD_HINT)
    else:
        stored, run_queries, run_source, runs_read_from = stored_lookups(target)
        _name(files, None, "auto", None, stored, replace, run_queries, run_source, held_hint=SPARK_HELD_HINT,
              runs_read_from=runs_read_from)
    _collisions(files, hint, None)
    if any(f.errors for f in files):
        raise files[0].error if len(files) == 1 else BatchError(_message_lines(files))
    return files


def _resolving_template(files: list[_File], stored: Callable[[str], tuple | None]) -> str | None:
    """The first of _HINT_TEMPLATES that gives every checked file of the batch a name of its own
    that no stored run holds with other bytes; None when none does."""
    checked = [f for f in files if f.tag is not None]
    for template in _HINT_TEMPLATES:
        names = [template.format(**_fields(f)) for f in checked]
        if len(set(names)) == len(names) and all(
                not stored(n) or stored(n)[1] == f.sha for n, f in zip(names, checked)):
            return template
    return None


def _other_collection_clash(file: _File, held_queries: frozenset, named: bool, template: str | None,
                            instead: str | None) -> str:
    """The refusal of a file whose name a stored run of other queries holds (another collection's
    run, as two folders per night of different collections give one name): replacing that run
    would move its name, and drop its scores, to this file's collection, so the way out offered
    first is another name, and --replace is said for what it does."""
    shared = len(file.queries & held_queries)
    rename = ("give it another name with --name" if named or not template
              else _template_hint(template, instead))
    if _collections(file.queries, held_queries) == IDS_ALIKE:  # the ids agree: the documents told them apart
        other = (f"answers {shared} of this file's {len(file.queries)} query ids, but its documents are another "
                 "collection's (one numbering its queries alike, it seems)")
    else:
        other = (f"answers other queries (it shares {shared} of this file's {len(file.queries)}: another "
                 "collection's run, it seems)")
    return (f"{file.path}: run {file.name} already exists and {other}; {rename}; `--replace` would replace "
            "that run and drop every score computed from it")


def _template_hint(template: str | None, instead: str | None) -> str:
    """The hint that names every file apart; instead is the naming option it replaces, if any."""
    if template is None:
        return "rename the files so that their names differ"
    # the folder above names a collection, so the folder names the system, not each run one
    system = " --system '{folder}'" if "{above}" in template else ""
    return (f"pass `--name-template '{template}'{system}` to name every file of the batch apart"
            + (f" (instead of {instead})" if instead else ""))


def _version_hint(db: Database, file: _File, files: list[_File], stored: Callable[[str], tuple | None],
                  suggested: set[str], system: str | None, description: str | None,
                  parameters: Mapping[str, str] | None, run_date: RunDate | None) -> str:
    """The hint for a file whose name by the rule is a stored run's answering the same queries with
    other bytes: a newer version of that run, which history follows only in that run's system. The
    command stores the file beside it, in its system (or the --system given), named by it and the
    date the file is stored with (numbered when that name is taken), with the other options given,
    so that the run is the one this command would have stored; the batch again then finds it stored."""
    kept = system if system is not None else db.run_file(
        "catalog/run_settings.sql", {"run_id": file.existing[0]}).fetchone()[0]
    night = f"{file.date.value:%Y-%m-%d}"
    # a run named by its night already (BM25.covid.2026-01-20, a second file of that night) is numbered,
    # not dated twice
    dated = file.name if file.name.endswith(f".{night}") else f"{file.name}.{night}"
    version, number = dated, 1
    while version in suggested or any(f.name == version for f in files) or stored(version):
        number += 1
        version = f"{dated}.{number}"
    suggested.add(version)
    words = ["irw", "ingest", "run", str(file.path), "--name", version,
             "--system", kept.replace("{", "{{").replace("}", "}}")]  # --system reads braces as a template's
    if run_date is not None:
        words += ["--date", run_date.value.isoformat()]
    if description is not None:
        words += ["--description", description]
    for key, value in (parameters or {}).items():
        words += ["--param", f"{key}={value}"]
    others = any(f is not file and f.tag is not None and not f.known_as for f in files)
    return (f"as both answer the same queries (a new version of that run), store it beside that run, in system "
            f"{shown(kept)}: `{shell_join(words)}`"
            + (", then this command again for the other files" if others else ""))


def _night_of_file(file: _File) -> str | None:
    """The night a file is of: its folder's name, or the folder's above it, where that is a date."""
    folder = ingest.placed_folder(file.path)
    return next((name for name in (folder.name, folder.parent.name) if ingest.night_of(name) is not None), None)


def _by_night(files: list[_File]) -> list[list[_File]]:
    """The batch's files as the nights one by one would take them, when they are of several nights
    (`irw ingest run nightly/*/*/`, a backfill): the files of no night first, then each night's, the
    earliest first, each in the order given; else the batch as one. The auto rule names a night's
    files against the runs the nights before stored (a system's changed file is {name}.{night}, its
    unchanged ones that run, a night going back to older bytes is said), which one pass over every
    night could not see: it named a lone changed file by its short name (covid) and said no rollback."""
    nights: dict[str | None, list[_File]] = {}
    for file in files:
        nights.setdefault(_night_of_file(file), []).append(file)
    if len([night for night in nights if night is not None]) < 2:
        return [files]
    dated = sorted((night for night in nights if night is not None), key=ingest.night_of)
    return ([nights[None]] if None in nights else []) + [nights[night] for night in dated]


def _later_night_refused(exc: IrwError, night: str, result_of: Mapping[int, IngestResult]) -> list[str]:
    """The lines of a refusal in a backfill's later night (_by_night), and last the line saying the
    nights before it were stored by then."""
    stored_before = [result.name for result in result_of.values() if result.status != "unchanged"]
    return [*exc.message_lines(), f"the nights before {night} were stored, night by night (runs "
                                  f"{', '.join(stored_before) or 'none new'}): the same command again, once this is "
                                  "resolved, stores the rest"]


def _nights_apart(files: list[_File]) -> None:
    """Files of several nights given at once that --name-from file or tag gives one name (the auto
    rule takes the nights one by one: _by_night): the earliest night's keeps it, and each later one
    is that run's version of its night, {name}.{night}, as the auto rule names a night's file of a
    stored name (night_version). Every file of such a backfill was refused, each naming all the
    others (a bulk-ingest walk: 120 files, 113 KB)."""
    by_name: dict[str, list[_File]] = {}
    for file in files:
        if file.name is not None and not file.errors:
            by_name.setdefault(file.name, []).append(file)
    for run_name, group in by_name.items():
        nights = [_night_of_file(file) for file in group]
        if len(group) < 2 or None in nights or len(set(nights)) < len(group):
            continue
        dated = sorted(zip(nights, group), key=lambda pair: ingest.night_of(pair[0]))
        first = dated[0][1]
        for night, file in dated[1:]:
            version = f"{run_name}.{night}"
            said = file.note or f"{file.path}: named {run_name}"
            file.note = said.replace(f"named {run_name}", f"named {version}", 1) + (
                f"; {night} is a later night than {first.path}'s, which is run {run_name}, so the file is that "
                f"night's version of it" + (f" (history follows it in system {file.system})" if file.system else ""))
            file.name = version


def _collisions(files: list[_File], hint: Callable[[], str | None], instead: str | None) -> None:
    """Two files of the batch resolving to one run name: both fail, each naming the other."""
    by_name: dict[str, list[_File]] = {}
    for file in files:
        if file.name is not None:
            by_name.setdefault(file.name, []).append(file)
    for run_name, group in by_name.items():
        for file in group if len(group) > 1 else []:
            rest = [str(other.path) for other in group if other is not file]
            # three named: each file of a large clash naming every other one grew as its square (a
            # walk's 120 files, 113 KB of stderr)
            others = ", ".join(rest[:3]) + (f" and {len(rest) - 3:,} more files of this batch" if len(rest) > 3 else "")
            _fail(file, ConflictError(f"{file.path}: would be stored as run {run_name}, as would {others}; "
                                      f"one file of a batch never replaces another: {_template_hint(hint(), instead)}"))


def _tag_systems_note(files: list[_File], result_of: Mapping[int, IngestResult]) -> None:
    """Runs of one folder stored now under their tags (rule 2) are each their own system, as a tag
    names one; when their tags share a prefix (sysA-v1, sysA-v2: a system's versions, perhaps) the
    last one's result says how to put them in the folder's system, which history follows. Said, not
    done: a folder of one collection's runs tagged by their systems (bm25-k1, bm25-rm3) is a layout
    of the same shape."""
    for group in _groups(files).values():
        tagged = [f for f in group if f.name == f.tag and f.note is None and not f.known_as
                  and id(f) in result_of and result_of[id(f)].status == "ingested"]
        prefix = common_prefix([f.tag for f in tagged])
        if len(tagged) < 2 or not prefix:
            continue
        folder = tagged[0].path.parent
        whole = {f.path.resolve() for f in tagged} == {p.resolve() for p in ingest.folder_files(folder)}
        words = ["irw", "ingest", "run", *([str(folder)] if whole else [str(f.path) for f in tagged]),
                 "--system", "{folder}", "--replace"]
        names = [f.name for f in tagged]
        result_of[id(tagged[-1])].messages.append(
            f"{folder}: runs {', '.join(names[:-1])} and {names[-1]} are named by their tags, each its own system, "
            f"and their tags share {prefix!r}: if they are versions of one system, put them in the folder's: "
            f"`{shell_join(words)}` (the same bytes: only their system changes)")


def _message_lines(files: list[_File], later_night: tuple[str, int] | None = None) -> list[str]:
    """Every problem of the files, then what was not stored: nothing, or, in a backfill's later night
    (its name, and how many files it and the nights after it hold), nothing of it or later."""
    failed = [f for f in files if f.errors]
    lines = [line for f in failed for line in f.errors]
    folders = any(f.path.is_dir() for f in failed)
    if later_night is None:
        lines.append(ingest.nothing_stored(len(failed), len(files), folders))
    else:
        night, later = later_night
        lines.append(ingest.nothing_stored(len(failed), len(files), folders, of="that night's ",
                                           said=f"nothing of night {night} or later was stored ({later:,} files)"))
    return lines


def _same_bytes(db: Database, file: _File, replace: bool, system: str | None, description: str | None,
                parameters: Mapping[str, str] | None, run_queries: Callable[[int], frozenset]) -> IngestResult:
    """The result for a file whose bytes the run of its name holds: nothing to do, unless what was
    given with it (system, description, parameters, a --date date) or its date by the rule differs
    from what is stored. With replace the differences are applied in place (the scores stay: the
    bytes are the same) and said; without, those given are said with the option that applies them.
    A date given by --date is kept unless another is given."""
    from warehouse.ingestion.frames import DATE_FRAME
    from warehouse.store import catalog

    result = ingest.unchanged("run", file.name, file.path, file.sha, file.existing)
    old_system, old_description, old_parameters, old_date, old_source = db.run_file(
        "catalog/run_settings.sql", {"run_id": file.existing[0]}).fetchone()
    changes: dict[str, object] = {}
    said: list[str] = []
    if system is not None and system != old_system:
        changes["system"] = system
        said.append(f"its system is now {system}, was {old_system}")
    if description is not None and description != old_description:
        changes["description"] = description
        said.append(f"its description is now {said_value(description)}, was {said_value(old_description)}")
    if parameters and dict(parameters) != dict(old_parameters or {}):
        changes["parameters"] = dict(parameters)
        said.append(f"its parameters are now {said_value(dict(parameters))}, was {said_value(dict(old_parameters or {}))}")
    was = f"{said_date(old_date)} (from {old_source})"
    # a date given, or a data frame's (when it was ingested), is kept unless another is given
    if (old_date, old_source) != (file.date.value, file.date.source) and (
            file.date.source == ingest.DATE_GIVEN or old_source not in (ingest.DATE_GIVEN, DATE_FRAME)):
        changes["date"] = file.date
        said.append(f"its date is now {said_date(file.date.value)} (from {file.date.source}), was {was}")
    if "date" in changes and not replace:
        result.messages += _rollback_note(db, file, old_system, old_date, run_queries,
                                          description if description is not None else old_description,
                                          parameters or old_parameters)
    if not changes:
        return result
    if replace:
        with db.transaction():
            catalog.edit_run(db, file.existing[0], **changes)
        status = "redated" if list(changes) == ["date"] else "updated"
        return IngestResult("run", file.name, str(file.path), status, result.rows, result.queries,
                            [f"{file.path}: run {file.name} already holds {ingest.held_content(file.path)}; "
                             f"{'; '.join(said)}"])
    if "date" in changes and file.date.source == ingest.DATE_GIVEN:
        result.messages.append(f"{file.path}: run {file.name} is dated {was}, not {said_date(file.date.value)}: "
                               "pass --replace to change its date")
    elif "date" in changes and old_source == ingest.DATE_FILE_MTIME and file.date.source != ingest.DATE_FILE_MTIME:
        # a copy's modification time, where a night's folder or a header now dates the same bytes (a
        # walk's published runs, copied in first, then found again in their first night's folder)
        command = shell_command(["irw", "edit", "run", "--date", file.date.value.isoformat()], [file.name])
        result.messages.append(f"{file.path}: run {file.name} is dated {was}, not {said_date(file.date.value)} "
                               f"(from {file.date.source}): `{command}` dates it so (its scores stay)")
    same = "the text is the same" if ingest.is_compressed(file.path) else "the bytes are the same"
    for key, old in (("system", old_system), ("description", old_description), ("parameters", old_parameters)):
        if key in changes:
            result.messages.append(f"{file.path}: run {file.name} has {key} {said_value(old)}, not {said_value(changes[key])}: pass "
                                   f"--replace to change it ({same}: its scores stay)")
    return result


def ingest_runs(db: Database, paths: Iterable[str | os.PathLike[str]], *, name: str | None = None,
                name_from: str = "auto", name_template: str | None = None, system: str | None = None,
                description: str | None = None, parameters: Mapping[str, str] | None = None,
                replace: bool = False, date: str | dt.date | dt.datetime | None = None, folders: bool = True,
                on_step: Callable[[int, int], None] | None = None) -> list[IngestResult]:
    """Ingests run files (and the files of folders, when folders) as one run each, in the order
    given; returns one result per file. Nothing is stored unless every file can be: otherwise
    BatchError lists every problem with its file (a one-file batch raises the file's own error).
    name_template names the runs by fields of each file (TEMPLATE_FIELDS); system may hold the
    same fields. on_step(done, total) follows the progress (each file is checked, then stored)."""
    if name_from not in (*NAME_FROM, TAG_UNLESS_PLACEHOLDER):
        raise UsageError(f"--name-from takes {', '.join(NAME_FROM)}; got {name_from!r}")
    if name_template is not None:
        if name is not None or name_from != "auto":
            raise UsageError("--name-template names the runs, as --name and --name-from do: give one of them")
        check_template(name_template)
    system_template = system is not None and ("{" in system or "}" in system)
    if system_template:
        check_template(system, "--system")
    refuse_bad_run_fields(name=name, system=system, description=description, parameters=parameters)
    run_date = given_date(date) if date is not None else None
    files = _expand(paths, folders)
    if not files:
        raise UsageError("no run files given")
    if name is not None and len(files) > 1:
        raise UsageError(f"--name names one run, and {len(files)} files were given; "
                         "without it each is named by the rule of --name-from")
    total, done = 2 * len(files), 0
    auto = name is None and name_template is None and name_from == "auto"

    def step() -> None:
        nonlocal done
        done += 1
        if on_step:
            on_step(done, total)

    def name_and_store(files: list[_File], result_of: dict[int, IngestResult],
                       later_night: tuple[str, int] | None = None) -> None:
        """Names and stores the checked files of one night (or of a batch of no nights); later_night:
        a backfill's later night's name, and how many files it and the nights after it hold."""
        stored, run_queries, run_source, runs_read_from = stored_lookups(db)

        # the same bytes twice in a batch (a run copied into a second collection's folder) are one
        # run: the later file takes no name, is not stored again, and leaves the naming of the
        # others alone (its queries would make its folder look like several collections); of a
        # file and a link to it, the file is the run
        alike: dict[str, list[_File]] = {}
        for file in files:
            if file.sha and not file.errors:
                alike.setdefault(file.sha, []).append(file)
        for group in alike.values():
            first = next((f for f in group if not f.path.is_symlink()), group[0])
            for file in group:
                if file is not first:
                    file.same_as = first
        everyone, files = files, [f for f in files if f.same_as is None]
        if auto:
            _known_queries(db, files)
        _name(files, name, name_from, name_template, stored, replace, run_queries, run_source,
              runs_read_from=runs_read_from,
              alike=[f for f in everyone if f.same_as is not None  # an earlier night's file, not a copy beside it
                     and ingest.placed_folder(f.same_as.path) != ingest.placed_folder(f.path)])
        if not auto and name is None and name_template is None:
            _nights_apart(files)
        for file in files:
            why = name_problem(file.name) if file.name is not None else None
            if why:
                _fail(file, UsageError(f"{file.path}: its run name '{shown(file.name)}' {why}; name it with --name"))
                file.name = None
        found: list[str | None] = []

        def hint() -> str | None:  # looked for only when an error needs it
            if not found:
                found.append(None if name is not None else _resolving_template(files, stored))
            return found[0]

        def system_of(file: _File) -> str | None:
            if system is None:
                return None
            return system.format(**_fields(file)) if system_template else system

        suggested: set[str] = set()  # the names version hints gave, one per file
        instead = (f"--name-template {name_template!r}" if name_template is not None
                   else f"--name-from {name_from}" if name_from in ("tag", "file") else None)
        _collisions(files, hint, instead)
        for file in files:
            if file.name is None or file.errors:
                continue
            if not file.name.strip():
                _fail(file, UsageError(f"{file.path}: --name-template {name_template!r} gives it an empty name"))
                continue
            file.existing = stored(file.name)
            if file.existing and file.existing[1] != file.sha and not replace:
                held_queries = run_queries(file.existing[0])
                relation = _collections(file.queries, held_queries)
                if file.queries and held_queries and relation != ONE_COLLECTION:
                    _fail(file, ConflictError(_other_collection_clash(file, held_queries, name is not None, hint(),
                                                                      instead)))
                    continue
                version = (_version_hint(db, file, files, stored, suggested, system_of(file), description,
                                         parameters, run_date)
                           if auto and relation == ONE_COLLECTION else None)
                other = (", or give another name with --name" if name is not None else f", or, {version}" if version
                         else f", or {_template_hint(hint(), instead)}" if hint() else "")
                _fail(file, ConflictError(
                    f"{file.path}: run {file.name} already exists with different content; pass `--replace` to "
                    "replace it and every score computed from it" + other))
        if any(f.errors for f in everyone):
            if len(everyone) == 1:
                raise everyone[0].error
            raise BatchError(_message_lines(everyone, later_night))

        # a copy after the file it is a copy of, which may come later in the batch (a link first)
        for file in [f for f in everyone if f.same_as is None] + [f for f in everyone if f.same_as is not None]:
            if file.same_as is not None:
                first = result_of[id(file.same_as)]
                result_of[id(file)] = IngestResult(
                    "run", first.name, str(file.path), "unchanged", first.rows, first.queries,
                    [f"{file.path}: {_same(file, file.same_as)} as {file.same_as.path}: one run, {first.name}, "
                     "stored once"])
                step()
                continue
            if file.existing and file.existing[1] == file.sha and file.existing[4]:
                result = _same_bytes(db, file, replace, system_of(file), description, parameters, run_queries)
            else:
                try:
                    if staged != [file.path]:
                        ingest._drop_stage(db.staging)
                        staged.clear()
                        ir_metadata, tags = ingest.stage_run(db.staging, file.path, strict=True, holds=file.holds)
                        ingest.staged_tag(file.path, tags, True)
                    if file.existing and file.existing[1] == file.sha:  # its scores, without its rows
                        result = ingest.store_missing_rows(db, file.path, file.name, file.existing)
                    else:
                        result = ingest.insert_staged_run(
                            db, file.path, file.name, tag=file.tag, sha=file.file_sha or file.sha, text_sha=file.text_sha,
                            ir_metadata=file.ir_metadata,
                            replacing=file.existing, system=system_of(file) or None, rule_system=file.system,
                            description=description, parameters=parameters, run_date=file.date)
                except IrwError as exc:
                    stored_before = [r.name for r in result_of.values() if r.status != "unchanged"]
                    # a file refused now passed the check: it changed since; anything else (a full
                    # disk, a lock) is said as it is
                    cause = (f"{file.path} changed or became unreadable after the batch was checked; "
                             if isinstance(exc, InputFileError) else f"{file.path} was not stored; ")
                    raise BatchError([*exc.message_lines(),
                                      cause + (f"stored before it: {', '.join(stored_before)}" if stored_before
                                               else "nothing was stored")],
                                     stored=list(result_of.values())) from None
                finally:
                    ingest._drop_stage(db.staging)
                    staged.clear()
            if file.note and result.status != "unchanged":
                result.messages.insert(0, file.note)
            if file.known_as and file.known_as != file.name:
                same = "its text is" if ingest.is_compressed(file.path) else "the same bytes are"
                result.messages.append(f"{file.path}: {same} stored as run {file.known_as} too")
            if file.asked:
                result.messages.append(f"{file.path}: kept as run {file.name}, which holds these bytes: not stored "
                                       f"again as {file.asked} (irw rename run renames a run)")
            if result.status != "unchanged" and (later := future_date_said(file.name, file.date)):
                result.messages.append(f"{file.path}: {later}")
            if result.status in ("ingested", "replaced") and (later := _later_by_file_time(db, file, run_queries)):
                result.messages.append(f"{file.path}: {later}")
            result_of[id(file)] = result
            step()

    staged: list[Path] = []  # the file whose stage is in place, if any
    try:
        # check: the last file first, so that the stage left in place is the first file's
        for file in reversed(files):
            if not file.errors:
                try:
                    _check(db, file, staged)
                    file.date = run_date or ir_metadata_date(file.path, file.ir_metadata) or ingest.file_date(file.path)
                except IrwError as exc:
                    _fail(file, exc)
            step()
        result_of: dict[int, IngestResult] = {}
        nights = _by_night(files) if auto else [files]
        if len(nights) > 1 and any(f.errors for f in files):  # a bad file of any night stores no night
            raise BatchError(_message_lines(files))
        for number, night_files in enumerate(nights):
            if number:
                for file in night_files:  # an earlier night's bytes are its run now, as night by night
                    _known(db, file, file.sha)
            night = _night_of_file(night_files[0])
            try:
                name_and_store(night_files, result_of,
                               (night, sum(len(group) for group in nights[number:])) if number else None)
            except IrwError as exc:
                if not number:
                    raise
                raise BatchError(_later_night_refused(exc, night, result_of),
                                 stored=[result_of[id(f)] for f in files if id(f) in result_of]) from None
        if auto and system is None:
            _tag_systems_note(files, result_of)
        return [result_of[id(file)] for file in files]
    finally:
        ingest._drop_stage(db.staging)
