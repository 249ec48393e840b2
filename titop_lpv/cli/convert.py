"""``titop-lpv convert``: read a model file (TOML, JSON, YAML or URDF), write it as another.

The source is read and validated as ``load_model`` reads it (a URDF robot translated into
the model schema, see ``docs/model-file.md``) and written by ``save_model``: the written file
loads back to the same model. The output type follows its suffix (``.toml``, ``.json``,
``.yaml``/``.yml``) and is checked, with its directory, before any work.

Examples
--------
::

    titop-lpv convert robot.urdf robot.toml
    titop-lpv convert quadruped.urdf quadruped.json --floating
    titop-lpv convert examples/balloon.toml balloon.json
"""

from __future__ import annotations

import argparse
from typing import Any

from ..model import load_model, save_model
from ..model.writer import FORMATS
from . import args as cv

__all__ = ["COMMAND", "OPTIONS", "cmd_convert"]


def cmd_convert(args: argparse.Namespace) -> int:
    """Convert ``args.source`` into ``args.target``; print what was written.

    Parameters
    ----------
    args : argparse.Namespace
        ``source``, ``target`` (paths), ``floating`` (bool) and ``mimic`` (str).

    Returns
    -------
    int
        0 on success (errors are raised and reported by the command line).
    """
    target = cv.check_out(args.target, "TARGET", tuple(FORMATS))
    urdf = {"floating": args.floating, "mimic": args.mimic or "refuse"}
    model = load_model(args.source, **urdf)
    save_model(model, target)
    print(f"model {model.name!r} ({args.source}): {len(model.body_names)} bodies, "
          f"{model.n_states} states, {model.n_inputs} inputs, {model.n_outputs} outputs, "
          f"{len(model.param_names)} parameters")
    print(f"wrote {target} ({FORMATS[target.suffix.lower()]})")
    return 0


OPTIONS: dict[str, list[tuple[str, dict[str, Any]]]] = {"convert": [
    ("source", {"metavar": "SOURCE", "help": "model file to read (.toml, .json, .yaml, .urdf)"}),
    ("target", {"metavar": "TARGET", "help": "model file to write (.toml, .json, .yaml); "
                "an existing file is replaced"}),
    ("--floating", {"action": "store_true",
                    "help": "URDF: a free root joint (floating base) instead of a weld"}),
    ("--mimic", {"choices": ("refuse", "independent"), "default": None,
                 "help": "URDF: refuse <mimic> joints (default) or make them independent"}),
]}
COMMAND = ("convert", cmd_convert, "convert a model file (TOML, JSON, YAML, URDF) to TOML, "
           "JSON or YAML", "robot.urdf robot.toml", ())
