"""What the warehouse holds, and removing it with everything derived from it."""
from __future__ import annotations

import difflib
import re
import fnmatch
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from warehouse.engines.duckdb import Database
from warehouse.errors import ConflictError, NotFoundError, UsageError
from warehouse.formats.cells import listed_name, said_name
from warehouse.formats.escaping import name_problem

def run_ids(db: Database, names, qrels: str | None = None, *, runs_command: str = "irw runs") -> dict[str, int]:
    """name -> run_id for each name, in the order given; a name not stored is an error (naming, for
    a system's name, its runs that qrels judges when the command has qrels; runs_command is the
    command that lists db's runs, as unknown_run says it)."""
    names = list(names)
    ids = dict(db.run_file("catalog/run_ids.sql", {"names": names}).fetchall())
    for name in names:
        if name not in ids:
            raise unknown_run(db, name, qrels, runs_command=runs_command)
    return {name: ids[name] for name in names}


def runs_changed(db: Database, ids: dict[str, int]) -> list[str]:
    """The runs of ids (name -> run_id, as read earlier) no longer stored under that id: removed,
    replaced or renamed since, by another writer."""
    now = dict(db.run_file("catalog/run_ids.sql", {"names": list(ids)}).fetchall())
    return [name for name, run_id in ids.items() if now.get(name) != run_id]


def unknown_run(db: Database, name: str, qrels: str | None = None, *, runs_command: str = "irw runs") -> NotFoundError:
    """The error for a run name no stored run has, saying what the user likely meant: a system's
    name (in a warehouse of several collections, BM25 has the runs BM25.covid, BM25.news ...: with
    qrels, the ones it judges), else stored names close to it. runs_command lists db's runs: `irw
    copy` names its --from warehouse there, which is not the --db a bare `irw runs` reads."""
    runs = [row[0] for row in db.run_file("catalog/system_runs.sql", {"system": name}).fetchall()]
    if runs:
        judged = _judged_runs_of_system(db, name, qrels) if qrels is not None else []
        which = (f", those qrels {listed_name(qrels)} judges ({_listed(judged, 'run')})" if judged
                 else f" ({_listed(runs, 'run')})")
        return NotFoundError(f"no run named {said_name(name)}: {listed_name(name)} is a system; name one of its "
                             f"runs{which}")
    if db.run_file("catalog/qrels_set_id.sql", {"name": name}).fetchone() is not None:
        from warehouse.formats.escaping import shell_word

        return NotFoundError(f"no run named {said_name(name)}: {listed_name(name)} is a qrels set; choose it as the "
                             f"qrels set (--qrels {shell_word(name)}), and runs by their names; `{runs_command}` lists "
                             "them")
    names = [row[0] for row in db.run_file("catalog/run_names.sql").fetchall()]
    if qrels is None and is_pattern(name):  # select_runs takes patterns; the commands calling run_ids take names
        matching = [run for run in names if fnmatch.fnmatchcase(run, name)]
        return NotFoundError(f"no run named {said_name(name)}: this command takes run names, not patterns"
                             + (f"; it matches {_listed(matching, 'run')}" if matching else ""))
    close = close_names(name, names)
    if close:
        return NotFoundError(f"no run named {said_name(name)}; did you mean {_either(close)}? "
                             f"`{runs_command}` lists the stored runs")
    return NotFoundError(f"no run named {said_name(name)}; `{runs_command}` lists the stored runs")


def _judged_runs_of_system(db: Database, system: str, qrels: str) -> list[str]:
    """The stored runs of a system that qrels judges (none: [])."""
    try:
        return list(select_runs(db, None, systems=[system], qrels=qrels))
    except NotFoundError:  # qrels judges none of them
        return []


def run_id(db: Database, name: str) -> int:
    return run_ids(db, [name])[name]


def _other_numbers(name: str, other: str) -> bool:
    """Whether two names differ only in the value of their numbers, digit for digit (dl21, dl22;
    run-2024, run-2025): another year or version. Digits swapped (dl91 for dl19), dropped or
    doubled (dl2, dl211 for dl21) are a misspelling."""
    digits = [re.findall(r"\d", text) for text in (name, other)]
    return (name.casefold() != other.casefold()
            and re.sub(r"\d", "0", name.casefold()) == re.sub(r"\d", "0", other.casefold())
            and sorted(digits[0]) != sorted(digits[1]))


def close_names(name: str, names: Sequence[str]) -> list[str]:
    """The stored names a mistyped one likely meant: the same name in another letter case (bm25 for
    BM25), else up to three close to it, letter case aside."""
    same = [stored for stored in names if stored.casefold() == name.casefold()]
    if same:
        return same
    folded: dict[str, str] = {}
    for stored in names:
        folded.setdefault(stored.casefold(), stored)
    return [folded[close] for close in difflib.get_close_matches(name.casefold(), list(folded), n=3, cutoff=0.75)]


