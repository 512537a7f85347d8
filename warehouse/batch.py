"""Batches of run files: each file one run, named by one deterministic rule, dated, and the whole
batch checked before anything is stored.

Real run files share tags (all six TREC DL 2019 passage runs are tagged `rank`, Anserini's runs
`Anserini`), so a tag cannot always be a run's name. The rule (`name_from`):

- "tag": the run tag.
- "file": the file name without its extensions (.gz/.zst/.bz2/.xz, then .txt/.trec/.run/.res/.tsv)
  and without the prefix the batch's file names share, cut after a separator (. _ - or space):
  run.dl19.BM25.txt and run.dl19.BM25_RM3.txt give BM25 and BM25_RM3. One file keeps its whole
  name.
- "auto" (the default): the tag, unless another file of the batch has the same tag, or a stored
  run of that name holds other bytes and replace is off; then the file rule.

Two files resolving to one name is an error naming both: one file of a batch never replaces
another. A stored run holding the same bytes under the resolved name is a no-op (with replace, a
date that differs by the rule below is corrected in place); other bytes are refused unless replace.

Dates (runs.file_created_at, its source in runs.date_source): the date given (`--date`), else the
`date:` key at the top level of the file's ir_metadata header, else the file's modification time.

Every file is validated (sql/ingest, through ingest.stage_run) before the first run is stored; a
file whose bytes a stored run holds was validated when it was stored and is not read again.
Staging happens outside any transaction (DuckDB aborts a transaction on any error, and the column
reader's fallback to line mode is such an error), so each run is then stored in a transaction of
its own. The file staged last in the check is the first stored, so a one-file batch reads its file
once.
"""
from __future__ import annotations

import datetime as dt
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from .escaping import name_problem, shown
from . import ingest
from .db import Database
from .errors import BatchError, ConflictError, InputFileError, IrwError, Problem, UsageError
from .ingest import IngestResult, RunDate

NAME_FROM = ("auto", "file", "tag")
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


def given_date(value: str | dt.date | dt.datetime) -> RunDate:
    """The date a user gave (`--date`, or date= in Python) as a RunDate; a bad value is a UsageError
    that shows the format."""
    if isinstance(value, dt.datetime):
        parsed = value.astimezone(dt.timezone.utc).replace(tzinfo=None) if value.tzinfo else value
    elif isinstance(value, dt.date):
        parsed = dt.datetime(value.year, value.month, value.day)
    else:
        parsed = parse_iso_date(str(value))
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
    sha: str = ""
    holds: dict | None = None
    tag: str | None = None
    ir_metadata: str | None = None
    known_as: str | None = None  # a stored run holding these bytes (validated when it was stored)
    date: RunDate | None = None
    name: str | None = None
    note: str | None = None  # why the name is not the tag, in auto mode
    existing: tuple | None = None  # stored_run() of the name
    errors: list[str] = field(default_factory=list)
    error: IrwError | None = None  # the first error, raised as is when the batch is one file


def _fail(file: _File, error: IrwError) -> None:
    file.error = file.error or error
    file.errors.extend(str(error).splitlines())


def _expand(paths: Iterable[str | os.PathLike[str]], folders: bool) -> list[_File]:
    """The batch's files in the order given, a folder's files (not hidden, not in subfolders) in
    name order; a file given twice is one file."""
    files, seen = [], set()

    def add(path: Path) -> None:
        key = path.resolve() if path.exists() else path
        if key not in seen:
            seen.add(key)
            files.append(_File(path))

    for raw in paths:
        path = Path(raw)
        if folders and path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            if not inside:
                failed = _File(path)
                _fail(failed, InputFileError([Problem(str(path), 0, "a folder without run files")]))
                files.append(failed)
            for child in inside:
                add(child)
        else:
            add(path)
    return files


