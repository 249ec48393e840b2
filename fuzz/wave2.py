"""Seeded fuzz campaign of the wave-2 surfaces (issue 25 item 5: the last bad-input escapes).

Five sections, drawn in turn from one seed:

* ``urdf``: a small URDF arm (two links, a revolute, a prismatic and a fixed joint) mutated
  as text (an attribute value replaced by NaN, ``inf``, ``1e400``, ``""``, ``"abc"``, two or
  four numbers, a negative mass; an element deleted, duplicated or renamed; a tag cut; the
  text truncated; an unknown joint type), read by ``load_model`` (``floating`` and ``mimic``
  valid or not), then ``ẋ`` at the default state;
* ``save_model``: a shipped model, its ``System`` or its description (valid or mutated as in
  ``fuzz/model.py``) written to TOML/JSON/YAML or to a bad path, then read back: the
  dynamics at the default state must be bit-identical to the source's;
* ``load_linear``: a ``StateSpace`` (with its operating point), an ``LPVGrid`` and an
  uncertain system written by ``save_linear`` to ``.npz``, ``.mat`` or ``.json``, then the
  file corrupted (a field dropped, replaced by NaN, a string, a wrong shape; the bytes
  truncated), then ``load_linear``;
* ``linearize_uncertain``: a two-parameter mass-spring (``k``, ``m``) with ``free``,
  ``uncertain``, ``scheduling``, ``inputs``, ``outputs``, ``params``, ``fixed``, ``guess``,
  ``kind``, ``tol`` valid or drawn from pools of bad values;
* ``convert``: ``titop-lpv convert SOURCE TARGET [--floating] [--mimic M]`` with shipped,
  mutated or missing sources (URDF too) and good or bad targets, in-process as in
  ``fuzz/cli.py`` (typed: exit 2 with one ``titop-lpv: error:`` line).

Each call is classified as in the other campaigns: typed (a ``TitopError``), foreign (any
other exception: the bug class hunted), returned (every number finite), non-finite (a NaN
or inf in the result, or a round trip that changed the dynamics: a silently wrong answer),
hung (over the per-call alarm). Usage::

    python fuzz/wave2.py [--calls N] [--seed S] [--timeout T]
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import re
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import control
import numpy as np
import scipy.io
import yaml

import titop_lpv as tl
from titop_lpv.cli.main import main as cli_main
from titop_lpv.exceptions import TitopError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from campaign import Hang, arguments, print_table, run  # fuzz/campaign.py, beside this file
from campaign import site as campaign_site
from model import mutate, seeds  # fuzz/model.py, beside this file

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "examples").glob("*.toml"))


# --------------------------------------------------------------------------- URDF text
def _link(name: str, mass: str = "1.0") -> str:
    return (f'<link name="{name}"><inertial><origin xyz="0.1 -0.2 0.05" rpy="0.4 -0.3 1.1"/>'
            f'<mass value="{mass}"/><inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0.01" '
            'ixz="0" iyz="0.02"/></inertial></link>')


def _joint(name: str, parent: str, child: str, kind: str, extra: str) -> str:
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/>{extra}<limit effort="1" velocity="1" lower="-1" '
            'upper="1"/></joint>')


ARM = ('<?xml version="1.0"?>\n<robot name="arm">\n<link name="base"/>' + _link("a")
       + _link("b") + '<link name="tip"/>'
       + _joint("j1", "base", "a", "revolute", '<origin xyz="0 0 0.3" rpy="0.1 0.2 0.3"/>'
                '<axis xyz="0 0 1"/><dynamics damping="0.7" friction="0.1"/>')
       + _joint("j2", "a", "b", "prismatic", '<origin xyz="0.5 0 0"/><axis xyz="1 1 0"/>')
       + _joint("tool", "b", "tip", "fixed", '<origin xyz="0 0 0.2"/>')
       + "\n</robot>\n")
ATTR_VALUES = ["nan", "inf", "-inf", "1e400", "1e300", "", "abc", "1 2", "1 2 3 4", "0 0 0",
               "-1", "0", "1e-300", "0x10", "1,2,3", "NaN NaN NaN", "a", "base", "tip",
               "continuous", "floating", "planar", "spherical", "revolute", "j1", "&amp;"]


def mutate_urdf(rng: random.Random, text: str, n: int) -> str:
    """``text`` with ``n`` textual mutations."""
    for _ in range(n):
        r = rng.random()
        attrs = list(re.finditer(r'(\w+)="([^"]*)"', text))
        elems = list(re.finditer(r"<(\w+)[^<>]*/>|<(\w+)[^<>]*>.*?</\2>", text, re.S))
        if r < 0.5 and attrs:
            m = rng.choice(attrs)
            text = text[:m.start(2)] + rng.choice(ATTR_VALUES) + text[m.end(2):]
        elif r < 0.62 and elems:
            m = rng.choice(elems)
            text = text[:m.start()] + text[m.end():]
        elif r < 0.72 and elems:
            m = rng.choice(elems)
            text = text[:m.end()] + m.group(0) + text[m.end():]
        elif r < 0.8:
            tag = rng.choice(["link", "joint", "inertial", "mass", "origin", "axis", "parent",
                              "child", "inertia", "robot"])
            text = text.replace(f"<{tag}", f"<{rng.choice(['x', 'mimic', 'link', 'joint'])}",
                                1)
        elif r < 0.87:
            text = text[:rng.randrange(len(text))]
        elif r < 0.93:
            k = rng.randrange(len(text))
            text = text[:k] + rng.choice(["<", ">", "&", '"', "\x00", "é", "<!--"]) + text[k:]
        else:
            text = text.replace('type="fixed"', f'type="{rng.choice(ATTR_VALUES)}"', 1)
    return text


def non_finite(result: Any) -> bool:
    """True when a result holds NaN/inf or non-numeric entries."""
    arrays: list[Any] = []
    if isinstance(result, np.ndarray):
        arrays = [result]
    elif isinstance(result, control.StateSpace):
        arrays = [result.A, result.B, result.C, result.D]
    elif isinstance(result, tl.LPVGrid):
        arrays = [m for s in result.systems.flat if s is not None for m in (s.A, s.B)]
    elif hasattr(result, "abcd"):
        arrays = list(result.abcd)
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind not in "fcib" or not np.all(np.isfinite(a)):
            return True
    return False


class Campaign:
    """The argument generators; ``tmp`` holds every file written."""

    def __init__(self, seed: int, tmp: Path):
        self.rng = random.Random(seed)
        self.tmp = tmp
        self.k = 0
        self.descs = seeds()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.models = [tl.load_model(p) for p in SHIPPED]
        s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
        s.parameter("k", 40.0)
        s.parameter("m", 2.0)
        s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True), mass="m")
        self.spring_system = s
        self.spring = s.compile()
        self.sys = tl.linearize(self.spring, x=self.spring.default_state())
        self.op = tl.trim(self.spring, ["cart.q"])
        self.grid = tl.linearize_sweep(self.spring, {"k": [10.0, 20.0]}, ["cart_q"],
                                       progress=False)
        k = tl.ureal("k", 40.0, range=(30.0, 50.0))
        self.uss = tl.uss(tl.feedback(control.tf(1, [1, 0, 0]), k), inputs="f", outputs="x",
                          name="G")

    def path(self, suffix: str) -> Path:
        self.k += 1
        return self.tmp / f"f{self.k}{suffix}"

    # ----------------------------------------------------------------------- sections
    def urdf(self) -> Callable[[], Any]:
        text = mutate_urdf(self.rng, ARM, self.rng.choice([0, 1, 1, 2, 3]))
        path = self.path(".urdf")
        path.write_text(text, encoding="utf-8")
        kw: dict[str, Any] = {}
        if self.rng.random() < 0.3:
            kw["floating"] = self.rng.choice([True, False, "yes", None, 1])
        if self.rng.random() < 0.3:
            kw["mimic"] = self.rng.choice(["refuse", "independent", "x", None, 3])

        def call() -> Any:
            model = tl.load_model(path, **kw)
            return model.dynamics(0.0, model.default_state())
        return call

    def save_model(self) -> Callable[[], Any]:
        i = self.rng.randrange(len(SHIPPED))
        r = self.rng.random()
        if r < 0.3:
            source: Any = self.models[i]
        elif r < 0.4:
            source = self.spring_system
        elif r < 0.6:
            source = self.descs[i]
        elif r < 0.9:
            source = mutate(self.rng, self.descs[i], self.rng.choice([1, 1, 2]))
        else:
            source = self.rng.choice([3, None, "abc", [1, 2], {"name": 3}])
        suffix = self.rng.choice([".toml", ".json", ".yaml", ".yml", ".toml", ".txt", "",
                                  ".urdf", ".TOML"])
        target: Any = self.path(suffix)
        if self.rng.random() < 0.1:
            target = self.rng.choice([self.tmp, self.tmp / "no" / "dir" / "m.toml", 5, None,
                                      b"m.json"])

        def call() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = source if isinstance(source, tl.Model) else tl.load_model(source)
                written = tl.save_model(source, target)
                back = tl.load_model(written)
            x0 = ref.default_state()
            if back.state_names != ref.state_names or not np.array_equal(
                    back.dynamics(0.0, x0), ref.dynamics(0.0, x0)):
                return np.array([np.nan])  # a round trip that changed the model
            return back.dynamics(0.0, x0)
        return call

    def load_linear(self) -> Callable[[], Any]:
        obj, op = self.rng.choice([(self.sys, None), (self.sys, self.op), (self.grid, None),
                                   (self.uss, None)])
        fmt = self.rng.choice([".npz", ".mat", ".json"])
        path = self.path(fmt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tl.save_linear(obj, path, op) if op is not None else tl.save_linear(obj, path)
        if self.rng.random() < 0.8:
            self.corrupt(path, fmt)
        return lambda: tl.load_linear(path)

    def corrupt(self, path: Path, fmt: str) -> None:
        """Corrupt a saved linear model in place."""
        rng = self.rng
        if rng.random() < 0.15:
            data = path.read_bytes()
            path.write_bytes(data[:rng.randrange(len(data))])
            return
        if fmt == ".json":
            desc = json.loads(path.read_text())
            desc = mutate(rng, desc, rng.choice([1, 1, 2]))
            path.write_text(json.dumps(desc, allow_nan=True, default=str))
            return
        if fmt == ".npz":
            with np.load(path, allow_pickle=False) as f:
                d = {k: f[k] for k in f.files}
        else:
            d = {k: v for k, v in scipy.io.loadmat(path).items() if not k.startswith("__")}
        key = rng.choice(sorted(d))
        choice = rng.randrange(6)
        if choice == 0:
            del d[key]
        elif choice == 1:
            d[key] = np.full(np.shape(d[key]) or (1,), np.nan)
        elif choice == 2:
            d[key] = np.array(["abc"])
        elif choice == 3:
            d[key] = np.zeros((7, 3))
        elif choice == 4:
            d[key] = np.array(rng.choice([1e300, -1.0, 0.0, 2.5, 10**6]))
        else:
            d[rng.choice(["zz", "A", "block_sizes", "kind", "version"])] = np.array([[1.5]])
        if fmt == ".npz":
            np.savez(path, **d)
        else:
            scipy.io.savemat(path, d)

    def linearize_uncertain(self) -> Callable[[], Any]:
        rng = self.rng
        rate = rng.choice([0.0, 0.2, 0.4])

        def pick(valid: Any, bad: list[Any]) -> Any:
            return rng.choice(bad) if rng.random() < rate else valid

        free = pick(["cart.q"], [[], ["nope"], "cart.q", [3], None, ["cart.q", "cart.q"],
                                 np.array("cart.q"), ["cart_tau"], {"cart.q": 1}])
        kw: dict[str, Any] = {
            "uncertain": pick({"k": (30.0, 50.0)},
                              [{"k": (50.0, 30.0)}, {"k": (math.nan, 1.0)}, {"k": 10.0},
                               {"k": (-1.0, 1.0)}, {"k": (0.0, 1e300)}, {"zz": (1.0, 2.0)},
                               ["k"], "k", {3: (1.0, 2.0)}, {"k": ("a", "b")},
                               {"k": (1.0, 2.0, 3.0)}, {"m": (-1.0, 1.0)}, {"m": (0.0, 2.0)},
                               {"k": tl.ureal("k", 40.0, percent=10)},
                               {"k": tl.ureal("q", 40.0, percent=10)}, None, 5])}
        for key, valid, bad in (
            ("inputs", ["cart_tau"], [["nope"], "cart_tau", [3], np.array("cart_tau")]),
            ("outputs", ["cart_q"], [["nope"], "cart_q", [None]]),
            ("params", {"m": 2.5}, [{"m": math.nan}, {"m": -1.0}, {"zz": 1.0}, "m", {"m": "a"},
                                    {"k": 1e300}]),
            ("fixed", None, [{"cart_q": math.nan}, {"nope": 1.0}, "x", {"cart_qd": 1.0}]),
            ("guess", {"cart.q": 0.1}, [{"cart.q": math.nan}, {"cart.q": 1e300}, "x",
                                        {"nope": 1.0}]),
            ("scheduling", None, [{"cart.q": (0.0, 1.0)}, {"cart.q": "a"}, {"zz": (0, 1)},
                                  {"cart.q": (math.nan, 1.0)}, 3]),
            ("kind", "static", ["spin", "nope", 3, None]),
            ("tol", 1e-10, [math.nan, -1.0, 0.0, "a", math.inf]),
            ("drop_integrators", False, ["yes", 2, None]),
        ):
            if rng.random() < 0.3:
                kw[key] = pick(valid, bad)

        def call() -> Any:
            G = tl.linearize_uncertain(self.spring, free, **kw)
            return G.nominal() if callable(getattr(G, "nominal", None)) else G.nominal
        return call

    def convert(self) -> Callable[[], Any]:
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            source = str(rng.choice(SHIPPED))
        elif r < 0.55:
            p = self.path(".urdf")
            p.write_text(mutate_urdf(rng, ARM, rng.choice([0, 1, 2])), encoding="utf-8")
            source = str(p)
        elif r < 0.85:
            desc = mutate(rng, rng.choice(self.descs), rng.choice([1, 2]))
            p = self.path(rng.choice([".json", ".yaml"]))
            try:
                p.write_text(json.dumps(desc, allow_nan=True) if p.suffix == ".json"
                             else yaml.safe_dump(desc))
            except (TypeError, ValueError, yaml.YAMLError):
                p = p.with_suffix(".json")
                p.write_text(json.dumps(desc, allow_nan=True, default=str))
            source = str(p)
        else:
            source = rng.choice(["missing.toml", str(self.tmp), "x.urdf", ""])
        target = str(self.path(rng.choice([".toml", ".json", ".yaml", ".toml", ".urdf", ".txt",
                                           ""])))
        if rng.random() < 0.1:
            target = rng.choice([str(self.tmp), str(self.tmp / "no" / "d.toml"), ""])
        argv = ["convert", source, target]
        if rng.random() < 0.3:
            argv.append("--floating")
        if rng.random() < 0.2:
            argv += ["--mimic", rng.choice(["refuse", "independent", "x", ""])]
        if rng.random() < 0.05:
            argv = argv[:rng.randrange(1, len(argv))]
        return lambda: run_cli(argv)

    def call(self) -> tuple[str, Callable[[], Any]]:
        """One random call: (section name, thunk)."""
        makers = [("urdf", self.urdf, 3), ("save_model", self.save_model, 2),
                  ("load_linear", self.load_linear, 2),
                  ("linearize_uncertain", self.linearize_uncertain, 2),
                  ("convert", self.convert, 2)]
        names, funcs, weights = zip(*makers)
        k = self.rng.choices(range(len(names)), weights)[0]
        return names[k], funcs[k]()


class CliForeignError(Exception):
    """The command line ended otherwise than with status 0 or one usage error."""


class CliTypedError(TitopError):
    """The command line ended with status 2 and one ``titop-lpv: error:`` line."""


def run_cli(argv: list[str]) -> Any:
    """Run one command line in-process; its ending as a return or an exception."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli_main(argv)
        except Hang:
            raise
        except BaseException as exc:  # escaping main is a bug whatever it is
            raise CliForeignError(f"{type(exc).__name__} escaped main: {exc}"[:160]) from exc
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    if status == 2 and len(lines) == 1 and lines[0].startswith("titop-lpv: error: "):
        raise CliTypedError(lines[0])
    if status == 0:
        return np.array([np.nan]) if re.search(r"\b(nan|inf)\b", out.getvalue(), re.I) \
            else np.zeros(1)
    raise CliForeignError(f"status {status}: {lines[-1] if lines else '?'}"[:160])


def site(err: BaseException) -> str:
    """Innermost frame inside titop_lpv (or the last frame) of an exception."""
    if isinstance(err, CliForeignError):
        return str(err)
    return campaign_site(err, message=True)


def main(argv: list[str] | None = None) -> int:
    """Run the campaign and print the outcome table."""
    args = arguments(__doc__, argv, timeout=20.0)
    np.seterr(all="ignore")
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmpdir:
        camp = Campaign(args.seed, Path(tmpdir))
        counts, per, foreign = run(args.calls, camp.call, args.timeout, non_finite, site,
                                   list_hangs=True)
    print(f"package: {Path(tl.__file__).parent}")
    print(f"wave-2 fuzz campaign: seed {args.seed}, {args.calls} calls")
    print_table("section", counts, per, foreign, "distinct foreign sites and hangs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
