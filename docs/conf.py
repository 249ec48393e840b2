"""Sphinx configuration of the titop_lpv documentation.

Build (warnings are errors, as in CI's ``tests/test_docs.py``)::

    sphinx-build -W --keep-going -b html docs /tmp/docs_build

No network is used: no intersphinx, MathJax is only referenced by the HTML pages.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the package from this checkout, installed or not
os.environ.setdefault("MPLBACKEND", "Agg")  # importing the plots module never needs a screen

import titop_lpv  # noqa: E402

project = "titop_lpv"
author = "titop_lpv developers"
copyright = "titop_lpv developers"
release = titop_lpv.__version__
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
templates_path: list[str] = []

# Markdown (MyST): "$...$" maths, "(label)=" targets and heading anchors for "#section" links
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# API reference: numpydoc renders the docstrings; no member tables inside classes (the
# members are documented by autodoc), no cross-referencing of free-text parameter types
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc "Parameters" sections carry the types
autosummary_generate = False  # tables only; the pages come from automodule in api.rst
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# The command line (titop_lpv.cli.main) is documented when the installed package has it.
CLI_SECTION = """

Command line
------------

.. automodule:: titop_lpv.cli.main
"""


def _add_cli(app, docname, source):
    """Append the command-line module to the API page when it exists."""
    if docname == "api" and importlib.util.find_spec("titop_lpv.cli.main") is not None:
        source[0] += CLI_SECTION


def setup(app):
    app.connect("source-read", _add_cli)


html_theme = "alabaster"
html_title = f"titop_lpv {release}"
html_static_path: list[str] = []