def systems_in_other_case(db: Database, run_ids_: Iterable[int]) -> dict[int, str]:
    """A note (by run_id) for each of these runs whose system differs from another stored system only in letter
    case (bm25 and BM25): two systems, each with a history of its own, which `--system bm25` was
    likely not meant to make. The stored systems are read once, however many runs."""
    systems = [other for (other,) in db.run_file("catalog/systems.sql").fetchall()]
    notes = {}
    for run_id_ in run_ids_:
        system, name = db.run_file("catalog/run_system.sql", {"run_id": run_id_}).fetchone()
        own = system if system is not None else name
        twins = [other for other in systems if other != own and other.casefold() == own.casefold()]
        if twins:
            from warehouse.formats.escaping import shell_command

            notes[run_id_] = (f"run {listed_name(name)}: its system {listed_name(own)} differs from the stored system "
                              f"{listed_name(twins[0])} only in letter case, so they are two systems (each with "
                              f"a history of its own); to put the run in {listed_name(twins[0])}: "
                              f"{shell_command(['irw', 'edit', 'run', '--system', twins[0]], [name])}")
    return notes


def run_name(db: Database, run_id_: int) -> str:
    """The name a user knows a run by (runs.run_id is the warehouse's own key)."""
    row = db.run_file("catalog/run_system.sql", {"run_id": run_id_}).fetchone()
    return row[1] if row else str(run_id_)


def qrels_set_id(db: Database, name: str) -> int:
    row = db.run_file("catalog/qrels_set_id.sql", {"name": name}).fetchone()
    if row is None:
        stored = [r[0] for r in db.run_file("catalog/qrels_set_names.sql").fetchall()]
        close = close_names(str(name), stored)
        # dl21 for dl22, robust04 for robust05: another year's or version's judgments, never a
        # spelling of the name; offered, they judge a collection's runs with another's qrels
        numbered = [other for other in close if _other_numbers(str(name), other)]
        close = [other for other in close if other not in numbered]
        hint = (f"did you mean {_either(close)}? " if close
                else f"the only stored set is {listed_name(stored[0])}; " if len(stored) == 1 and not numbered else "")
        if numbered:
            from warehouse.formats.escaping import shell_word

            named_after = [run for (run,) in db.run_file("catalog/run_names.sql").fetchall()
                           if str(name) in run.split(".")]
            after = ""
            if named_after:
                count = len(named_after)
                after = (f"; {count:,} stored {'run is' if count == 1 else 'runs are'} named after it ("
                         f"{', '.join(map(listed_name, named_after[:SHOWN]))}{', ...' if count > SHOWN else ''})")
            hint += (f"the stored {_either(numbered)} differs from it only in numbers (another year's or version's "
                     f"judgments, not a spelling of it){after}: ingest its own qrels with `irw ingest qrels FILE --name "
                     f"{shell_word(str(name))}`; ")
        if db.run_file("catalog/run_ids.sql", {"names": [name]}).fetchone() is not None:
            raise NotFoundError(f"no qrels set named {said_name(name)}: {listed_name(name)} is a run, not a qrels "
                                f"set; {hint}`irw qrels` lists the stored sets")
        raise NotFoundError(f"no qrels set named {said_name(name)}; {hint}`irw qrels` lists the stored sets")
    return row[0]


