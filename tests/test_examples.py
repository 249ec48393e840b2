"""Every script in examples/ runs to completion and prints what it is for.

The scripts are found by glob, so a new example is tested without editing this file. A
script that accepts ``--out`` writes its figure into the test's temporary directory; one
that accepts ``--t-final`` simulates a short time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
# a line (or part of one) each known example must print; other scripts: return code only
KEY_LINES = {
    "balloon_simulation": "total energy:",
    "balloon_trim": "static operating point of 'balloon': success",
    "spinning_spacecraft": "cyclic states (not part of the equilibrium)",
    "robot_arm_trim": "11/11 equilibria found",
    "four_bar": "rigid closure: ω = 3.714204154 rad/s",
    "ur5_urdf": "max |trim torque − inverse dynamics|",
    "twenty_sim_examples": "the 20-sim examples: 3/3 energy balances closed",
}


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_example_runs(script: Path, tmp_path: Path) -> None:
    source = script.read_text(encoding="utf-8")
    args: list[str] = []
    figure = None
    if "--out" in source:
        figure = tmp_path / f"{script.stem}.png"
        args += ["--out", str(figure)]
    if "--t-final" in source:
        args += ["--t-final", "2"]
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, (
        f"{script.name} exited with {result.returncode}\n--- stdout\n{result.stdout[-3000:]}"
        f"\n--- stderr\n{result.stderr[-3000:]}")
    if script.stem in KEY_LINES:
        assert KEY_LINES[script.stem] in result.stdout, result.stdout[-3000:]
    if figure is not None:
        assert str(figure) in result.stdout, result.stdout[-3000:]  # says where it wrote
        assert figure.is_file() and figure.stat().st_size > 0
    assert "Traceback" not in result.stderr


def test_examples_are_found() -> None:
    assert {s.stem for s in SCRIPTS} >= set(KEY_LINES)
