"""``progress=True | callable | False`` of the long computations, now drawn by tqdm: True
writes a bar to stderr that ends; a callable receives ``(done, total)`` up to the total;
False writes nothing; a log (stderr that is not a terminal) gets a bounded number of lines
however many points the sweep has."""

from __future__ import annotations

import numpy as np

import titop_lpv as tl
from titop_lpv.progress import LOG_LINES


def _oscillator() -> tl.Model:
    s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    s.parameter("k", 40.0, min=1.0, max=200.0, unit="N/m")
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True), mass=2.0)
    return s.compile()


def test_true_writes_a_bar_to_stderr_that_ends(capsys):
    model = _oscillator()
    grid = tl.linearize_sweep(model, {"k": np.linspace(10.0, 100.0, 40)}, free=["cart_q"],
                              progress=True)
    assert grid.shape == (40,)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "\r" not in err and err.endswith("\n")  # captured stderr is not a terminal
    for stage in ("trim_sweep", "linearize_sweep"):
        mine = [ln for ln in lines if ln.startswith(stage + ":")]
        assert 2 <= len(mine) <= LOG_LINES + 2, mine
        assert "40/40" in mine[-1] and "100%" in mine[-1]
    assert len(lines) <= 2 * (LOG_LINES + 2)


def test_log_lines_stay_bounded_on_a_long_sweep(capsys):
    model = _oscillator()
    tl.trim_sweep(model, {"k": np.linspace(10.0, 100.0, 300)}, free=["cart_q"], progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert 2 <= len(lines) <= LOG_LINES + 2 and "300/300" in lines[-1]


def test_callable_receives_done_and_total_and_false_is_silent(capsys):
    model = _oscillator()
    calls: list[tuple[int, int]] = []
    tl.linearize_sweep(model, {"k": [10.0, 20.0, 30.0, 40.0]}, free=["cart_q"],
                       progress=lambda done, total: calls.append((done, total)))
    trim_calls, lin_calls = calls[:4], calls[4:]
    assert trim_calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert lin_calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    capsys.readouterr()
    tl.linearize_sweep(model, {"k": [10.0, 20.0]}, free=["cart_q"], progress=False)
    G = tl.uss(np.array([[1.0]])) * tl.ureal("a", 1.0, range=(0.5, 2.0))
    tl.monte_carlo(G, n=20, seed=0, progress=False)
    assert capsys.readouterr().err == ""
    got: list[tuple[int, int]] = []
    tl.monte_carlo(G, n=20, seed=0, chunksize=5, progress=lambda d, t: got.append((d, t)))
    assert got[-1] == (20, 20) and all(t == 20 for _, t in got)