def qrels_name(db: Database, name: str | None, runs: "str | Sequence[str] | None" = None,
               systems: "str | Sequence[str] | None" = None, baseline: str | None = None) -> str:
    """The qrels set a command means: the one named; else the only one stored; else, of several,
    the only one judging the runs the command chose (names, patterns, systems: select_runs; none
    chosen: every stored run), as `irw runs` shows it in judged_by: a warehouse of several
    collections evaluates `BM25.covid` without `--qrels covid`. Where several sets judge them (two
    versions of a collection's qrels) it is an error saying which, so its hint (`--qrels X`)
    resolves it. A baseline that is a stored run's name counts as a run named with runs (the set
    must judge it too)."""
    if name is not None:
        return name
    if (baseline is not None and runs and not systems and not isinstance(runs, RunSelection)
            and db.run_file("catalog/run_named.sql", {"name": baseline}).fetchone() is not None):
        runs = list(dict.fromkeys([*([runs] if isinstance(runs, str) else runs), baseline]))
    names = [row[0] for row in db.run_file("catalog/qrels_set_names.sql").fetchall()]
    if len(names) == 1:
        return names[0]
    if not names:
        raise NotFoundError("no qrels set is stored; ingest one with `irw ingest qrels FILE --name NAME`")
    if (baseline is not None and not runs and not systems
            and db.run_file("catalog/run_named.sql", {"name": baseline}).fetchone() is not None):
        # every stored run against a baseline (`irw compare --baseline BM25.news`): the set judging it,
        # which leaves out the runs it does not judge
        judging = judging_qrels(db, [baseline])
        if len(judging) == 1:
            return judging[0][0]
        if len(judging) > 1:
            raise UsageError(_qrels_choices(judging, 1, f"the baseline {listed_name(baseline)}"))
    message = (f"name the qrels set with --qrels: this warehouse holds {len(names)} "
               f"({', '.join(map(listed_name, names))})")
    if runs or systems:
        chosen = select_runs(db, runs, systems=systems)
        rows = _judging_qrels_rows(db, list(chosen))
        judging = [(qrels, count) for qrels, count, _names in rows]
        unjudged = _unjudged_named_runs(db, runs, chosen, judging)
        if unjudged:  # no --qrels can help: the hint would lead to "has no query judged in qrels"
            raise UsageError(_judged_by_none(chosen, unjudged, judging))
        named = _named_outright(runs, chosen)
        if len(named) > 1:
            outright = set(named)
            by_set = {qrels: judged for qrels, _count, names in rows
                      if (judged := [name for name in names if name in outright])}
            if by_set and max(map(len, by_set.values())) < len(named):  # each `--qrels X` leaves one unjudged
                raise UsageError(_named_runs_apart(named, by_set))
        if len(judging) == 1:  # what the hint would say to add; the runs it does not judge are left out, as with it
            return judging[0][0]
        hint = _judging_qrels(chosen, judging, names)
        # no set judges them: no --qrels helps, so that is said first (a walk read "name the qrels set")
        raise UsageError(hint if not judging else f"{message}; {hint}")
    stored = [row[0] for row in db.run_file("catalog/run_names.sql").fetchall()]
    judging = judging_qrels(db, stored) if stored else []
    if len(judging) == 1:
        return judging[0][0]
    if not judging:  # no run yet, or none judged: the sets are all there is to say
        raise UsageError(message)
    # every stored run, none chosen: which set judges how many of them, as for runs chosen
    said = f"the {len(stored):,} stored runs" if len(stored) > 1 else f"run {listed_name(stored[0])} (the one stored)"
    raise UsageError(f"{message}; {_qrels_choices(judging, len(stored), said)}")


@dataclass(frozen=True)
class JudgingSplit:
    """The runs a command chose, each with the one stored qrels set judging it: `irw eval` without
    --qrels evaluates each set's runs against it (Warehouse.evaluate_each), one table where there
    are several sets (runs of several collections)."""

    by_set: Mapping[str, tuple[str, ...]]  # qrels set -> the runs it judges, in the order chosen
    left_out: tuple[str, ...] = ()  # chosen by pattern, system or default, and judged by no stored set
    every: bool = True              # no name, pattern or system was given: every stored run was chosen

    def notes(self) -> list[str]:
        """The lines a command prints on stderr (after `# `) for the runs left out."""
        if not self.left_out:
            return []
        count = len(self.left_out)
        return [f"{count:,} {'stored' if self.every else 'matching'} run{'' if count == 1 else 's'} left out: no "
                f"stored qrels set judges a query of {'it' if count == 1 else 'theirs'} ({_names_and(self.left_out)})"]


def judging_split(db: Database, runs: "str | Sequence[str] | None" = None,
                  systems: "str | Sequence[str] | None" = None) -> JudgingSplit | None:
    """The runs runs and systems choose (select_runs; none: every stored run) split by the one
    stored qrels set judging each (the judging rule of `irw runs`' judged_by): one set, the one
    qrels_name takes, or several. None where qrels_name is to decide or say what to do: fewer than
    two sets are stored, none judges the runs, a run is judged by several (versions of one
    collection's qrels: name one), or a run named outright is judged by none."""
    if len(db.run_file("catalog/qrels_set_names.sql").fetchall()) < 2:
        return None
    chosen = select_runs(db, runs, systems=systems)
    rows = _judging_qrels_rows(db, list(chosen))
    if not rows:
        return None
    judged_by: dict[str, list[str]] = {}
    for qrels, _count, names in rows:
        for name in names:
            judged_by.setdefault(name, []).append(qrels)
    several = {name: sets for name, sets in judged_by.items() if len(sets) > 1}
    if several and len({tuple(sets) for sets in judged_by.values()}) > 1:
        # some runs judged by one set, these by several (versions of one collection's qrels): said of
        # these, where qrels_name's error spoke of every run and every set
        raise UsageError(_judged_by_several(several))
    if several:
        return None
    if any(name not in judged_by for name in _named_outright(runs, chosen)):
        return None
    by_set: dict[str, list[str]] = {}
    for name in chosen:
        if name in judged_by:
            by_set.setdefault(judged_by[name][0], []).append(name)
    return JudgingSplit({qrels: tuple(names) for qrels, names in by_set.items()},
                        tuple(name for name in chosen if name not in judged_by), chosen.every)


