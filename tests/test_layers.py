"""Layering of DESIGN.md §1: the robustness layer works on python-control systems alone.

Every ``from . import`` / ``from .x import`` of the uncertain-parameter, LFT, μ and
robustness modules (at module level and inside functions) must stay within that layer, plus
the package's exceptions and progress bar: it never imports the multibody core (model,
dynamics, trim, sweeps, linearisation).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "titop_lpv"
ROBUSTNESS = {"uncertain", "uncertain_ops", "uncertain_eval", "uncertain_interconnect",
              "uncertain_params", "lft", "lft_core", "mu", "mu_structure", "mu_upper_bound",
              "mu_lower_bound", "robust", "worst_case", "monte_carlo"}
ALLOWED = ROBUSTNESS | {"exceptions", "progress"}


def _relative_imports(path: Path) -> set[str]:
    """Package modules a file imports with relative imports (``.x`` and ``from . import x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("module", sorted(ROBUSTNESS))
def test_robustness_layer_does_not_import_the_core(module: str) -> None:
    imported = _relative_imports(PACKAGE / f"{module}.py")
    assert imported <= ALLOWED, f"{module} imports {sorted(imported - ALLOWED)}"


def test_the_check_sees_imports_inside_functions() -> None:
    # simulate.py imports the progress bar inside a function: the walker must find it
    assert "progress" in _relative_imports(PACKAGE / "simulate.py")