def _check(db: Database, file: _File, staged: list[Path]) -> None:
    """Reads what naming and dating need: sha256, tag, ir_metadata. A file no stored run holds is
    staged, which validates it; staged records the file whose stage is left in place."""
    scan = ingest.read_input(file.path)  # says what a path that is not a readable file is
    file.sha, file.holds = scan.sha256, scan.holds
    known = db.fetchone("select name, tag, ir_metadata from runs where sha256 = ? order by run_id limit 1",
                        [file.sha])
    if known:
        file.known_as, file.tag, file.ir_metadata = known
        return
    ingest._drop_stage(db.staging)
    staged.clear()
    ir_metadata, tags = ingest.stage_run(db.staging, file.path, strict=True, holds=scan.holds)
    staged.append(file.path)
    file.tag, file.ir_metadata = ingest.staged_tag(file.path, tags, True), ir_metadata


def _name(files: list[_File], name: str | None, name_from: str, stored: Callable[[str], tuple | None],
          replace: bool) -> None:
    """Gives every checked file its run name (the rule in the module docstring)."""
    prefix = common_prefix([run_file_stem(f.path) for f in files])
    tag_count = Counter(f.tag for f in files if f.tag is not None)
    for file in files:
        if file.tag is None:
            continue
        from_file = run_file_stem(file.path)[len(prefix):]
        if name is not None:
            file.name = name
        elif name_from == "tag":
            file.name = file.tag
        elif name_from == "file":
            file.name = from_file
        elif tag_count[file.tag] > 1:
            file.name = from_file
            file.note = (f"{file.path}: named {from_file} from its file name: its tag {file.tag} is shared by "
                         f"{tag_count[file.tag]} files of this batch")
        else:
            taken = stored(file.tag)
            if taken and taken[1] != file.sha and not replace:
                file.name = from_file
                file.note = (f"{file.path}: named {from_file} from its file name: run {file.tag} (its tag) holds "
                             "other content (--replace replaces it, --name names the run)")
            else:
                file.name = file.tag


def _collisions(files: list[_File], name_from: str) -> None:
    """Two files of the batch resolving to one run name: both fail, each naming the other."""
    by_name: dict[str, list[_File]] = {}
    for file in files:
        if file.name is not None:
            by_name.setdefault(file.name, []).append(file)
    advice = ("rename the files, or ingest them one at a time with --name" if name_from == "file"
              else "pass --name-from file to name them by their file names")
    for run_name, group in by_name.items():
        for file in group if len(group) > 1 else []:
            others = ", ".join(str(other.path) for other in group if other is not file)
            _fail(file, ConflictError(f"{file.path}: would be stored as run {run_name}, as would {others}; "
                                      f"one file of a batch never replaces another: {advice}"))


def _message_lines(files: list[_File]) -> list[str]:
    failed = [f for f in files if f.errors]
    lines = [line for f in failed for line in f.errors]
    lines.append(f"nothing was stored: {len(failed)} of {len(files)} files cannot be ingested as they are")
    return lines


def _same_bytes(db: Database, file: _File, replace: bool) -> IngestResult:
    """The result for a file whose bytes the run of its name holds: nothing to do, unless its date
    by the rule differs from the stored one. With replace the date is corrected in place (the
    scores stay: the bytes are the same); without, a date given that differs is said."""
    result = ingest.unchanged("run", file.name, file.path, file.sha, file.existing)
    stored_date, stored_source = db.fetchone("select file_created_at, date_source from runs where run_id = ?",
                                             [file.existing[0]])
    if (stored_date, stored_source) == (file.date.value, file.date.source):
        return result
    was = f"{stored_date} (from {stored_source})"
    if replace:
        with db.transaction():
            db.execute("update runs set file_created_at = ?, date_source = ? where run_id = ?",
                       [file.date.value, file.date.source, file.existing[0]])
        return IngestResult("run", file.name, str(file.path), "redated", result.rows, result.queries,
                            [f"{file.path}: run {file.name} already holds these bytes; its date is now "
                             f"{file.date.value} (from {file.date.source}), was {was}"])
    if file.date.source == ingest.DATE_GIVEN:
        result.messages.append(f"{file.path}: run {file.name} is dated {was}, not {file.date.value}: "
                               "pass --replace to change its date")
    return result


