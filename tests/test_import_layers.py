"""The package's import graph: no cycle, and no layer importing one above it.

The graph is read from the source (ast), every `import` and `from ... import` of a warehouse module,
at a module's top or inside a function alike: an import moved into a function still runs. Only
imports under `if TYPE_CHECKING:` are left out, as they never run (annotations). Importing
warehouse.a.b also runs the package warehouse.a's __init__; the root package's own __init__ imports
nothing but warehouse/version.py eagerly (the rest on first use, PEP 562), so it is not counted there,
nor is a package's own __init__ for a module inside it (it is already running).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "warehouse"

# The layers, lowest first. A module may import modules of its own layer and of the layers below it.
LAYERS: dict[str, tuple[str, ...]] = {
    # values, files and rules every stage uses: errors, output formats, the measures' registry and
    # settings, statistics, the SQL dialects, data frames' columns, charts and paper tables
    "base": ("version", "errors", "resources", "interrupt", "leftovers", "progress", "formats", "evaluation.stats",
             "engines.dialect", "ingestion.frames", "commands.sample", "reports.charts", "reports.paper",
             "evaluation.measures", "evaluation.settings"),
    # the warehouse engines (DuckDB, PostgreSQL; warehouse/engines/__init__.py chooses one) and what reads
    # them directly: the catalog of runs and qrels, the sandboxed ad-hoc SQL
    "engines": ("engines.duckdb", "engines.postgres", "engines", "store.catalog", "store.adhoc"),
    # the stages over an engine: ingest, evaluate, copy and export; and Spark, the engine that runs
    # ingest's and evaluate's rules on a cluster, with what stores its results in a warehouse
    "stages": ("ingestion", "store", "evaluation", "engines.spark", "engines.spark_store"),
    # what is made from a warehouse's scores: comparisons and reports. They are handed the Warehouse
    # that asks for them (Warehouse.compare), named in their annotations only
    "reports": ("reports",),
    # the Python API (warehouse.open, Warehouse), over every layer below
    "api": ("core",),
    # the programs: the irw command, trec-eval's drop-in, the web application, the demo, the package's facade
    "apps": ("commands", "__main__", "serve", ""),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(["warehouse", *parts])] = path
    return found


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(tree: ast.AST):
    """Every Import / ImportFrom node, outside `if TYPE_CHECKING:` blocks."""
    for node in ast.iter_child_nodes(tree):
        if _type_checking(node):
            yield from (n for child in node.orelse for n in _imports_of(child))
            continue
        yield from _imports_of(node)


def _imports_of(node: ast.AST):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    yield from _imports(node)


def _is_ours(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] == "warehouse" for a in node.names)
    return bool(node.level) or (node.module or "").split(".")[0] == "warehouse"


def _graph() -> dict[str, set[str]]:
    modules = _modules()

    def owner(name: str) -> str | None:  # the module a dotted name is, or is in
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    # a package whose __init__ imports nothing of warehouse (a docstring): importing a module inside it
    # runs no other module of ours
    quiet_packages = {name for name, path in modules.items() if path.name == "__init__.py" and name != "warehouse"
                      and not any(_is_ours(node) for node in _imports(ast.parse(path.read_text(encoding="utf-8"))))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.split(".")[0] == "warehouse")
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "warehouse":
                continue
            for alias in node.names:
                targets.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source)
        edges = set()
        for target in targets:
            target = owner(target)
            if target is None:
                continue
            edges.add(target)
            parent = target.rpartition(".")[0]
            # importing a.b.c runs a.b's __init__ (already running for a module inside a.b)
            while parent and parent != "warehouse" and not name.startswith(parent + "."):
                if parent not in quiet_packages:
                    edges.add(parent)
                parent = parent.rpartition(".")[0]
        edges.discard(name)
        graph[name] = edges
    return graph


def _layer(module: str) -> int:
    """The layer of the longest LAYERS entry that is the module or a package holding it."""
    short = module.removeprefix("warehouse").removeprefix(".")
    best: tuple[int, int] | None = None
    for rank, names in enumerate(LAYERS.values()):
        for name in names:
            if short == name or (name and short.startswith(name + ".")):
                if best is None or len(name) > best[0]:
                    best = (len(name), rank)
    if best is not None:
        return best[1]
    raise AssertionError(f"warehouse/{short.replace('.', '/') or '__init__'}.py is in no layer: add it to LAYERS in "
                         f"{Path(__file__).name}")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as a cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(_cycle_through(graph, set(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _cycle_through(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One cycle inside a component, as a path a -> b -> ... -> a (breadth-first from its first module)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & component):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    return sorted(component)


def test_every_module_has_a_layer():
    for module in _modules():
        _layer(module)


def test_no_import_cycle():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles in warehouse/: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_layer_imports_one_above_it():
    names = list(LAYERS)
    wrong = [f"{a} ({names[_layer(a)]}) imports {b} ({names[_layer(b)]})"
             for a, targets in sorted(_graph().items()) for b in sorted(targets) if _layer(b) > _layer(a)]
    assert not wrong, "a lower layer imports a higher one:\n" + "\n".join(wrong)


@pytest.mark.parametrize("source, cycle", [
    ({"a": "from . import b", "b": "def f():\n    from .a import x"}, ["warehouse.a", "warehouse.b", "warehouse.a"]),
    ({"a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B", "b": "from .a import x"}, None),
])
def test_the_graph_sees_imports_in_functions_and_not_type_checking(tmp_path, monkeypatch, source, cycle):
    """The reader of the graph itself: an import inside a function counts, one under TYPE_CHECKING does not."""
    package = tmp_path / "warehouse"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in source.items():
        (package / f"{name}.py").write_text(text + "\n")
    monkeypatch.setitem(globals(), "PACKAGE", package)
    found = _cycles(_graph())
    assert found == ([cycle] if cycle else [])
