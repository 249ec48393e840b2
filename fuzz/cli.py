"""Seeded fuzz campaign of the ``titop-lpv`` command line (issue 12).

Random malformed command lines: a command, a model (a shipped file, ``balloon``, a missing
path, a directory, an empty or garbage file, or a shipped model mutated as in
``fuzz/model.py`` and written as JSON, YAML or TOML) and a few options with bad values (NaN,
±inf, 1e300, empty, not a number, unknown names, repeated options). Each line runs
in-process through ``titop_lpv.cli.main.main`` with stdout and stderr captured and is
classified as

* typed: exit status 2 and one line ``titop-lpv: error: ...`` on stderr,
* foreign: exit status 1 (``internal error``) or an exception escaping ``main``,
* returned: exit status 0,
* non-finite: exit status 0 with ``nan`` or ``inf`` in the printed results,
* messy: any other ending (exit 2 with more than one stderr line, another status),
* hung: exceeded the per-call alarm,

and the number of lines that raised a numpy ``RuntimeWarning`` is counted too. Usage::

    python fuzz/cli.py [--calls N] [--seed S]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import signal
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

import titop_lpv as tl
from titop_lpv.cli.main import main as cli_main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model import HangError, _alarm, mutate, seeds  # fuzz/model.py, beside this file

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60
MODELS = [str(p) for p in sorted((ROOT / "examples").glob("*.toml"))] + ["balloon"]
NUMBERS = ["nan", "inf", "-inf", "1e300", "-1e300", "1e400", "", " ", "abc", "0", "-1", "1",
           "2.5", "1e-300", "NaN", "0x10", "1_0"]
NAMES = ["slider.q", "slider_q", "balloon_vx", "hub_wz", "panel1.q", "k", "k_hinge",
         "pendulum1.q", "pendulum2_q", "nope", "", "a.b.c", "hub", "slider.tau", "Omega"]
COMMANDS = ["simulate", "trim", "linearize", "modes", "bode", "sweep"]


GOOD = ["0.2", "0", "1.5", "-0.3", "50", "2.0"]


def _value(rng: random.Random) -> str:
    return rng.choice(NUMBERS) if rng.random() < 0.5 else rng.choice(GOOD)


def _pair(rng: random.Random, names: list[str]) -> str:
    return f"{rng.choice(names if rng.random() < 0.8 else NAMES)}={_value(rng)}"


def _spin(rng: random.Random, bodies: list[str]) -> str:
    body = rng.choice([*bodies, "moon", ""]) if rng.random() < 0.3 else bodies[0]
    axis = ",".join(rng.choice(["0", "0", "1", "nan", "inf", "1e300", "x", ""]) for _ in
                    range(rng.choice([3, 3, 3, 2, 4])))
    rate = _value(rng) if rng.random() < 0.8 else rng.choice(["k_hinge", "Omega", "a-b"])
    return rng.choice([f"{body}:{axis}:{rate}", f"{body}:0,0,1:{rate}", f"{body}:{axis}:2",
                       f"{body}:{axis}"])


def _grid(rng: random.Random, params: list[str]) -> str:
    lo, hi = _value(rng), _value(rng)
    n = rng.choice(["2", "3", "2", "0", "-1", "2.5", "nan", "1e300", "x"])
    return f"{rng.choice([*params, *params, 'nope'])}={lo}:{hi}:{n}"


def options(rng: random.Random, m: dict[str, list[str]]) -> dict[str, Any]:
    """Option generators for a model with these names."""
    states, params, bodies = m["states"], m["params"], m["bodies"]
    return {
        "--param": lambda: _pair(rng, params), "--fix": lambda: _pair(rng, states),
        "--guess": lambda: _pair(rng, states), "--x0": lambda: _pair(rng, states),
        "--spin": lambda: _spin(rng, bodies),
        "--free": lambda: ",".join(rng.sample(states + NAMES, rng.randint(1, 3))),
        "--actuate": lambda: rng.choice([*bodies, "nope", "", ",".join(bodies[1:])]),
        "--inputs": lambda: rng.choice([*m["inputs"], "nope", "", "pendulum1.tau"]),
        "--outputs": lambda: rng.choice([*m["outputs"], "nope", ""]),
        "--tol": lambda: _value(rng),
        "--t-final": lambda: _value(rng),
        "--signals": lambda: rng.choice([*m["outputs"], "nope", "", ","]),
        "--omega": lambda: f"{_value(rng)}:{_value(rng)}:{rng.choice(['2', '3', 'x'])}",
        "--workers": lambda: rng.choice(["0", "-1", "x", "1"]),
        "--out": lambda: rng.choice(["out.json", "out.npz", "x.txt", "no/dir/a.json",
                                     "out.png"]),
        "--grid": lambda: _grid(rng, params),
    }


def names_of(path: str) -> dict[str, list[str]]:
    """States, parameters, bodies, inputs and outputs of a shipped model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = tl.load_model(str(ROOT / "titop_lpv" / "data" / "balloon.toml")
                              if path == "balloon" else path)
    return {"states": list(model.state_names), "params": list(model.param_names) or ["k"],
            "bodies": list(model.body_names), "inputs": list(model.input_names) or ["nope"],
            "outputs": list(model.output_names)}


