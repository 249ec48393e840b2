"""What the Jacobian tests share: A and B by the complex step through ``model.dynamics``
itself, their independent reference (not ``tl.jacobians``, which takes the analytic route
once its kernel is compiled); a quiet model loader; the benchmarks' serial chain."""

from __future__ import annotations

from typing import Any

import numpy as np


def complex_step_ab(model: Any, x: np.ndarray, u: np.ndarray, params: Any = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``(A, B)`` of ``model.dynamics`` at ``(x, u, params)``, step 1e-30 (exact to
    rounding: no subtraction), every direction in one batched call."""
    n_x, n_u, h = x.size, u.size, 1e-30
    X = np.tile(x.astype(complex), (n_x + n_u, 1))
    U = np.tile(u.astype(complex), (n_x + n_u, 1))
    X[np.arange(n_x), np.arange(n_x)] += 1j * h
    U[n_x + np.arange(n_u), np.arange(n_u)] += 1j * h
    J = model.dynamics(0.0, X, U, params).imag.T / h
    return J[:, :n_x], J[:, n_x:]


def load_quiet(desc: Any) -> Any:
    """``tl.load_model(desc)`` with the package's physical-plausibility warnings silenced."""
    import warnings

    import titop_lpv as tl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(desc)


def chain_description(n: int) -> dict:
    """The serial chain of ``benchmarks/bench_dynamics.py`` (N revolute links, fixed root)."""
    import sys
    from pathlib import Path

    benchmarks = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        from bench_dynamics import chain_description as chain
    finally:
        sys.path.remove(benchmarks)
    return chain(n)