def judging_qrels(db: Database, runs: Sequence[str]) -> list[tuple[str, int]]:
    """(name, how many of runs it judges) of each stored qrels set judging one of runs (exact
    names: sql/catalog/judging_rule.sql), most runs judged first."""
    return [(name, count) for name, count, _names in _judging_qrels_rows(db, runs)]


def judged_runs_by_set(db: Database, runs: Sequence[str]) -> dict[str, list[str]]:
    """{qrels set: the runs (exact names) it judges, by name} of each stored qrels set
    judging one of runs, most runs judged first."""
    return {name: list(names) for name, _count, names in _judging_qrels_rows(db, runs)} if runs else {}


def _judging_qrels_rows(db: Database, runs: Sequence[str]) -> list[tuple]:
    """(name, how many of runs it judges, their names) of each stored qrels set judging one of runs
    (exact names), most runs judged first."""
    db.load_rows("run_selectors", SELECTOR_COLUMNS, [(i, run, None) for i, run in enumerate(runs)])
    return db.run_file("catalog/judging_qrels.sql").fetchall()


def _judging_qrels(chosen: "RunSelection", judging: Sequence[tuple[str, int]], stored: Sequence[str]) -> str:
    """Which stored qrels sets judge the chosen runs (judging: judging_qrels of them), said as the
    hint of qrels_name's error; when none does, stored (the sets there are) is said with it."""
    count = len(chosen)
    runs = f"run {listed_name(chosen[0])}" if count == 1 else f"the {count:,} runs chosen"
    if not judging:
        held = f" (this warehouse holds {len(stored)}: {', '.join(map(listed_name, stored))})"
        return (f"no stored qrels set judges a query of {runs}{held}: ingest {'its' if count == 1 else 'their'} "
                "collection's qrels with `irw ingest qrels FILE --name NAME`, then name it with `--qrels NAME`")
    return _qrels_choices(judging, count, runs)


def _qrels_choices(judging: Sequence[tuple[str, int]], count: int, runs: str) -> str:
    """The `--qrels X` that choose the stored qrels sets judging (name, runs judged) of count runs,
    said as runs ("run BM25", "the 3 runs chosen")."""
    choices = _qrels_options([qrels for qrels, _ in judging])
    if len(judging) == 1:
        (qrels, judged), = judging
        judges = runs if judged == count else f"{judged:,} of {runs}"
        return f"qrels {listed_name(qrels)} judges {judges}: add {choices}"
    if count == 1:  # "of run X, qrels a judges 1 and b 1" said of one run
        return (f"{runs} is judged by {len(judging)} stored qrels sets ({_names_and([q for q, _ in judging])}): "
                f"add {choices}")
    (first, judged), *others = judging
    each = f"qrels {listed_name(first)} judges {judged:,}" + "".join(
        f"{' and' if i == len(others) - 1 else ','} {listed_name(qrels)} {n:,}" for i, (qrels, n) in enumerate(others))
    return f"of {runs}, {each}: add {choices} (`irw runs` shows which qrels sets judge each run)"


def _qrels_options(names: Sequence[str]) -> str:
    """`--qrels a`, `--qrels b` or `--qrels c`: the options a message offers, each as a shell reads it."""
    from warehouse.formats.escaping import shell_word

    options = [f"`--qrels {shell_word(name)}`" for name in names]
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"


def _unjudged_named_runs(db: Database, runs: "str | Sequence[str] | RunSelection | None", chosen: "RunSelection",
                         judging: Sequence[tuple[str, int]]) -> list[str]:
    """The chosen runs named outright (select_runs keeps them whatever --qrels says) that no stored
    qrels set judges a query of, when some set judges another chosen run: with them chosen, every
    `--qrels X` fails ("has no query judged in qrels X"). None when no set judges any chosen run
    (_judging_qrels says so) or when one set judges them all. Read as `irw runs` lists them: a run
    no stored set judges has no judged_by (sql/catalog/runs.sql, on the named runs only)."""
    if not judging or judging[0][1] == len(chosen):
        return []
    named = _named_outright(runs, chosen)
    if not named:
        return []
    judged = {row[0] for row in db.run_file("catalog/runs.sql", {"chosen": True, "names": named}).fetchall()
              if row[-1] is not None}  # name, ..., judged_by
    return [name for name in named if name not in judged]


