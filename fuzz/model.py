"""Seeded fuzz campaign of model descriptions (issue 12: bad input never escapes raw).

Every shipped model file (``examples/*.toml``, ``titop_lpv/data/*.toml``) is read into a dict
and mutated at random (a field replaced by ``None``, a list, a dict, a string, NaN, ±inf,
±1e200, a negative number, an integer name, a renamed or deleted key, a top level that is
not a table, ...). Each mutant goes through ``titop_lpv.load_model`` and, when it loads, one
evaluation of the dynamics at the default state. Each call is classified as

* typed: a ``titop_lpv`` error (``TitopError``),
* foreign: any other exception (the bug class of the issue),
* returned: loaded, finite ``ẋ`` at the default state,
* non-finite: loaded, but ``ẋ`` has NaN/inf (a silently wrong answer),
* hung: exceeded the per-call alarm,

and the number of calls that raised a numpy ``RuntimeWarning`` (numpy's default error
settings: overflow, invalid value, division by zero) is counted too. Usage::

    python fuzz/model.py [--calls N] [--seed S]
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import signal
import sys
import traceback
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

import titop_lpv as tl
from titop_lpv.exceptions import TitopError
from titop_lpv.model.files import read_description

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 20  # seconds per call: only turns a hang into a count

LEAVES: list[Any] = [
    None, [], {}, [1.0, 2.0], {"a": 1.0}, "x", "", "k", "not a name", math.nan, math.inf,
    -math.inf, 1e200, -1e200, 1e-300, 0, 0.0, -1.0, 1, 7, True, False, [math.nan, 0.0, 0.0],
    [1e200, 0.0, 0.0], [0.0, 0.0, 0.0], [[1.0, 0.0, 0.0]] * 3, [None, 0.0, 0.0], 10**400,
    [[0.0] * 3] * 3, "origin", "com", "world", "free", "weld", "revolute", "prismatic",
]
TOP_LEVELS: list[Any] = [None, [], [1, 2], 3, 2.5, "model", True]


class HangError(Exception):
    """The per-call alarm fired."""


def _alarm(signum: int, frame: Any) -> None:
    raise HangError


def seeds() -> list[dict[str, Any]]:
    """The shipped model files as dicts."""
    paths = sorted((ROOT / "examples").glob("*.toml")) + sorted(
        (ROOT / "titop_lpv" / "data").glob("*.toml"))
    return [read_description(p) for p in paths]


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys/indices) to a value inside ``node``."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append((*prefix, k))
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append((*prefix, i))
            out += _paths(v, (*prefix, i))
    return out


def _container(root: Any, path: tuple) -> Any:
    node = root
    for key in path[:-1]:
        node = node[key]
    return node


def mutate(rng: random.Random, desc: dict[str, Any], n: int) -> Any:
    """``desc`` with ``n`` random mutations (a deep copy)."""
    d: Any = copy.deepcopy(desc)
    for _ in range(n):
        if rng.random() < 0.03:
            return rng.choice(TOP_LEVELS)
        paths = _paths(d)
        if not paths:
            break
        path = rng.choice(paths)
        parent = _container(d, path)
        key = path[-1]
        r = rng.random()
        if r < 0.75:
            parent[key] = copy.deepcopy(rng.choice(LEAVES))
        elif r < 0.85 and isinstance(parent, dict):
            value = parent.pop(key)
            parent[rng.choice([1, 2.5, None, "zz", key.upper() if isinstance(key, str) else 0])
                   ] = value
        elif r < 0.93:
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
        elif isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
            parent[key] = parent[key] * rng.choice([-1.0, 0.0, 1e200, 1e-300, math.nan])
        else:
            parent[key] = copy.deepcopy(rng.choice(LEAVES))
    return d


def one_call(desc: Any) -> tuple[str, str, bool]:
    """Load ``desc`` and evaluate its dynamics once: (outcome, foreign site, numpy warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = tl.load_model(desc)
            xdot = model.dynamics(0.0, model.default_state())
            outcome = "returned" if np.all(np.isfinite(xdot)) else "non-finite"
            site = ""
        except HangError:
            outcome, site = "hung", ""
        except TitopError:
            outcome, site = "typed", ""
        except Exception as err:
            frames = [f for f in traceback.extract_tb(err.__traceback__)
                      if "titop_lpv" in f.filename]
            where = frames[-1] if frames else traceback.extract_tb(err.__traceback__)[-1]
            outcome = "foreign"
            site = (f"{type(err).__name__} at {Path(where.filename).name}:{where.lineno} "
                    f"({where.name})")
    noisy = any(issubclass(w.category, RuntimeWarning) for w in caught)
    return outcome, site, noisy


def campaign(calls: int, seed: int) -> tuple[Counter, Counter, int]:
    """Run the campaign; return outcome counts, foreign sites and the noisy-call count."""
    rng = random.Random(seed)
    base = seeds()
    outcomes: Counter = Counter()
    sites: Counter = Counter()
    noisy = 0
    signal.signal(signal.SIGALRM, _alarm)
    for _ in range(calls):
        desc = mutate(rng, rng.choice(base), rng.choice([1, 1, 2, 3]))
        signal.alarm(TIMEOUT)
        try:
            outcome, site, warned = one_call(desc)
        except HangError:
            outcome, site, warned = "hung", "", False
        finally:
            signal.alarm(0)
        outcomes[outcome] += 1
        noisy += warned
        if site:
            sites[site] += 1
    return outcomes, sites, noisy


def main() -> int:
    """Run the campaign and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    outcomes, sites, noisy = campaign(args.calls, args.seed)
    print(f"model-description fuzz campaign: seed {args.seed}, {args.calls} calls")
    print("| calls | typed | foreign | returned | non-finite | hung | numpy warnings |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {args.calls} | {outcomes['typed']} | {outcomes['foreign']} | "
          f"{outcomes['returned']} | {outcomes['non-finite']} | {outcomes['hung']} | {noisy} |")
    if sites:
        print("\nforeign sites:")
        for site, count in sites.most_common():
            print(f"  {count:5d}  {site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
