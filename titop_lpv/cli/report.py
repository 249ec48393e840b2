"""What ``titop-lpv`` prints and writes: stability verdicts, sweep table rows, written files.

A pole with ``|Re λ| <= AXIS_TOL·max(1, |λ|)`` lies on the imaginary axis (rigid-body zero
poles and undamped modes; :func:`titop_lpv.robust.loop.on_axis`, the rule of the robustness
analyses); one right of that band is unstable.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.modes import modes
from ..plots import plot_bode
from ..robust.frequency import default_omega
from ..robust.loop import AXIS_TOL, on_axis
from .args import CLIError

__all__ = ["AXIS_TOL", "bode_omega", "save_bode", "savefig", "show_warnings", "stability",
           "stability_line", "sweep_row", "wrote"]


def show_warnings(caught: list[warnings.WarningMessage]) -> None:
    """Show warnings recorded during a successful command, each (message, place) once.

    Parameters
    ----------
    caught : list of warnings.WarningMessage
        What ``warnings.catch_warnings(record=True)`` recorded.
    """
    seen: set[tuple[str, type, str, int]] = set()
    for w in caught:
        key = (str(w.message), w.category, w.filename, w.lineno)
        if key not in seen:
            seen.add(key)
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def stability(sys_: Any) -> tuple[float, int, int, str]:
    """Where the poles of ``sys_`` lie: ``(max Re λ, n unstable, n on the axis, verdict)``.

    A pole with ``|Re λ| <= AXIS_TOL·max(1, |λ|)`` lies on the imaginary axis
    (:func:`titop_lpv.robust.loop.on_axis`; the zero poles of rigid-body modes and neutral
    coordinates, undamped modes). The verdict is ``unstable`` if a pole is unstable; else
    ``drift`` if the zero eigenvalue is defective (more zero poles than independent null
    vectors of A: Jordan chains, a position that integrates a free velocity — a rigid-body
    mode whose displacement grows linearly after a velocity perturbation, unstable in
    Lyapunov's sense); else ``marginal`` if a pole is on the axis; else ``stable``. A pole
    right of the axis band is unstable. Poles are counted singly (a complex pair counts twice).

    Parameters
    ----------
    sys_ : control.StateSpace
        The linear model (only ``A`` and ``nstates`` are read).

    Returns
    -------
    (float, int, int, str)
        The largest real part of the poles [rad/s] (NaN without states), the number of
        unstable poles, the number on the imaginary axis, and the verdict.

    Examples
    --------
    >>> import control
    >>> stability(control.ss([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]]))
    (0.0, 0, 2, 'drift')
    >>> stability(control.ss([[-2.0]], [[1.0]], [[1.0]], [[0.0]]))
    (-2.0, 0, 0, 'stable')
    """
    A = np.asarray(sys_.A, float)
    lam = np.linalg.eigvals(A) if sys_.nstates else np.zeros(0)
    re, axial = lam.real, np.asarray(on_axis(lam), bool)
    unstable, axis = int(np.sum((re > 0) & ~axial)), int(np.sum(axial))
    zeros = int(np.sum(np.abs(lam) <= AXIS_TOL))
    null = A.shape[0] - np.linalg.matrix_rank(A, tol=AXIS_TOL * max(1.0, np.abs(A).max(
        initial=0.0))) if zeros else 0
    verdict = ("unstable" if unstable else "drift" if zeros > null
               else "marginal" if axis else "stable")
    return (float(re.max()) if re.size else float("nan")), unstable, axis, verdict


def stability_line(sys_: Any) -> str:
    """One line: verdict, largest real part and how the poles were counted.

    Parameters
    ----------
    sys_ : control.StateSpace
        The linear model, as :func:`stability` reads it.

    Returns
    -------
    str
    """
    top, unstable, axis, verdict = stability(sys_)
    return (f"stability: {verdict}: max Re λ = {top:.4g} rad/s, {unstable} unstable pole(s) "
            f"(Re λ > {AXIS_TOL:g}·max(1, |λ|)), {axis} on the imaginary axis "
            f"(|Re λ| <= {AXIS_TOL:g}·max(1, |λ|): "
            "rigid-body zero poles and undamped modes; 'drift' where zero poles form Jordan "
            "chains, a position integrating a free velocity)")


def size(path: str | Path) -> str:
    n = Path(path).stat().st_size
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} kB" if n < 1024**2 else \
        f"{n / 1024**2:.1f} MB"


def wrote(path: str | Path) -> None:
    """Print ``wrote PATH (SIZE)`` on stdout for a file just written.

    Parameters
    ----------
    path : str or Path
        The file (it must exist: its size is read).
    """
    print(f"wrote {path} ({size(path)})")


def savefig(fig: Any, path: str | Path) -> None:
    """Save a figure at 120 dpi and close it (the format follows the suffix of ``path``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; closed afterwards.
    path : str or Path
        The file to write.
    """
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=120)
    plt.close(fig)


def sweep_row(sys_: Any) -> list[str]:
    """Stability (max Re λ, unstable poles, verdict) and the slowest non-rigid mode.

    Parameters
    ----------
    sys_ : control.StateSpace or None
        The linear model at a grid point, or None where there is no equilibrium.

    Returns
    -------
    list of str
        Six cells: max Re λ, number of unstable poles, verdict, and ω_n [rad/s], ζ and kind
        of the slowest non-rigid mode (``"-"`` where there is none).
    """
    if sys_ is None:
        return ["-", "-", "no equilibrium", "-", "-", "-"]
    top, unstable, _, verdict = stability(sys_)
    flexible = modes(sys_).flexible
    slowest = ([f"{flexible[0].wn:.4g}", f"{flexible[0].zeta:.4g}", flexible[0].kind]
               if flexible else ["-", "-", "rigid only"])
    return [f"{top:.4g}", str(unstable), verdict, *slowest]


def bode_omega(sys_: Any) -> np.ndarray:
    """Frequencies of a Bode plot of ``sys_``.

    600 log-spaced ω from 1.5 decades below the slowest mode to 1.5 above the fastest,
    rounded out to whole decades (:func:`titop_lpv.robust.frequency.default_omega`).

    Parameters
    ----------
    sys_ : control.StateSpace
        The linear model.

    Returns
    -------
    ndarray (600,)
        ω [rad/s].
    """
    poles = np.linalg.eigvals(sys_.A) if sys_.nstates else np.zeros(0)
    return default_omega(poles, 600, decades=1.5, include_zero=False, whole_decades=True,
                         min_modulus=1e-6)


def save_bode(sys_: Any, omega: np.ndarray, path: str | Path) -> list[str]:
    """Save the Bode plot of every channel; return one line per channel with its peak.

    Parameters
    ----------
    sys_ : control.StateSpace
        The linear model (named signals).
    omega : ndarray
        Frequencies [rad/s].
    path : str or Path
        Figure file to write.

    Returns
    -------
    list of str
        ``"  input → output: peak gain … at ω = … rad/s (… Hz)"`` per channel.

    Raises
    ------
    CLIError
        The model has no input or no output.
    """
    if not sys_.ninputs or not sys_.noutputs:
        raise CLIError(f"a Bode plot needs an input and an output; {sys_.name} has inputs "
                       f"{list(sys_.input_labels)} (--actuate BODY adds <body>_tau)")
    import control

    response = control.frequency_response(sys_, omega)  # computed here, drawn by plots.py
    mag = np.asarray(response.magnitude).reshape(sys_.noutputs, sys_.ninputs, omega.size)
    lines = []
    for (i, out), (j, inp) in ((a, b) for a in enumerate(sys_.output_labels)
                               for b in enumerate(sys_.input_labels)):
        k = int(np.argmax(mag[i, j]))
        with np.errstate(divide="ignore"):
            db = 20 * np.log10(mag[i, j, k])
        lines.append(f"  {inp} → {out}: peak gain {mag[i, j, k]:.4g} ({db:.2f} dB) at "
                     f"ω = {omega[k]:.4g} rad/s ({omega[k] / (2 * np.pi):.4g} Hz)")
    title = f"Bode: {sys_.name}" if sys_.ninputs * sys_.noutputs > 1 else \
        f"Bode: {sys_.input_labels[0]} → {sys_.output_labels[0]}"
    savefig(plot_bode(response, title=title), path)
    return lines
