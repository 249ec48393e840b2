"""Seeded fuzz campaign of the robustness layer (``titop_lpv.robust``), issue 12.

Every public entry point of the layer is called with deterministic, randomly drawn bad and
good arguments (random shapes, NaN / inf / huge values, wrong types, strings, None,
negative or non-integer counts). Each call runs in a worker process with a per-call time
limit; the outcome is one of:

* ``typed``: a :class:`titop_lpv.exceptions.TitopError` was raised;
* ``foreign``: any other exception (its type and the innermost package frame are listed);
* ``returned``: the call returned (``nan`` counts the returned results holding a NaN);
* ``hung``: no answer within the time limit (the worker is killed and restarted).

Run ``python fuzz/robust.py [--calls N] [--seed S] [--timeout T]``; it prints a small table.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import traceback
from collections import Counter
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import control
import numpy as np

import titop_lpv as tl
from titop_lpv.exceptions import TitopError

BAD_SCALARS = [np.nan, np.inf, -np.inf, 1e200, -1e200, 1e-300, 0.0, -1.0, 1.5, "a", None,
               [1, 2], 3, -3, True, 1j]
BAD_COUNTS = [-1, 0, 1.5, "a", None, np.nan, 2.0, True, 10**12]


def _matrix(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """A random matrix, sometimes poisoned with NaN, inf or huge values."""
    M = rng.normal(size=shape) + (1j * rng.normal(size=shape) if rng.random() < 0.5 else 0)
    r = rng.random()
    if M.size and r < 0.15:
        M.flat[rng.integers(M.size)] = np.nan
    elif M.size and r < 0.25:
        M.flat[rng.integers(M.size)] = np.inf
    elif r < 0.35:
        M = M * 10.0 ** rng.choice([200, 300, -300, 150])
    return M


def _blocks(rng: np.random.Generator) -> Any:
    """A block structure, valid or not."""
    r = rng.random()
    if r < 0.1:
        return rng.choice(["real", None, 3, "x"], 1)[0]
    n = int(rng.integers(1, 4))
    out = []
    for i in range(n):
        kind = ["real", "complex", "full", "bogus"][rng.choice(4, p=[0.45, 0.25, 0.25, 0.05])]
        rows = 1 if kind != "full" else int(rng.integers(1, 3))
        cols = 1 if kind != "full" else int(rng.integers(1, 3))
        rep = int(rng.integers(1, 3))
        if rng.random() < 0.03:  # far too large for the μ algorithms
            rep = int(rng.choice([300, 10**6]))
        spec: list[Any] = [kind, rows, cols, rep, f"b{i}"]
        if rng.random() < 0.08:
            spec[int(rng.integers(1, 4))] = rng.choice([1.5, -1, 0, "a", None, np.nan])
        out.append(tuple(spec))
    return out


def _size(blocks: Any) -> tuple[int, int]:
    try:
        st = tl.DeltaStructure(tuple(tl.Block(b[4], b[0], int(b[1]), int(b[2]), int(b[3]))
                                     for b in blocks))
    except Exception:
        return 2, 2
    if st.nz * st.nw > 4096:  # a structure far too large: a small system, the check must fire
        return 2, 2
    return st.nz, st.nw


def _loop(rng: np.random.Generator, nreal: int = 1) -> Any:
    """A small stable uncertain loop (USS) with real parameters, sometimes poisoned."""
    k = tl.ureal("k", 5.0, percent=float(rng.uniform(10, 90)))
    integ = control.tf(1, [1, 0])
    c = tl.ureal("c", 1.0, percent=50) if nreal > 1 else 1.0
    plant = tl.feedback(integ * tl.feedback(integ, c), k)
    return tl.feedback(plant, control.tf([1.8, 20.0], [0.1, 1]))


def _system(rng: np.random.Generator, ny: int, nu: int, nx: int | None = None) -> Any:
    nx = int(rng.integers(0, 4)) if nx is None else nx
    A = -np.eye(nx) * rng.uniform(0.5, 3) + 0.2 * rng.normal(size=(nx, nx))
    B, C, D = rng.normal(size=(nx, nu)), rng.normal(size=(ny, nx)), rng.normal(size=(ny, nu))
    if rng.random() < 0.15 and nx:
        A[0, 0] = rng.choice([np.nan, np.inf, 1e200])
    return control.ss(A, B, C, D)


def _bad(rng: np.random.Generator, good: Any, pool: list[Any]) -> Any:
    """``good`` most of the time, else something bad from ``pool``."""
    return good if rng.random() < 0.6 else pool[int(rng.integers(len(pool)))]


def make_call(i: int, seed: int) -> tuple[str, Any]:
    """The ``i``-th call of the campaign: (entry point name, thunk)."""
    rng = np.random.default_rng([seed, i])
    entries = ["ureal", "ucomplex", "ultidyn", "uss", "structured_norm", "block_values",
               "mu_upper", "mu_lower", "mu_sweep", "delta_matrix", "close_lft", "lft_upper",
               "lft_lower", "star", "robust_stability", "worst_case_gain", "monte_carlo",
               "sample", "at", "algebra", "interconnect", "reduce", "affine_lft",
               "DeltaStructure", "ComplexStateSpace"]
    name = entries[i % len(entries)]
    sc = BAD_SCALARS

    if name == "ureal":
        kw = {["percent", "plusminus", "range"][int(rng.integers(3))]:
              _bad(rng, [10.0, 1.0, (0.5, 2.0)][int(rng.integers(3))], sc)}
        args = (_bad(rng, "p", [None, 3, "1x", ""]), _bad(rng, 1.0, sc))
        return name, lambda: tl.ureal(*args, **kw)
    if name == "ucomplex":
        args = (_bad(rng, "q", [None, 3, ""]), _bad(rng, 1.0, sc))
        kw = {"radius": _bad(rng, 0.5, sc)}
        return name, lambda: tl.ucomplex(*args, **kw)
    if name == "ultidyn":
        shape = _bad(rng, (int(rng.integers(1, 3)), int(rng.integers(1, 3))),
                     [(1.5, 2.7), (-1, 1), (0, 1), "ab", None, (1,), (1, 2, 3), 3, (np.nan, 1)])
        bound = _bad(rng, 1.0, sc)
        return name, lambda: tl.ultidyn("d", shape, bound)
    if name == "uss":
        obj = _bad(rng, _system(rng, 2, 2), [_matrix(rng, (2, 2)), control.tf([1], [1, 1]),
                                             "sys", None, np.full((2, 2), np.nan), 3.0,
                                             [[1, "a"]], np.inf])
        kw = {"inputs": _bad(rng, None, [3, ["a"], "x y"]),
              "name": _bad(rng, "G", [3, ["G"], None, 1.5])}
        return name, lambda: tl.uss(obj, **kw)
    if name in ("structured_norm", "block_values"):
        b = _blocks(rng)
        nz, nw = _size(b)
        shape = (nw, nz) if rng.random() < 0.6 else (int(rng.integers(1, 5)),) * 2
        d = _bad(rng, _matrix(rng, shape), ["a", None, [1.0, 2.0], np.nan])
        f = getattr(tl, name)
        return name, lambda: f(d, b)
    if name in ("mu_upper", "mu_lower"):
        b = _blocks(rng)
        nz, nw = _size(b)
        shape = (nz, nw) if rng.random() < 0.7 else \
            [(nz,), (nz + 1, nw), (2, nz, nw), ()][int(rng.integers(4))]
        M = _bad(rng, _matrix(rng, shape), ["a", None, [["x"]]])
        f = getattr(tl, name)
        if name == "mu_lower":
            kw = {"seed": _bad(rng, 0, ["a", None, -1, 1.5]),
                  "starts": _bad(rng, 2, [None, -1, 0, "a", 1.5])}
            return name, lambda: f(M, b, **kw)
        return name, lambda: f(M, b)
    if name == "mu_sweep":
        b = _blocks(rng)
        nz, nw = _size(b)
        sys = _bad(rng, _system(rng, nz, nw), [_matrix(rng, (nz, nw)), "s", None])
        om = _bad(rng, np.r_[0.0, np.logspace(-1, 1, 20)],
                  [[np.nan, 1.0], [-1.0, 2.0], [], "a", None, [np.inf], [1e300], 2.0,
                   [0.0, 1e308]])
        kw = {"seed": _bad(rng, 0, ["a", None])}
        return name, lambda: tl.mu_sweep(sys, b, om, **kw)
    if name == "delta_matrix":
        b = _blocks(rng)
        vals = _bad(rng, [0.5] * 3, [{"b0": np.nan}, "a", None, [np.inf] * 3, [[1, 2]] * 3])
        return name, lambda: tl.delta_matrix(b, vals)
    if name == "close_lft":
        M = _bad(rng, _system(rng, 3, 3), ["M", None, _matrix(rng, (3, 3))])
        d = _bad(rng, 0.3 * np.eye(2), [np.nan * np.eye(2), "a", None, np.eye(3), [[1e300]]])
        return name, lambda: tl.close_lft(M, d)
    if name in ("lft_upper", "lft_lower"):
        M = _bad(rng, _matrix(rng, (3, 3)).real, [_system(rng, 3, 3), "M", None])
        D = _bad(rng, _matrix(rng, (1, 1)).real, [np.nan, "a", None, np.ones((4, 4)),
                                                  control.tf([1, 1, 1], [1, 1])])
        f = getattr(tl, name)
        return name, lambda: f(M, D)
    if name == "star":
        M1, M2 = _matrix(rng, (3, 3)).real, _matrix(rng, (3, 3)).real
        ny, nu = _bad(rng, 1, BAD_COUNTS), _bad(rng, 1, BAD_COUNTS)
        return name, lambda: tl.star(M1, M2, ny, nu)
    if name in ("robust_stability", "worst_case_gain", "monte_carlo"):
        G = _bad(rng, _loop(rng, int(rng.integers(1, 3))),
                 [_system(rng, 2, 2), "G", None, _matrix(rng, (2, 2))])
        blocks = None if not isinstance(G, control.StateSpace) else _blocks(rng)
        om = _bad(rng, np.r_[0.0, np.logspace(-1, 2, 60)],
                  [[np.nan], [-1.0], "a", [1e300], None, [1e308], 3.0])
        if name == "robust_stability":
            kw = {"seed": _bad(rng, 0, ["a", None, -1])}
            return name, lambda: tl.robust_stability(G, blocks, om, **kw)
        if name == "worst_case_gain":
            kw = {"seed": _bad(rng, 0, ["a", None]), "starts": _bad(rng, 2, BAD_COUNTS)}
            return name, lambda: tl.worst_case_gain(G, blocks, om, **kw)
        n = _bad(rng, 5, BAD_COUNTS)
        kw = {"seed": _bad(rng, 0, ["a", None, -1, 1.5]),
              "chunksize": _bad(rng, 50, BAD_COUNTS),
              "executor": None if rng.random() < 0.8 else "pool"}
        return name, lambda: tl.monte_carlo(G, blocks, n, omega=om, **kw)
    if name in ("sample", "at"):
        G = _loop(rng, 2)
        if name == "sample":
            n = _bad(rng, 3, BAD_COUNTS)
            seed_ = _bad(rng, 0, ["a", -1, 1.5, [1, 2]])
            meth = ["sample", "sample_delta"][int(rng.integers(2))]
            return name, lambda: getattr(G, meth)(n, seed_)
        kw = {"k": _bad(rng, 4.0, sc), "c": _bad(rng, 1.0, sc)}
        if rng.random() < 0.2:
            kw["zz"] = 1.0
        meth = ["at", "at_delta", "grid"][int(rng.integers(3))]
        if meth == "grid":
            gv = _bad(rng, {"k": _bad(rng, [3.0, 4.0], [[np.nan], [], "a", None, 3.0])},
                      [None, "k", [3.0]])
            return name, lambda: G.grid(gv)
        return name, lambda: getattr(G, meth)(**kw)
    if name == "algebra":
        G = _loop(rng, 1)
        other = _bad(rng, _system(rng, 1, 1), [np.nan, np.inf, "a", None, _matrix(rng, (2, 2)),
                                               1e300, control.tf([1], [1, 1]), 0.0])
        op = ["feedback", "series", "parallel", "append", "hstack", "vstack", "add", "mul",
              "truediv", "pow"][int(rng.integers(10))]
        if op == "add":
            return name, lambda: G + other
        if op == "mul":
            return name, lambda: G * other
        if op == "truediv":
            return name, lambda: G / other
        if op == "pow":
            return name, lambda: G ** _bad(rng, 2, [1.5, "a", None, -1, np.nan])
        f = getattr(tl, op)
        if op == "feedback":
            sign = _bad(rng, -1, ["a", None, 0.5, np.nan])
            return name, lambda: f(G, other, sign)
        return name, lambda: f(G, other)
    if name == "interconnect":
        G = tl.uss(_loop(rng, 1), inputs="f", outputs="x", name="G")
        K = control.tf([1.0], [1, 1], inputs="x", outputs="v", name="K")
        inp = _bad(rng, ["f"], [None, "zz", [3], [["f"]]])
        out = _bad(rng, ["x", "v"], [None, "zz", [3]])
        systems = _bad(rng, [G, K], [None, "G", [G, "K"], [G, None]])
        kw = {"inputs": _bad(rng, None, [3, "u", ["a", "b"]]),
              "connections": _bad(rng, None, ["zz", [["a"]], 3])}
        return name, lambda: tl.interconnect(systems, inp, out, **kw)
    if name == "reduce":
        G = _bad(rng, _loop(rng, 2), [_system(rng, 1, 1), "G", None])
        tol = _bad(rng, 1e-10, sc)
        return name, lambda: tl.reduce_lft(G, tol)
    if name == "affine_lft":
        M0 = _bad(rng, _matrix(rng, (2, 2)).real, ["a", None, np.full((2, 2), np.nan)])
        p = tl.ureal("p", 1.0, percent=20)
        terms = _bad(rng, {p: np.eye(2)}, [{"p": np.eye(2)}, {p: np.eye(3)}, {p: np.nan},
                                           None, "x"])
        return name, lambda: tl.affine_lft(M0, terms)
    if name == "DeltaStructure":
        b = _blocks(rng)
        if rng.random() < 0.5 or not isinstance(b, list):
            return name, lambda: tl.DeltaStructure(b)
        kind, rows, cols, rep, nm = b[0]
        return name, lambda: tl.Block(nm, kind, rows, cols, rep)
    M = _bad(rng, _matrix(rng, (2, 2)), [np.nan, "a", None, np.ones((3, 3))])
    return name, lambda: tl.ComplexStateSpace(M, np.ones((2, 1)), np.ones((1, 2)),
                                              np.zeros((1, 1)), 0, ("u",), ("y",),
                                              ("x1", "x2")).frequency_response([0.0, 1.0])


def _has_nan(obj: Any, depth: int = 0) -> bool:
    """Whether a result holds a NaN (numbers, arrays, dataclass fields, tuples)."""
    if depth > 3:
        return False
    if isinstance(obj, (float, complex, np.floating, np.complexfloating)):
        return bool(np.isnan(obj))
    if isinstance(obj, np.ndarray) and obj.dtype.kind in "fc":
        return bool(np.isnan(obj).any())
    if isinstance(obj, (tuple, list)):
        return any(_has_nan(x, depth + 1) for x in obj)
    if hasattr(obj, "__dataclass_fields__"):
        return any(_has_nan(getattr(obj, f), depth + 1) for f in obj.__dataclass_fields__
                   if f not in ("pole",))
    return False


def _site(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "titop_lpv" in f.filename]
    where = f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} @ {where}"


def _worker(conn: Any, start: int, stop: int, seed: int) -> None:
    import warnings
    warnings.simplefilter("ignore")
    for i in range(start, stop):
        conn.send(("start", i))
        try:
            name, thunk = make_call(i, seed)
        except Exception as exc:  # a broken campaign, not a finding
            conn.send(("setup", i, repr(exc)))
            continue
        try:
            out = thunk()
            conn.send(("returned", i, name, "nan" if _has_nan(out) else ""))
        except TitopError:
            conn.send(("typed", i, name, ""))
        except Exception as exc:
            conn.send(("foreign", i, name, _site(exc)))
    conn.send(("done", stop))


def run(calls: int, seed: int, timeout: float) -> Counter:
    """Run the campaign and print the table; returns the outcome counts."""
    counts: Counter = Counter()
    sites: Counter = Counter()
    per_entry: dict[str, Counter] = {}
    ctx = mp.get_context("fork")
    i = 0
    while i < calls:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, i, calls, seed), daemon=True)
        proc.start()
        current = i
        while True:
            if not parent.poll(timeout):
                counts["hung"] += 1
                sites[f"hang in {make_call(current, seed)[0]}"] += 1
                per_entry.setdefault(make_call(current, seed)[0], Counter())["hung"] += 1
                proc.kill()
                proc.join()
                i = current + 1
                break
            msg = parent.recv()
            if msg[0] == "start":
                current = msg[1]
            elif msg[0] == "done":
                proc.join()
                i = calls
                break
            elif msg[0] == "setup":
                raise RuntimeError(f"campaign setup failed at call {msg[1]}: {msg[2]}")
            else:
                kind, _, name, info = msg
                counts[kind] += 1
                per_entry.setdefault(name, Counter())[kind] += 1
                if kind == "foreign":
                    sites[f"{name}: {info}"] += 1
                if info == "nan":
                    counts["nan"] += 1
                    sites[f"{name}: NaN in the result"] += 1
    print(f"package: {os.path.dirname(tl.__file__)}")
    print(f"calls {calls}  typed {counts['typed']}  foreign {counts['foreign']}  "
          f"returned {counts['returned']} (with NaN: {counts['nan']})  hung {counts['hung']}")
    print(f"{'entry point':20s} typed foreign returned hung")
    for name in sorted(per_entry):
        c = per_entry[name]
        print(f"{name:20s} {c['typed']:5d} {c['foreign']:7d} {c['returned']:8d} {c['hung']:4d}")
    if sites:
        print("distinct foreign sites / NaN results / hangs:")
        for s, n in sorted(sites.items(), key=lambda kv: -kv[1]):
            print(f"  {n:4d}  {s}")
    return counts


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--calls``, ``--seed``, ``--timeout``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=1000)
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--timeout", type=float, default=20.0)
    a = p.parse_args(argv)
    counts = run(a.calls, a.seed, a.timeout)
    return 1 if counts["foreign"] or counts["hung"] or counts["nan"] else 0


if __name__ == "__main__":
    sys.exit(main())
