"""The notebooks in ``notebooks/`` are tests: each one executes from top to bottom without an
error, in a Jupyter kernel of this very interpreter, with ``notebooks/`` as its working
directory (as a user opening it in Jupyter would run it), in less than a minute once the
numba kernel is compiled; and every committed notebook is stored with its outputs cleared."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import titop_lpv as tl

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXPECTED = ["01_balloon.ipynb", "02_lpv_stiffness.ipynb", "03_spinning_spacecraft.ipynb",
            "04_robust_flexible_structure.ipynb"]
ALL = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
CELL_TIMEOUT = 300  # s per cell: a hung cell fails the test instead of blocking CI


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory) -> dict[str, str]:
    """Environment whose ``python3`` kernel is this interpreter.

    A kernelspec pointing at ``sys.executable`` is put first on ``JUPYTER_PATH``, so a
    ``python3`` kernel registered elsewhere (user or system directories) cannot shadow it.
    ``MPLBACKEND`` is dropped so that the kernel uses the inline backend, as in Jupyter.
    """
    spec = tmp_path_factory.mktemp("jupyter") / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (titop_lpv tests)",
        "language": "python",
    }))
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["JUPYTER_PATH"] = os.pathsep.join(
        [str(spec.parents[1]), *filter(None, [os.environ.get("JUPYTER_PATH")])])
    return env


@pytest.fixture(scope="module")
def compiled_kernel() -> None:
    """Compile the numba kernel into its on-disk cache before the notebooks run.

    numba compiles one specialisation per argument type (real or complex, writable or
    read-only arrays); evaluation, simulation, Jacobians and trim use different ones. Each
    notebook kernel then loads them instead of compiling them (about a minute on a cold
    checkout), so the time budget measures the notebooks, not the compiler.
    """
    for path in sorted((NOTEBOOKS.parent / "examples").glob("*.toml")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tl.TitopWarning)
            model = tl.load_model(path)
        x0 = model.default_state()
        model.dynamics(0.0, x0)
        tl.simulate(model, (0.0, 0.01), n_points=2)
        joints = [name for name in model.state_names if name.endswith("_q")]
        op = tl.trim(model, free=joints, strict=False)
        tl.linearize(model, op, drift=True)


def test_the_three_notebooks_are_there():
    assert set(EXPECTED) <= set(ALL), f"missing notebooks: {sorted(set(EXPECTED) - set(ALL))}"


@pytest.mark.parametrize("name", ALL)
def test_stored_with_outputs_cleared(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    dirty = [k for k, cell in enumerate(nb.cells) if cell.cell_type == "code"
             and (cell.outputs or cell.execution_count is not None)]
    assert not dirty, (f"{name}: code cells {dirty} carry outputs or execution counts; "
                       "clear them before committing")
    assert any(cell.cell_type == "markdown" for cell in nb.cells)


@pytest.mark.parametrize("name", ALL)
def test_notebook_executes(name, kernel_env, compiled_kernel, monkeypatch):
    # the kernel manager of this process reads JUPYTER_PATH to find the kernelspec
    monkeypatch.setenv("JUPYTER_PATH", kernel_env["JUPYTER_PATH"])
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    # speed is the benchmarks' business, not an assertion here: CELL_TIMEOUT only turns a
    # hang into a failure
    client.execute(env=kernel_env)  # raises CellExecutionError, naming the cell, on failure

    errors = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs
              if out.output_type == "error"]
    assert not errors
    executed = [cell.execution_count for cell in nb.cells if cell.cell_type == "code"]
    assert all(count is not None for count in executed), "a code cell was not executed"
    figures = sum("image/png" in out.get("data", {}) for cell in nb.cells
                  if cell.cell_type == "code" for out in cell.outputs)
    assert figures >= 2, f"{name}: {figures} figures displayed (inline backend expected)"
    # the executed copy is not written back: the committed notebook keeps no outputs
    assert not any(cell.get("outputs") for cell in
                   nbformat.read(NOTEBOOKS / name, as_version=4).cells)