def _named_outright(runs: "str | Sequence[str] | RunSelection | None", chosen: "RunSelection") -> list[str]:
    """The chosen runs the command named by their exact names (not by a pattern or --system):
    select_runs keeps them whatever --qrels says."""
    if runs is None or isinstance(runs, RunSelection):
        return []
    selectors = set([runs] if isinstance(runs, str) else runs)
    return [name for name in chosen if name in selectors]


def _named_runs_apart(named: Sequence[str], by_set: Mapping[str, Sequence[str]]) -> str:
    """qrels_name's error when the runs named outright are each judged by a stored qrels set but
    no one set judges them all (a collection's run beside another's): every `--qrels X` would
    fail on a run X does not judge, so it says which set judges which run, to be named apart."""
    from warehouse.formats.escaping import shell_word

    each = "; ".join(f"{'qrels ' if i == 0 else ''}{listed_name(qrels)} judges {_names_and(names)}"
                     for i, (qrels, names) in enumerate(by_set.items()))
    first, first_runs = next(iter(by_set.items()))
    alone = ("; runs of different collections are not compared with one another (their queries differ), and "
             "`irw eval` without --qrels evaluates each against its own set"
             if all(len(names) == 1 for names in by_set.values()) else "")
    return (f"no stored qrels set judges all {len(named):,} runs named ({each}), and a command evaluates "
            f"against one qrels set: name the runs of one set at a time, with it (`--qrels {shell_word(first)}` "
            f"with {_names_and(first_runs)}){alone}")


def _judged_by_several(several: Mapping[str, Sequence[str]]) -> str:
    """judging_split's error: runs chosen that several stored qrels sets judge (versions of one
    collection's qrels), beside runs each judged by one."""
    names = list(several)
    sets = list(dict.fromkeys(qrels for judging in several.values() for qrels in judging))
    who = f"run {listed_name(names[0])} is" if len(names) == 1 else f"runs {_names_and(names)} are"
    offered = _qrels_options(sets)
    return (f"{who} judged by {len(sets)} stored qrels sets ({_names_and(sets)}: versions of one collection's "
            f"qrels?), and a run is evaluated against one: evaluate {'it' if len(names) == 1 else 'them'} with "
            f"{offered}, and the other runs apart (each against the set judging it)")


def _names_and(names: Sequence[str]) -> str:
    """Names in a sentence: "BM25", "BM25 and RM3", "a, b and c", the first SHOWN then "and N more"."""
    shown = [*map(listed_name, names[:SHOWN]), *([f"{len(names) - SHOWN:,} more"] if len(names) > SHOWN else [])]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _judged_by_none(chosen: "RunSelection", unjudged: Sequence[str], judging: Sequence[tuple[str, int]]) -> str:
    """qrels_name's error when runs named outright are judged by no stored qrels set while others
    chosen are: no `--qrels` judges them all, so it says to leave those runs out (and which
    `--qrels` then judges the rest) or to store their collection's qrels."""
    one = len(unjudged) == 1
    who = f"run {listed_name(unjudged[0])} is" if one else f"runs {_names_and(unjudged)} are"
    rest = [name for name in chosen if name not in set(unjudged)]
    others = f"run {listed_name(rest[0])}" if len(rest) == 1 else f"the other {len(rest):,} runs"
    it, answers, collection, that = (("it", "it answers", "its collection's", "that collection") if one
                                     else ("them", "they answer", "their collections'", "those collections"))
    return (f"{who} judged by no stored qrels set (none holds a query {answers}), so no `--qrels` judges every run "
            f"chosen: leave {it} out ({_qrels_choices(judging, len(rest), others)}), or ingest {collection} "
            f"qrels with `irw ingest qrels FILE --name NAME` and choose {it} with runs of {that}")


def delete_run(db: Database, run_id_: int) -> None:
    """Deletes a run and its derived rows; the caller holds the transaction."""
    db.run_file("catalog/delete_run.sql", {"run_id": run_id_})


def delete_qrels_set(db: Database, set_id: int) -> None:
    """Deletes a qrels set, its judgments and every evaluation made with it."""
    db.run_file("catalog/delete_qrels_set.sql", {"qrels_set_id": set_id})