def ingest_runs(db: Database, paths: Iterable[str | os.PathLike[str]], *, name: str | None = None,
                name_from: str = "auto", system: str | None = None, description: str | None = None,
                parameters: Mapping[str, str] | None = None, replace: bool = False,
                date: str | dt.date | dt.datetime | None = None, folders: bool = True,
                on_step: Callable[[int, int], None] | None = None) -> list[IngestResult]:
    """Ingests run files (and the files of folders, when folders) as one run each, in the order
    given; returns one result per file. Nothing is stored unless every file can be: otherwise
    BatchError lists every problem with its file (a one-file batch raises the file's own error).
    on_step(done, total) follows the progress (each file is checked, then stored)."""
    if name_from not in NAME_FROM:
        raise UsageError(f"--name-from takes {', '.join(NAME_FROM)}; got {name_from!r}")
    for option, value in (("--name", name), ("--system", system)):
        why = name_problem(value) if value is not None else None
        if why:
            raise UsageError(f"the run's {option} '{shown(value)}' {why}: give it a name of visible text")
    texts = [("--description", description)] + [("--param", f"{k}={v}") for k, v in (parameters or {}).items()]
    for option, value in texts:
        if isinstance(value, str) and name_problem(value) == "is not UTF-8 text":
            raise UsageError(f"the run's {option} '{shown(value)}' is not UTF-8 text")
    run_date = given_date(date) if date is not None else None
    files = _expand(paths, folders)
    if not files:
        raise UsageError("no run files given")
    if name is not None and len(files) > 1:
        raise UsageError(f"--name names one run, and {len(files)} files were given; "
                         "without it each is named by the rule of --name-from")
    total, done = 2 * len(files), 0

    def step() -> None:
        nonlocal done
        done += 1
        if on_step:
            on_step(done, total)

    staged: list[Path] = []  # the file whose stage is in place, if any
    try:
        # check: the last file first, so that the stage left in place is the first file's
        for file in reversed(files):
            if not file.errors:
                try:
                    _check(db, file, staged)
                    file.date = run_date or ir_metadata_date(file.path, file.ir_metadata) \
                        or ingest.file_mtime_date(file.path)
                except IrwError as exc:
                    _fail(file, exc)
            step()
        stored_cache: dict[str, tuple | None] = {}

        def stored(run_name: str) -> tuple | None:
            if run_name not in stored_cache:
                stored_cache[run_name] = ingest.stored_run(db, run_name)
            return stored_cache[run_name]

        _name(files, name, name_from, stored, replace)
        for file in files:
            why = name_problem(file.name) if file.name is not None else None
            if why:
                _fail(file, UsageError(f"{file.path}: its run name '{shown(file.name)}' {why}; name it with --name"))
                file.name = None
        _collisions(files, name_from)
        for file in files:
            if file.name is None or file.errors:
                continue
            file.existing = stored(file.name)
            if file.existing and file.existing[1] != file.sha and not replace:
                _fail(file, ConflictError(
                    f"{file.path}: run {file.name} already exists with different content; pass --replace to replace "
                    "it and every score computed from it, or name the run otherwise (--name, --name-from)"))
        if any(f.errors for f in files):
            if len(files) == 1:
                raise files[0].error
            raise BatchError(_message_lines(files))

        results = []
        for index, file in enumerate(files):
            if file.existing and file.existing[1] == file.sha and file.existing[4]:
                result = _same_bytes(db, file, replace)
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
                            db, file.path, file.name, tag=file.tag, sha=file.sha, ir_metadata=file.ir_metadata,
                            replacing=file.existing, system=system, description=description,
                            parameters=parameters, run_date=file.date)
                except IrwError as exc:
                    stored_before = [r.name for r in results if r.status != "unchanged"]
                    # a file refused now passed the check: it changed since; anything else (a full
                    # disk, a lock) is said as it is
                    cause = (f"{file.path} changed or became unreadable after the batch was checked; "
                             if isinstance(exc, InputFileError) else f"{file.path} was not stored; ")
                    raise BatchError([*str(exc).splitlines(),
                                      cause + (f"stored before it: {', '.join(stored_before)}" if stored_before
                                               else "nothing was stored")]) from None
                finally:
                    ingest._drop_stage(db.staging)
                    staged.clear()
            if file.note and result.status != "unchanged":
                result.messages.insert(0, file.note)
            if file.known_as and file.known_as != file.name:
                result.messages.append(f"{file.path}: the same bytes are stored as run {file.known_as} too")
            results.append(result)
            step()
        return results
    finally:
        ingest._drop_stage(db.staging)