def model_argument(rng: random.Random, tmp: Path, base: list[dict[str, Any]], i: int,
                   k: int) -> str:
    """A model argument: shipped model ``i``, a mutant of it, or a bad file."""
    r = rng.random()
    if r < 0.45:
        return MODELS[i]
    if r < 0.52:
        return rng.choice(["missing.toml", str(tmp), "empty.json", "garbage.yaml",
                           "model.txt"])
    desc = mutate(rng, base[i], rng.choice([1, 1, 2]))
    kind = rng.choice(["json", "yaml"])
    path = tmp / f"m{k}.{kind}"
    try:
        if kind == "json":
            path.write_text(json.dumps(desc, allow_nan=True))
        else:
            path.write_text(yaml.safe_dump(desc))
    except (TypeError, ValueError, yaml.YAMLError):  # a key JSON cannot write: as text
        path = path.with_suffix(".json")
        path.write_text(json.dumps(desc, allow_nan=True, default=str))
    return str(path)


def command_line(rng: random.Random, tmp: Path, base: list[dict[str, Any]],
                 names: list[dict[str, list[str]]], k: int) -> list[str]:
    """One random, mostly malformed, command line."""
    command = rng.choice(COMMANDS)
    i = rng.randrange(len(MODELS))
    argv = [command, model_argument(rng, tmp, base, i, k)]
    gen = options(rng, names[i])
    if command == "simulate":
        argv += ["--t-final", rng.choice(["0.05", "0.05", "0.05", *NUMBERS])]
    if command == "sweep" and rng.random() < 0.8:
        argv += ["--param", gen["--grid"]()]
    for _ in range(rng.randint(0, 3)):
        option = rng.choice(list(gen))
        argv += ["--param" if option == "--grid" else option, gen[option]()]
    return argv


def one_call(argv: list[str]) -> tuple[str, str, bool]:
    """Run one command line: (outcome, foreign message, numpy warning)."""
    out, err = io.StringIO(), io.StringIO()
    site = ""
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        try:
            status = cli_main(argv)
        except HangError:
            raise
        except BaseException as exc:  # escaping main is a bug whatever it is
            status, site = -1, f"{type(exc).__name__} escaped main: {exc}"[:160]
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()
             and not ln.lstrip().startswith(("simulat", "sweep", "["))]
    noisy = any(issubclass(w.category, RuntimeWarning) for w in caught)
    if status == 2 and len(lines) == 1 and lines[0].startswith("titop-lpv: error: "):
        return "typed", "", noisy
    if status == 0:
        wrong = re.search(r"\b(nan|inf)\b", out.getvalue(), re.IGNORECASE)
        return ("non-finite" if wrong else "returned"), "", noisy
    if status in (1, -1):
        if status == 1:
            site = lines[-1][len("titop-lpv: internal error: "):][:160] if lines else "?"
        return "foreign", site, noisy
    return "messy", f"status {status}: {lines[:3]}"[:160], noisy


def campaign(calls: int, seed: int) -> tuple[Counter, Counter, int, Counter]:
    """Run the campaign in a temporary directory."""
    rng = random.Random(seed)
    base = seeds()
    names = [names_of(m) for m in MODELS]
    outcomes: Counter = Counter()
    sites: Counter = Counter()
    repros: Counter = Counter()
    noisy = 0
    signal.signal(signal.SIGALRM, _alarm)
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        os.chdir(tmp)
        (tmp / "empty.json").write_text("")
        (tmp / "garbage.yaml").write_text("a: [1, 2\n")
        (tmp / "model.txt").write_text("name = 'x'\n")
        try:
            for k in range(calls):
                argv = command_line(rng, tmp, base, names, k)
                signal.alarm(TIMEOUT)
                try:
                    outcome, site, warned = one_call(argv)
                except HangError:
                    outcome, site, warned = "hung", "", False
                finally:
                    signal.alarm(0)
                outcomes[outcome] += 1
                noisy += warned
                if outcome == "non-finite":
                    site = "exit 0 with nan/inf in the results"
                if site:
                    sites[site] += 1
                    repros[f"[{outcome}] " + " ".join(argv)[:200]] += 1
        finally:
            os.chdir(cwd)
    return outcomes, sites, noisy, repros


def main() -> int:
    """Run the campaign and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--repros", action="store_true", help="print the foreign lines")
    args = parser.parse_args()
    outcomes, sites, noisy, repros = campaign(args.calls, args.seed)
    print(f"command-line fuzz campaign: seed {args.seed}, {args.calls} calls")
    print("| calls | typed | foreign | returned | non-finite | messy | hung | numpy warnings |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {args.calls} | {outcomes['typed']} | {outcomes['foreign']} | "
          f"{outcomes['returned']} | {outcomes['non-finite']} | {outcomes['messy']} | "
          f"{outcomes['hung']} | {noisy} |")
    if sites:
        print("\nforeign, messy and non-finite endings:")
        for site, count in sites.most_common():
            print(f"  {count:5d}  {site}")
    if args.repros:
        print("\nlines:")
        for line in repros:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
