"""A and B by the complex step through ``model.dynamics`` itself: the independent reference
of the analytic Jacobian tests (not ``tl.jacobians``, which takes the analytic route once
its kernel is compiled)."""

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
