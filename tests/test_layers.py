"""The package is layered (docs/design.md §1): imports run only downward, with no cycle.

The import graph is built from the source of every module of ``titop_lpv``: module-level
imports and imports inside functions (a function-level import that hides a cycle is still a
cycle), relative and absolute. Each module belongs to a layer of :data:`LAYERS`; a module may
import from its own layer or a layer below it. A function-level import is allowed only for an
optional dependency, so none of ``titop_lpv`` itself is imported inside a function. No module
imports a private name (``_x``) from another module of the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "titop_lpv"

# Layer of each module, by module path relative to ``titop_lpv`` (a subpackage stands for all
# of its modules). A module may import only from modules of a layer with a number <= its own;
# the robustness layer ``robust`` is a side branch at layer 1, beside ``spatial``: it imports
# only from layer 0, and layers 2 and above may import it.
LAYERS: dict[str, int] = {
    "exceptions": 0,
    "names": 0,
    "progress": 0,
    "plots": 0,
    "spatial": 1,
    "multibody": 2,
    "model": 3,
    "analysis": 4,
    "linear": 5,
    "io": 6,
    "__init__": 7,  # the public API, gathered from the layers below
    "cli": 8,  # the command line is a client of the public API
    "__main__": 9,
}
ROBUST = "robust"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _package_of(path: Path) -> list[str]:
    """Package path of a module file (a file outside the package counts as top level)."""
    return list(path.relative_to(PACKAGE).parts[:-1]) if PACKAGE in path.parents else []


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _target(path: Path, node: ast.ImportFrom | ast.Import) -> list[tuple[str, list[str]]]:
    """Package modules an import statement reaches, each with the names it takes."""
    out: list[tuple[str, list[str]]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == "titop_lpv" or alias.name.startswith("titop_lpv."):
                out.append((alias.name.removeprefix("titop_lpv").lstrip(".") or "__init__", []))
        return out
    if node.level == 0:
        if node.module is None or not (node.module == "titop_lpv"
                                       or node.module.startswith("titop_lpv.")):
            return out
        base = node.module.removeprefix("titop_lpv").lstrip(".").split(".")
        base = [b for b in base if b]
    else:
        pkg = _package_of(path)
        base = pkg[: len(pkg) - (node.level - 1)] + (node.module.split(".") if node.module else [])
    names = [a.name for a in node.names]
    module = ".".join(base)
    if node.module is None or (node.level == 0 and module == ""):
        # ``from . import x``: each name may itself be a module
        for name in names:
            sub = ".".join([*base, name])
            out.append((sub if sub in MODULES else (module or "__init__"), [name]))
        return out
    out.append((module or "__init__", names))
    return out


def _imports(path: Path) -> list[tuple[str, list[str], bool, int]]:
    """(target module, names, inside a function?, line) for each package import of a file."""
    tree = ast.parse(path.read_text())
    inner = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(f)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target, names in _target(path, node):
                found.append((target, names, id(node) in inner, node.lineno))
    return found


def _layer(module: str) -> int | str:
    head = module.split(".")[0]
    if head == ROBUST:
        return ROBUST
    if head not in LAYERS:
        raise KeyError(f"module titop_lpv.{module} is in no layer of LAYERS")
    return LAYERS[head]


def _allowed(src: str, dst: str) -> bool:
    ls, ld = _layer(src), _layer(dst)
    if ls == ROBUST:
        return ld == ROBUST or ld == 0
    if ld == ROBUST:
        return ls >= 2
    return ld <= ls


GRAPH = {m: _imports(p) for m, p in MODULES.items()}


def _resolve(target: str) -> str:
    """The module a target names (a package resolves to its ``__init__``)."""
    if target in MODULES:
        return target
    raise KeyError(target)


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        _layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_downward(module: str) -> None:
    upward = [f"line {line}: {target}" for target, _names, _fn, line in GRAPH[module]
              if not _allowed(module, _resolve(target)) and target != module]
    assert not upward, f"titop_lpv.{module} imports upward: {upward}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_package_import_inside_functions(module: str) -> None:
    inner = [f"line {line}: {target}" for target, _names, fn, line in GRAPH[module] if fn]
    assert not inner, f"titop_lpv.{module} imports the package inside a function: {inner}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_name_from_another_module(module: str) -> None:
    private = [f"line {line}: {target}.{n}" for target, names, _fn, line in GRAPH[module]
               for n in names if n.startswith("_") and not n.startswith("__")]
    assert not private, f"titop_lpv.{module} imports private names: {private}"


def _cycles() -> list[list[str]]:
    """Every elementary cycle found by a depth-first search (one per back edge)."""
    edges = {m: sorted({_resolve(t) for t, _n, _f, _l in GRAPH[m]} - {m}) for m in MODULES}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in edges[m]:
            if state.get(n) == 1:
                cycles.append([*stack[stack.index(n):], n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    return cycles


def test_no_import_cycle() -> None:
    cycles = _cycles()
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_graph_sees_function_level_and_absolute_imports(tmp_path: Path) -> None:
    # a synthetic module: the walker must report both kinds, and the cycle finder a cycle
    src = "import numpy\nfrom .a import x\n\ndef f():\n    from titop_lpv.b import _y\n"
    path = tmp_path / "probe.py"
    path.write_text(src)
    found = [(t, n, f) for t, n, f, _line in _imports(path)]
    assert ("a", ["x"], False) in found
    assert ("b", ["_y"], True) in found
    assert all(t != "numpy" for t, _n, _f in found)


def test_the_upward_rule_is_the_table() -> None:
    assert _allowed("analysis.trim", "multibody.dynamics")
    assert not _allowed("multibody.dynamics", "model.compiled")
    assert not _allowed("robust.mu", "multibody.dynamics")
    assert _allowed("robust.mu", "exceptions")
    assert not _allowed("robust.mu", "spatial.algebra")
    assert not _allowed("spatial.algebra", "robust.mu")
    assert _allowed("linear", "robust.uss")


def _table_rows(text: str, header: str) -> list[str]:
    """Rows of the first Markdown table whose header row starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header}"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_design_doc_layer_table_is_the_test_table() -> None:
    # docs/design.md §1 states the layout; its table must be the one this test enforces
    design = (PACKAGE.parent / "docs" / "design.md").read_text()
    documented: dict[str, str] = {}
    for row in _table_rows(design, "layer"):
        layer, paths = (cell.strip() for cell in row.strip("|").split("|")[:2])
        for path in paths.replace("`", "").split(","):
            documented[path.strip().removesuffix("/").removesuffix(".py")] = layer.split()[0]
    expected = {name: str(number) for name, number in LAYERS.items() if name != "__main__"}
    expected[ROBUST] = "1′"
    assert documented == expected
    for name in documented:  # every documented path exists, except the layer still to come
        exists = (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()
        assert exists or name == "linear", name


def test_readme_module_table_matches_the_tree() -> None:
    readme = (PACKAGE.parent / "README.md").read_text()
    named = set()
    for row in _table_rows(readme, "module"):
        first = row.strip("|").split("|")[0]
        named |= {token.strip("`* ") for token in first.split(",")}
    for token in named:
        path = token.removeprefix("titop_lpv").lstrip(".").replace(".", "/")
        assert (PACKAGE / path).is_dir() or (PACKAGE / f"{path}.py").is_file(), token
    modules = {m for m, path in MODULES.items()
               if path.name != "__init__.py" and m != "__main__"}
    uncovered = [m for m in modules
                 if not any(f"titop_lpv.{m}" == t or f"titop_lpv.{m}".startswith(t + ".")
                            for t in named)]
    assert not uncovered, f"modules the README table does not name: {sorted(uncovered)}"


def _third_party_imports(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_only_the_plotting_module_draws(module: str) -> None:
    # compute, then plot: every .plot() calls a function of titop_lpv.plots; outside it (and
    # the command line, which picks a backend and saves figures) matplotlib appears only as
    # the Figure type of annotations
    if module.split(".")[0] in ("plots", "cli", "__main__"):
        return
    drawing = [f"line {line}: {name}" for name, line in _third_party_imports(MODULES[module])
               if name.split(".")[0] == "matplotlib" and name != "matplotlib.figure"]
    assert not drawing, f"titop_lpv.{module} uses matplotlib itself: {drawing}"