# -- choosing runs: names, shell-style patterns, systems, and the qrels set that judges them --------
GLOB_CHARS = frozenset("*?[")
REGEX_SPECIAL = frozenset("\\.^$*+?()[]{}|")
SELECTOR_COLUMNS = [("position", "integer"), ("text", "varchar"), ("regex", "varchar")]
SHOWN = 10  # stored runs or systems an error lists before saying how many more


def is_pattern(text: str) -> bool:
    """Whether a run selector is a shell-style pattern (holds * ? or [) rather than a plain name."""
    return any(c in GLOB_CHARS for c in text)


def glob_regex(pattern: str) -> str:
    """pattern's match as fnmatch.fnmatchcase makes it (* any text, ? one character, [seq] and
    [!seq] one character in or not in seq, an unclosed [ itself; case-sensitive), as an anchored
    regular expression DuckDB (RE2) and PostgreSQL read alike: sql/catalog/select_runs.sql binds it."""
    out, i, n = ["^"], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if out[-1] != ".*":
                out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append("\\[")
                continue
            members, i = pattern[i:j], j + 1
            negate = members.startswith("!")
            if negate:
                members = members[1:]
            # inside the class only \ ^ [ ] are special to both engines; ranges (a-z) stay ranges
            escaped = "".join("\\" + m if m in "\\^[]" else m for m in members)
            out.append(("[^" if negate else "[") + escaped + "]")
        else:
            out.append("\\" + c if c in REGEX_SPECIAL else c)
    out.append("$")
    return "".join(out)


@dataclass(frozen=True)
class RunSelection:
    """The runs a command or report takes (select_runs), in order, and what was left out and why.
    It iterates as the run names, so it goes wherever a list of run names does."""

    names: tuple[str, ...]
    qrels: str | None = None
    left_out: tuple[str, ...] = ()  # runs chosen by pattern, system or default that qrels does not judge
    every: bool = True              # no name, pattern or system was given: the candidates were every stored run
    named_unjudged: tuple[str, ...] = ()  # runs named outright, kept, that qrels does not judge
    # of left_out and named_unjudged, the runs whose query ids qrels judges but not a document they
    # retrieved, which another stored set judges (sql/catalog/judging_rule.sql: two collections
    # numbering their queries alike, as BEIR's trec-covid and webis-touche2020 do)
    other_collection: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, index):
        return self.names[index]

    def notes(self) -> list[str]:
        """The line a command prints on stderr (after `# `) when runs were left out."""
        what = "stored" if self.every else "matching"
        by_queries = [name for name in self.left_out if name not in self.other_collection]
        by_documents = [name for name in self.left_out if name in self.other_collection]
        notes = []
        if by_queries:
            count = len(by_queries)
            notes.append(f"{count:,} {what} run{'' if count == 1 else 's'} left out: no query judged in qrels "
                         f"{listed_name(self.qrels)}")
        if by_documents:
            notes.append(f"{len(by_documents):,} {what} run{'' if len(by_documents) == 1 else 's'} left out: "
                         + _judged_elsewhere(self.qrels, len(by_documents))
                         + "; `irw runs` shows which set judges each run")
        # named outright, kept: its values on qrels are those of a run whose documents are all unjudged
        notes += [f"run {listed_name(name)} is taken as it was named, though "
                  + _judged_elsewhere(self.qrels, 1)
                  + f": its values on {listed_name(self.qrels)} are those of unjudged documents (0 for most measures)"
                  for name in self.named_unjudged if name in self.other_collection]
        return notes


    def listed_notes(self) -> list[str]:
        """The lines (after `# `) a listing of the selection (`irw runs`) adds to notes(): the runs
        named outright that qrels does not judge, kept as named."""
        return [f"run {listed_name(name)} is listed as it was named, but qrels {listed_name(self.qrels)} judges none of "
                "its queries (its judged_by says which sets do)"
                for name in self.named_unjudged if name not in self.other_collection]  # notes() says the others


def _judged_elsewhere(qrels: str | None, count: int) -> str:
    """Why runs whose query ids qrels judges are not its runs, said after "left out: " (count: how
    many runs)."""
    they, them = ("it", "its") if count == 1 else ("they", "their")
    return (f"qrels {listed_name(qrels)} judges {them} query ids but none of the documents {they} retrieved, which "
            "another stored set judges (two collections numbering their queries alike)")


def _either(names: Sequence[str]) -> str:
    return " or ".join(map(listed_name, names))


def _listed(items: Sequence[str], noun: str) -> str:
    shown = ", ".join(map(listed_name, items[:SHOWN]))
    more = f" and {len(items) - SHOWN:,} more" if len(items) > SHOWN else ""
    return f"{len(items):,} {noun}{'' if len(items) == 1 else 's'}: {shown}{more}"


