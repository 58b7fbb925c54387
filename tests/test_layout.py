"""The layout: no import cycle among the modules of polars_roc.

A static check of the import graph, read from the source with ``ast``: every import of
a polars_roc module counts, also those inside functions (an import deferred into a
function hides a cycle from Python's loader, not from a reader). A cycle means two
modules each need the other: neither can be read, tested or moved on its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "polars_roc"


def _module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(name: str, modules: set[str]) -> str | None:
    """The polars_roc module ``name`` is (or lies in), or None when outside."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """``{module: modules it imports}`` for every module under ``package``."""
    files = {_module_name(path, package): path for path in package.rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # `from polars_roc import charts` imports the module polars_roc.charts.
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                target = _resolve(name, modules)
                if target is not None and target != module:
                    targets.add(target)
        graph[module] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_among_the_modules() -> None:
    graph = import_graph()
    assert "polars_roc.core.validate" in graph and "polars_roc.charts" in graph
    assert cycles(graph) == []


def test_the_check_finds_a_cycle(tmp_path: Path) -> None:
    """The check above can fail: a function-level import closing a loop is found."""
    package = tmp_path / "polars_roc"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_a.py").write_text("from polars_roc._b import f\n")
    (package / "_b.py").write_text("def f():\n    from polars_roc import _c\n")
    (package / "_c.py").write_text("import polars_roc._a\n")
    (package / "_d.py").write_text("from polars_roc._a import f\n")
    graph = import_graph(package)
    assert cycles(graph) == [["polars_roc._a", "polars_roc._b", "polars_roc._c"]]


def _package_of(module: str) -> str:
    """The subpackage a module belongs to (``polars_roc.core``), or the top level."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else parts[0]


def test_no_private_name_crosses_a_package() -> None:
    # Within a subpackage (core, stats, views, evaluation, charts, report) modules share
    # their helpers freely; across packages only names without a leading underscore.
    files = {_module_name(path, PACKAGE): path for path in PACKAGE.rglob("*.py")}
    crossings = []
    for module, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
                continue
            if not node.module.startswith("polars_roc") or node.module not in files:
                continue
            if _package_of(node.module) == _package_of(module):
                continue
            crossings += [
                f"{module}: {node.module}.{alias.name}"
                for alias in node.names
                if alias.name.startswith("_")
            ]
    assert crossings == []


def test_no_import_cycle_among_the_folders() -> None:
    # Views build on stats (an AUC with its interval) and stats take score tables, never
    # a view's result: no folder needs one that needs it back. The top-level modules
    # (exceptions, namespace) are left out: every folder may use them.
    folders: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        source = _package_of(module)
        folders.setdefault(source, set()).update(
            target
            for target in map(_package_of, targets)
            if target != source and target != "polars_roc"
        )
    del folders["polars_roc"]
    assert "polars_roc.views" not in folders["polars_roc.stats"]
    assert cycles(folders) == []


# Where the rows live is decided in core/counting.py: the engines' code stays behind it.
ENGINE_MODULES = {
    "polars_roc.core.engine_counts",
    "polars_roc.core.buckets",
    "polars_roc.core.bucket_arrays",
    "polars_roc.core.engine_ranks",
}
ABOVE_THE_SEAM = (
    "polars_roc.views",
    "polars_roc.stats",
    "polars_roc.charts",
    "polars_roc.evaluation",
)


def test_no_view_imports_engine_code() -> None:
    graph = import_graph()
    crossing = {
        module: sorted(targets & ENGINE_MODULES)
        for module, targets in graph.items()
        if module.startswith(ABOVE_THE_SEAM) and targets & ENGINE_MODULES
    }
    assert crossing == {}
    # Nor does any view import narwhals (the engines' language) itself.
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path, PACKAGE)
        if module.startswith(ABOVE_THE_SEAM):
            assert "narwhals" not in path.read_text(encoding="utf-8"), module


# The functions that take the roles one by one: users' entry points, which resolve them
# into one Roles; everything below them takes that value.
ROLE_KEYWORDS = {"pos_label", "nulls"}
TAKE_THE_KEYWORDS = {"Roles.__init__", "expr_rows", "plot", "build_report"}


def test_the_roles_are_forwarded_as_one_value() -> None:
    import polars_roc as pr

    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        methods = {
            f"{node.name}.{item.name}": item
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            for item in node.body
            if isinstance(item, ast.FunctionDef)
        }
        functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        for name, node in {**functions, **methods}.items():
            given = {a.arg for a in [*node.args.args, *node.args.kwonlyargs]}
            if ROLE_KEYWORDS <= given and name not in pr.__all__:
                found.add(name)
    assert found <= TAKE_THE_KEYWORDS, sorted(found - TAKE_THE_KEYWORDS)
    assert "Roles.__init__" in found
