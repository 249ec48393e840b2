"""Seeded fuzz campaign of runtime arguments (issue 12: bad input never escapes raw).

Calls ``simulate``, ``linearize``, ``jacobians``, ``Model.dynamics``, ``Model.outputs``,
``Model.default_state``, ``trim_sweep``, ``linearize_sweep``, ``LPVGrid.at``,
``compare_response``, ``energy``/``momentum``/``center_of_mass`` and the name arguments
of ``Model.position``/``rotation``, ``linearize`` and ``trim`` (numpy arrays too) on the
balloon (``examples/balloon.toml``) and on a one-body spring (for the sweeps), each
argument either valid or drawn from a pool of bad values (NaN, ±inf, 1e300, 1e25, strings,
ragged lists, wrong lengths, unknown names, non-string names, ...).
Simulations use spans of at most 0.01 s, so a valid call returns in milliseconds. Each call
is classified as

* typed: a ``titop_lpv`` error (``TitopError``),
* foreign: any other exception (the bug class of the issue),
* returned: a result whose numbers are all finite,
* non-finite: a result holding NaN/inf or non-numeric entries (a silently wrong answer),
* hung: exceeded the per-call alarm (``--timeout``, default 3 s),

and the distinct sites (exception type, innermost frame inside ``titop_lpv`` or the last
frame) of the foreign exceptions are listed. Usage::

    python fuzz/runtime.py [--calls N] [--seed S] [--timeout T]
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import control
import numpy as np
from campaign import arguments, print_table, run, site  # fuzz/campaign.py, beside this file

import titop_lpv as tl

ROOT = Path(__file__).resolve().parents[1]
NAN, INF = math.nan, math.inf

SCALARS: list[Any] = [NAN, INF, -INF, 1e300, -1e300, 1e25, 0.0, -1.0, 1e-300, "abc", None,
                      True, 1 + 2j, [], {}, [1.0, 2.0], object(), -5, 10**400]
NAMES: list[Any] = [[1], [None], ["nope"], 5, "abc", [["slider_tau"]], [1.5], [b"x"], {}]


def spring_model() -> tl.Model:
    """A mass on a spring along x, stiffness parameter ``k``: cheap sweeps."""
    s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    s.parameter("k", 40.0)
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True), mass=2.0)
    return s.compile()


class Campaign:
    """Random argument generators over the balloon and the spring."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.rate = 0.35
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model = tl.load_model(ROOT / "examples" / "balloon.toml")
        self.spring = spring_model()
        self.x0 = self.model.default_state()
        free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
        self.op = tl.trim(self.model, free, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
        self.grid = tl.linearize_sweep(self.spring, {"k": [10.0, 20.0, 30.0]}, free=["cart_q"],
                                       progress=False)

    # ------------------------------------------------------------------ value pools
    def pick(self, valid: Any, bad: list[Any], weight: float = 1.0) -> Any:
        """``valid``, or a bad value with probability ``weight`` times the call's rate."""
        return self.rng.choice(bad) if self.rng.random() < weight * self.rate else valid

    def vector(self, valid: np.ndarray) -> Any:
        """A vector argument: valid, or a corrupted variant."""
        n = valid.size
        k = self.rng.randrange(max(n, 1))
        variants: list[Callable[[], Any]] = [
            lambda: np.full(n, self.rng.choice([NAN, INF, 1e300, -1e300])),
            lambda: np.where(np.arange(n) == k, self.rng.choice([NAN, INF, 1e25, 1e300]),
                             valid),
            lambda: ["a"] * n,
            lambda: [[1.0, 2.0], [3.0]],
            lambda: np.zeros(n + 1),
            lambda: np.zeros(max(n - 1, 0)),
            lambda: np.zeros((2, n + 1)),
            lambda: 1.0,
            lambda: [],
            lambda: {"a": 1},
            lambda: [None] * n,
            lambda: np.full(n, 1 + 1j),
            lambda: self.rng.choice(SCALARS),
        ]
        if self.rng.random() >= 1.5 * self.rate:
            return valid.copy()
        return self.rng.choice(variants)()

    def params(self) -> Any:
        """A parameter argument: None, a valid dict, or a bad one."""
        if self.rng.random() >= self.rate:
            return self.rng.choice([None, {"k": 60.0}, {"ds": 2.0, "dp1": 0.1}])
        name = self.rng.choice(["k", "ds", "dp1", "dp2"])
        variants: list[Callable[[], Any]] = [
            lambda: {name: self.rng.choice(SCALARS)},
            lambda: {"zz": 1.0},
            lambda: {1: 2.0},
            lambda: np.array([50.0, NAN, 0.5, 0.5]),
            lambda: [50.0, 5.0],
            lambda: "abc",
            lambda: {name: [1.0, "a"]},
            lambda: {name: np.array([1.0, 2.0])},
            lambda: self.rng.choice(SCALARS),
        ]
        return self.rng.choice(variants)()

    # ------------------------------------------------------------------ calls
    def dynamics(self) -> Callable[[], Any]:
        x, u, p = self.vector(self.x0), self.vector(np.zeros(1)), self.params()
        if self.rng.random() < 0.5:
            return lambda: self.model.dynamics(0.0, x, u, p)
        return lambda: self.model.outputs(0.0, x, u, p)

    def default_state(self) -> Callable[[], Any]:
        p = self.params()
        return lambda: self.model.default_state(p)

    def simulate(self) -> Callable[[], Any]:
        kw: dict[str, Any] = {}
        span = self.pick((0.0, 0.01), [(0.01, 0.0), (0.0, INF), (NAN, 0.01), (0.0, 0.0), "abc",
                                       (0.0,), (0.0, 0.01, 0.02), ("a", 1.0), None, (-INF, 0.0)])
        x0 = self.vector(self.x0) if self.rng.random() < 0.5 else None
        u = self.pick(self.rng.choice([None, self.vector(np.zeros(1)), lambda t, x: [0.1],
                                       lambda t: [0.1]]),
                      [lambda t, x: [NAN], lambda t, x: [1.0, 2.0], lambda t, x: "a",
                       lambda t, x: [INF], lambda t, x: None, lambda: [0.1],
                       lambda t, x, y: [0.1], lambda t: [NAN]], 0.5)
        p = self.params()
        for key, valid, bad in (
            ("method", "RK45", ["rk45", "dop853", "nope", 5, None, "Radau"]),
            ("rtol", 1e-6, [NAN, -1.0, 0.0, INF, "a", None]),
            ("atol", 1e-8, [NAN, -1.0, INF, "a", None, [1.0, 2.0]]),
            ("max_step", INF, [NAN, -1.0, 0.0, 1e-300, "a"]),
            ("t_eval", None, [[], [0.005], [0.02], [NAN], "a", [[0.0]], [0.005, 0.001]]),
            ("n_points", 5, [0, -1, 1.5, "a", 10**12, NAN]),
            ("progress", False, ["yes", 3, True, object()]),
        ):
            if self.rng.random() < 0.3:
                kw[key] = self.pick(valid, bad, 1.5)
        return lambda: tl.simulate(self.model, span, x0, u, p, **kw)

    def linearize(self) -> Callable[[], Any]:
        kw: dict[str, Any] = {}
        use_op = self.rng.random() < 0.5
        op = self.pick(self.op, ["abc", 5, self.grid, object()], 0.2) if use_op else None
        if not use_op or self.rng.random() < 0.3:
            kw["x"] = self.vector(self.op.x)
        for key, valid, bad in (
            ("u", np.zeros(1), [[NAN], [1.0, 2.0], "a", [[0.0]]]),
            ("params", None, [{"k": 80.0}, {"zz": 1.0}, {"k": "a"}, {"k": NAN}, "abc"]),
            ("inputs", ["slider_tau"], NAMES),
            ("outputs", ["pendulum2_q"], NAMES),
            ("states", None, NAMES),
            ("drop", (), NAMES),
            ("tol", 1e-8, [NAN, -1.0, "a", INF, None]),
            ("drift", True, ["yes", 2, None]),
            ("name", "sys", [5, None, ["a"], 1.5]),
            ("drop_integrators", True, ["yes", 2]),
        ):
            if self.rng.random() < 0.3:
                kw[key] = self.pick(valid, bad, 1.5)
        return lambda: tl.linearize(self.model, op, **kw)

    def jacobians(self) -> Callable[[], Any]:
        x, u, p = self.vector(self.op.x), self.vector(np.zeros(1)), self.params()
        par = self.pick(True, ["a", 2, None])
        return lambda: tl.jacobians(self.model, x, u, p, parameters=par)

    def sweep(self) -> Callable[[], Any]:
        grid = self.pick({"k": [10.0, 20.0]}, [[10.0, 20.0], {"k": "ab"}, {"k": [NAN, 1.0]},
                                               {"k": [[1.0, 2.0]]}, {"zz": [1.0]}, {1: [1.0]},
                                               {"k": [1.0, "a"]}, {"k": {}}, "k", {"k": []},
                                               {"k": 10**400}, {"k": [20.0, 10.0, 20.0]}])
        free = self.pick(["cart_q"], NAMES, 0.2)
        kw: dict[str, Any] = {"progress": self.pick(False, ["yes", 3, object()], 0.2)}
        if self.rng.random() < 0.5 * self.rate:
            kw["executor"] = self.rng.choice([object(), "abc", 5, []])
        if self.rng.random() < 0.5 * self.rate:
            kw["chunks"] = self.rng.choice([0, -1, "a", 1.5, NAN])
        if self.rng.random() < 0.5:
            return lambda: tl.trim_sweep(self.spring, grid, free, **kw)
        if self.rng.random() < self.rate:
            kw["branch_tol"] = self.rng.choice([NAN, -1.0, 0.0, INF, "a", {"cart_q": NAN},
                                                {"cart_q": "a"}, {5: 1.0}, 0.3])
        return lambda: tl.linearize_sweep(self.spring, grid, free, **kw)

    def energy(self) -> Callable[[], Any]:
        x, p = self.vector(self.x0), self.params()
        f = self.rng.choice([tl.energy, tl.momentum, tl.center_of_mass])
        return lambda: np.asarray(f(self.model, x, p))

    def names(self) -> Callable[[], Any]:
        body = self.pick("pendulum2", [np.array(["pendulum1", "pendulum2"]),
                                       np.array("pendulum2"), 3, None, "nope", ["pendulum2"]])
        point = self.pick("com", [np.array(["com", "tip"]), np.array("com"), 3, None, "nope"])
        names = self.pick(["slider_tau"], [np.array("slider_tau"), np.array(["slider_tau"]),
                                           np.array([["slider_tau"]])])
        r = self.rng.random()
        if r < 0.4:
            return lambda: self.model.position(self.x0, body, point)
        if r < 0.6:
            return lambda: self.model.rotation(self.x0, body)
        if r < 0.8:
            return lambda: tl.linearize(self.model, self.op, inputs=names)
        return lambda: tl.trim(self.spring, self.pick(["cart_q"], [np.array("cart_q"),
                                                                   np.array(["cart_q"])]))

    def lpv_at(self) -> Callable[[], Any]:
        value = self.pick(15.0, SCALARS, 0.6)
        key = self.pick("k", ["zz", "K"], 0.2)
        return lambda: self.grid.at(**{key: value})

    def compare(self) -> Callable[[], Any]:
        sys = tl.linearize(self.model, self.op, ["slider_tau"], ["pendulum2_q"],
                           drop_integrators=True)
        kw: dict[str, Any] = {"t_final": self.pick(0.01, [NAN, INF, -1.0, 0.0, "a"], 0.3),
                              "n_points": self.pick(3, [0, -1, "a", 1.5], 0.2)}
        if self.rng.random() < 0.5:
            kw["x0_offset"] = self.pick({"pendulum2_q": 0.01},
                                        [{"pendulum2_q": NAN}, {"nope": 1.0}, {5: 1.0},
                                         {"pendulum2_q": "a"}, "abc", [1.0]], 0.7)
        if self.rng.random() < 0.3:
            kw["u"] = self.pick({"slider_tau": 0.1},
                                [{"slider_tau": NAN}, {"nope": 1.0}, "a", lambda t: 5], 0.7)
        for key in ("rtol", "atol"):
            if self.rng.random() < 0.5 * self.rate:
                kw[key] = self.rng.choice([NAN, -1.0, "a"])
        return lambda: tl.compare_response(self.model, self.op, sys, **kw)

    def call(self) -> tuple[str, Callable[[], Any]]:
        """One random call: (function name, thunk)."""
        makers = [("dynamics", self.dynamics, 4), ("default_state", self.default_state, 1),
                  ("simulate", self.simulate, 4), ("linearize", self.linearize, 4),
                  ("jacobians", self.jacobians, 2), ("sweep", self.sweep, 2),
                  ("lpv_at", self.lpv_at, 1), ("compare", self.compare, 1),
                  ("energy", self.energy, 1), ("names", self.names, 1)]
        names, funcs, weights = zip(*makers)
        k = self.rng.choices(range(len(names)), weights)[0]
        self.rate = self.rng.choice([0.0, 0.15, 0.35, 0.6])  # how many arguments go bad
        return names[k], funcs[k]()


def non_finite(result: Any) -> bool:
    """True when a result holds NaN/inf or non-numeric entries."""
    arrays: list[Any] = []
    if isinstance(result, np.ndarray):
        arrays = [result]
    elif isinstance(result, control.StateSpace):
        arrays = [result.A, result.B, result.C, result.D]
    elif isinstance(result, tl.Trajectory):
        arrays = [result.t, result.x, result.y, result.u]
    elif isinstance(result, tl.Jacobians):
        arrays = [result.A, result.B, result.C, result.D, result.f0, result.y0]
    elif isinstance(result, tl.LPVGrid):
        arrays = [m for s in result.systems.flat if s is not None for m in (s.A, s.B)]
    elif isinstance(result, tl.ResponseComparison):
        arrays = [result.y_nonlinear, result.y_linear]
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind not in "fcib" or not np.all(np.isfinite(a)):
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    """Run the campaign and print the outcome table."""
    args = arguments(__doc__, argv, timeout=3.0)
    np.seterr(all="ignore")
    warnings.simplefilter("ignore")
    camp = Campaign(args.seed)
    counts, per, foreign = run(args.calls, camp.call, args.timeout, non_finite, site)
    print_table("function", counts, per, foreign)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
