"""Seeded fuzz campaign over the arguments of ``titop_lpv.trim``.

Every call gets mutated arguments (free, fixed, kind, spin, params, x0, guess, tol,
max_nfev, pin_neutral) on three small models, under a per-call alarm (10 s). Outcomes:
a typed ``titop_lpv`` error, a foreign exception (its type and the innermost titop_lpv
frame are listed), a normal return (with a NaN anywhere in the result counted apart), or
a hang. Run ``python fuzz/trim.py [--calls N] [--seed S]``; the table is deterministic for a
given count and seed.
"""

from __future__ import annotations

import argparse
import collections
import signal
import sys
import traceback
import warnings

import numpy as np

import titop_lpv as tl

TIMEOUT = 10


class HangError(Exception):
    """Raised by the alarm."""


def _alarm(signum, frame):
    raise HangError


def models() -> dict[str, tl.Model]:
    pend = tl.System("pend", gravity=[0.0, -9.81, 0.0])
    pend.parameter("k", 2.0)
    pend.body("arm", tl.Revolute(axis=[0, 0, 1], stiffness="k", q0=0.3), mass=1.0,
              com=[0.0, -1.0, 0.0], ports={"tip": [0.0, -1.0, 0.0]})
    pend.body("bob", tl.Revolute(axis=[0, 0, 1], q0=-0.2), parent="arm.tip", mass=1.0,
              com=[0.0, -1.0, 0.0])
    hub = tl.System("hub", gravity=[0.0, 0.0, 0.0])
    hub.parameter("Omega", 2.0)
    hub.body("hub", tl.Free(), mass=5.0, inertia=np.diag([2.0, 2.0, 3.0]),
             ports={"p": [0.5, 0.0, 0.0]})
    hub.body("panel", tl.Revolute(axis=[0, 1, 0], stiffness=20.0, rest=0.3, q0=0.3),
             parent="hub.p", mass=1.0, com=[0.5, 0.0, 0.0])
    chain = tl.System("chain5", gravity=[0.0, -9.81, 0.0])
    parent = None
    for i in range(5):
        kw = {} if parent is None else {"parent": parent}
        chain.body(f"l{i}", tl.Revolute(axis=[0, 0, 1]), mass=1.0, com=[0.0, -0.5, 0.0],
                   ports={"tip": [0.0, -1.0, 0.0]}, **kw)
        parent = f"l{i}.tip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"pend": pend.compile(), "hub": hub.compile(), "chain": chain.compile()}


ODD = [None, float("nan"), float("inf"), -float("inf"), 1e300, -1e300, "abc", "1.5", b"x",
       [1.0], {}, (), object(), True, 0, -1, 1e-300, 3.5, 2 ** 70, complex(1, 1), np.nan,
       np.float64(2.0), np.array([1.0, 2.0])]


def pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def mutate_names(rng, names):
    choice = int(rng.integers(9))
    if choice == 0:
        return None
    if choice == 1:
        return pick(rng, [1, 2.5, "arm_q", b"arm_q", object()])
    if choice == 2:
        return [pick(rng, names), pick(rng, ODD)]
    if choice == 3:
        return ["no_such_name"]
    if choice == 4:
        return list(names[:2]) * 2
    if choice == 5:
        return {pick(rng, names): 1.0}
    k = int(rng.integers(0, len(names) + 1))
    return list(rng.permutation(names)[:k])