def select_runs(db: Database, runs: "str | Sequence[str] | RunSelection | None" = None, *,
                systems: "str | Sequence[str] | None" = None, qrels: str | None = None) -> RunSelection:
    """The stored runs that runs and systems choose, as eval, compare and every report take them.

    runs: run names and shell-style patterns (fnmatch's * ? [seq] [!seq], case-sensitive; a
    selector that is a stored run's exact name is that run), their matches united in the order
    given (each pattern's in `irw runs` order); None or empty: every stored run. systems: keep only
    the runs of these systems (a run without one is its own system). qrels: a stored qrels set;
    the runs a pattern, a system or the default chose that it does not judge are left out
    (RunSelection.left_out, notes()), while a run named outright is kept (evaluating it then says
    it has no query judged, or that none of its retrieved documents is judged). Which set judges a
    run is sql/catalog/judging_rule.sql. A name, pattern or system that matches no stored run is an error
    saying what is stored, and so is a selection left empty. A RunSelection is returned as it is."""
    if isinstance(runs, RunSelection):
        if systems:
            raise UsageError("runs already selected (a RunSelection) take no systems: pass them to select_runs")
        return runs
    selectors = [runs] if isinstance(runs, str) else list(dict.fromkeys(runs or []))
    wanted_systems = [systems] if isinstance(systems, str) else list(dict.fromkeys(systems or []))
    qrels_id = qrels_set_id(db, qrels) if qrels is not None else -1
    db.load_rows("run_selectors", SELECTOR_COLUMNS,
                 [(i, text, glob_regex(text) if is_pattern(text) else None) for i, text in enumerate(selectors)])
    rows = db.run_file("catalog/select_runs.sql", {"every": not selectors, "qrels_set_id": qrels_id}).fetchall()
    if not rows:
        if db.run_file("catalog/run_count.sql").fetchone()[0] == 0:
            raise NotFoundError("no run is stored; ingest runs with `irw ingest run FILE...`")
    matched = {position for position, *_ in rows}
    for position, text in enumerate(selectors):
        if position in matched:
            continue
        if not is_pattern(text):
            raise unknown_run(db, text, qrels)
        names = [r[0] for r in db.run_file("catalog/run_names.sql").fetchall()]
        raise NotFoundError(f"no stored run matches {said_name(text)} (shell-style and case-sensitive: "
                            "* ? [...]); "
                            f"{_listed(names, 'stored run')}")
    if wanted_systems:
        stored = {r[0] for r in db.run_file("catalog/systems.sql").fetchall()}
        for system in wanted_systems:
            if system not in stored:
                raise NotFoundError(f"no stored run is of system {said_name(system)}; "
                                    f"{_listed(sorted(stored), 'stored system')} "
                                    "(`irw runs` lists each run's system)")
        kept = [r for r in rows if r[2] in wanted_systems]
        if not kept:
            raise NotFoundError(f"none of the runs {'stored' if not selectors else 'named or matched'} is of system "
                                f"{', '.join(map(listed_name, wanted_systems))}: theirs are "
                                f"{', '.join(map(listed_name, sorted({r[2] for r in rows})[:SHOWN]))}")
        rows = kept
    names, left_out, named_unjudged, other_collection = [], [], [], set()
    for position, name, _system, judged, query_judged in rows:
        named = position >= 0 and selectors[position] == name
        (names if judged or named or qrels is None else left_out).append(name)
        if named and not judged and qrels is not None:
            named_unjudged.append(name)
        if query_judged and not judged and qrels is not None:
            other_collection.add(name)
    names = list(dict.fromkeys(names))
    left_out = [name for name in dict.fromkeys(left_out) if name not in names]
    every = not selectors and not wanted_systems
    if not names:
        what = "stored" if every else "matching"
        if len(left_out) == 1:
            why = (f"is not judged by qrels {listed_name(qrels)}: {_judged_elsewhere(qrels, 1)}"
                   if left_out[0] in other_collection else f"has no query judged in qrels {listed_name(qrels)}")
            raise NotFoundError(f"run {listed_name(left_out[0])} {why}: check that run and qrels are "
                                "of the same collection (`irw runs` shows which qrels sets judge each run)")
        elsewhere = [name for name in left_out if name in other_collection]
        judged_how = "is judged by" if elsewhere else "has a query judged in"
        why = ("" if not elsewhere else f"; {_judged_elsewhere(qrels, len(elsewhere))}" if len(elsewhere) == len(left_out)
               else f"; {len(elsewhere):,} of them retrieved none of the documents it judges, which another stored set "
                    f"judges (two collections numbering their queries alike), and the others have no query judged in it")
        raise NotFoundError(f"no {what} run {judged_how} qrels {listed_name(qrels)} "
                            f"({_listed(left_out, 'run')}){why}: check "
                            "that runs and qrels are of the same collection (`irw runs` shows which qrels sets judge "
                            "each run)")
    return RunSelection(tuple(names), qrels, tuple(left_out), every=every,
                        named_unjudged=tuple(dict.fromkeys(named_unjudged)),
                        other_collection=tuple(name for name in dict.fromkeys([*left_out, *named_unjudged])
                                               if name in other_collection))