def arguments(rng, model):
    names = [n for n in model.state_names if not n.endswith("qd") and "_v" not in n
             and "_w" not in n]
    everything = list(model.state_names) + list(model.input_names) + list(model.param_names)
    kw: dict = {}
    free = mutate_names(rng, names) if rng.random() < 0.5 else list(names)
    if rng.random() < 0.4:
        kind = int(rng.integers(5))
        kw["fixed"] = ([pick(rng, everything)] if kind == 0 else
                       {pick(rng, everything): pick(rng, ODD)} if kind == 1 else
                       {pick(rng, [1, 2.5, None, b"k", (1,)]) if rng.random() < 0.3
                        else pick(rng, everything): float(rng.normal())} if kind == 2 else
                       pick(rng, ODD) if kind == 3 else
                       {pick(rng, everything): float(rng.normal())})
    if rng.random() < 0.25:
        kw["kind"] = pick(rng, ["static", "spin", "Static", 3, None])
    if rng.random() < 0.3:
        body = pick(rng, [*model.body_names, "nobody", 3])
        spin = {"body": body, "axis": pick(rng, [[0, 1, 0], [0, 0, 1], [0, 0, 0], "z",
                                                  [1, 2], [np.nan, 0, 1]]),
                "rate": pick(rng, [2.0, "Omega", "2.0", np.nan, "nope", None, 1e300, -3])}
        kw["kind"] = "spin"
        kw["spin"] = pick(rng, [spin, spin, "spin", [1, 2], {"body": body}])
    if rng.random() < 0.3:
        kw["params"] = pick(rng, [{pick(rng, everything): pick(rng, ODD)},
                                  {p: float(rng.normal()) for p in model.param_names},
                                  pick(rng, ODD)])
    if rng.random() < 0.3:
        x = model.default_state()
        choice = int(rng.integers(6))
        kw["x0"] = (x * 1e300 if choice == 0 else np.full(x.size, np.nan) if choice == 1
                    else x[:-1] if choice == 2 else pick(rng, ODD) if choice == 3
                    else x + rng.normal(0, 3, x.size) if choice == 4 else [str(v) for v in x])
    if rng.random() < 0.25:
        kw["guess"] = pick(rng, [{pick(rng, everything): pick(rng, ODD)},
                                 {pick(rng, names): float(rng.normal(0, 10))}, pick(rng, ODD)])
    if rng.random() < 0.2:
        kw["tol"] = pick(rng, [*ODD, 1e-8])
    if rng.random() < 0.2:
        kw["max_nfev"] = pick(rng, [*ODD, 1, 2, 5])
    if rng.random() < 0.15:
        kw["pin_neutral"] = pick(rng, [False, True, [pick(rng, names)], pick(rng, ODD)])
    if rng.random() < 0.5:
        kw["strict"] = False
    return free, kw


def has_nan(op) -> bool:
    values = [op.x, op.u, op.residual, np.array(list(op.params.values()), dtype=float)]
    return any(not np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values)


def site(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "titop_lpv" in f.filename]
    where = f"{frames[-1].filename.split('titop_lpv/')[-1]}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} at {where}"


def main(calls: int = 2000, seed: int = 12) -> None:
    rng = np.random.default_rng(seed)
    ms = models()
    counts = collections.Counter()
    foreign = collections.Counter()
    signal.signal(signal.SIGALRM, _alarm)
    for _ in range(calls):
        model = ms[pick(rng, list(ms))]
        free, kw = arguments(rng, model)
        signal.alarm(TIMEOUT)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                op = tl.trim(model, free, **kw)
            counts["returned"] += 1
            if has_nan(op):
                counts["returned NaN"] += 1
        except HangError:
            counts["hung"] += 1
        except tl.TitopError:
            counts["typed"] += 1
        except Exception as exc:  # the campaign counts them
            counts["foreign"] += 1
            foreign[site(exc)] += 1
        finally:
            signal.alarm(0)
    print(f"package: {tl.__file__}")
    print(f"calls {calls}, seed {seed}: typed {counts['typed']}, foreign {counts['foreign']}, "
          f"returned {counts['returned']} (with NaN {counts['returned NaN']}), "
          f"hung {counts['hung']}")
    for where, k in foreign.most_common():
        print(f"  foreign {k:4d}  {where}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=12)
    a = ap.parse_args(sys.argv[1:])
    main(a.calls, a.seed)