def require_baseline(db: Database, baseline: str | None, qrels: str) -> None:
    """A baseline that is no stored run's name is a NotFoundError. When it is a system's name (in a
    warehouse of several collections a system has a run per collection), the error names that
    system's runs qrels judges, as the `--baseline RUN` that resolves it."""
    if baseline is None or db.run_file("catalog/run_named.sql", {"name": baseline}).fetchone() is not None:
        return
    if db.run_file("catalog/system_named.sql", {"system": baseline}).fetchone() is None:
        raise unknown_run(db, baseline)
    judged = _judged_runs_of_system(db, baseline, qrels)
    if not judged:
        raise NotFoundError(f"no run named {said_name(baseline)}: {listed_name(baseline)} is a system, and qrels "
                            f"{listed_name(qrels)} judges none of its "
                            "runs; the baseline is a run (`irw runs` lists each run's system)")
    from warehouse.formats.escaping import shell_word

    hints = ", ".join(f"`--baseline {shell_word(name)}`" for name in judged[:SHOWN])
    raise NotFoundError(f"no run named {said_name(baseline)}: {listed_name(baseline)} is a system; the baseline is one "
                        f"of its runs, those qrels {listed_name(qrels)} judges: {hints}")


def edit_run(db: Database, run_id_: int, *, name: str | None = None, system: str | None = None,
             description: str | None = None, parameters=None, date=None) -> None:
    """Changes a stored run's name, system, description, parameters or date (an ingest.RunDate) in
    place; None keeps what is stored. The caller holds the transaction; everything derived from the
    run is keyed by run_id and stays attached."""
    db.run_file("catalog/edit_run.sql", {
        "run_id": run_id_, "name": name, "system": system, "description": description,
        "run_date": date.value if date is not None else None, "date_source": date.source if date is not None else None})
    if parameters is not None:
        db.run_file("catalog/edit_run_parameters.sql", {"run_id": run_id_, "parameters": dict(parameters)})


def refuse_bad_name(kind: str, name: object, given_as: str = "name") -> None:
    """A UsageError when name (of a kind: run, qrels set, prefs set) cannot be stored (name_problem):
    the one rule and wording of ingest's --name and of rename's new name, so neither takes a name
    the other refuses. given_as: how the name was given (an option, as `--name`)."""
    why = name_problem(name)
    if why:
        raise UsageError(f"the {kind}'s {given_as} {said_name(str(name))} {why}: give it another name")


def _new_name(kind: str, old: str, new: str, taken: Callable[[], bool], remove: str) -> None:
    refuse_bad_name(kind, new)  # before taken() looks it up: the engines refuse text that is not UTF-8
    if new == old:
        raise UsageError(f"{kind} {listed_name(old)} is already named {listed_name(new)}")
    if taken():
        from warehouse.formats.escaping import shell_command

        raise ConflictError(f"cannot rename {kind} {listed_name(old)} to {listed_name(new)}: a {kind} named "
                            f"{listed_name(new)} is stored; choose another "
                            f"name, or remove that one first (`{shell_command(remove.split(), [new])}`)")


def rename_run(db: Database, old: str, new: str) -> list[str]:
    """Renames a run (its system stays: `irw edit run --system` changes it). Returns what changed."""
    run_id_ = run_id(db, old)
    _new_name("run", old, new, lambda: db.run_file("catalog/run_named.sql", {"name": new}).fetchone() is not None,
              "irw rm run")
    with db.transaction():
        edit_run(db, run_id_, name=new)
    return [f"renamed run {listed_name(old)} to {listed_name(new)}"]


def rename_qrels_set(db: Database, old: str, new: str) -> list[str]:
    set_id = qrels_set_id(db, old)
    _new_name("qrels set", old, new,
              lambda: db.run_file("catalog/qrels_set_named.sql", {"name": new}).fetchone() is not None, "irw rm qrels")
    with db.transaction():
        db.run_file("catalog/rename_qrels_set.sql", {"qrels_set_id": set_id, "name": new})
    return [f"renamed qrels set {listed_name(old)} to {listed_name(new)}"]
