"""The documentation (``docs/``: Sphinx, MyST Markdown pages, numpydoc API reference) builds
with warnings as errors — a broken cross-reference, a malformed docstring section or a
Markdown page Sphinx cannot place fails the suite."""

from __future__ import annotations

import warnings
from pathlib import Path

from sphinx.cmd.build import build_main

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["index", "getting-started", "cli", "theory", "model-file", "examples", "trim", "linearize",
         "uncertain", "robust", "export", "design", "api"]


def test_docs_build_without_warnings(tmp_path):
    with warnings.catch_warnings():
        # Python deprecation notices of the Markdown extension about Sphinx's own API: not
        # documentation warnings (those go through Sphinx's logger and -W turns them to errors)
        for category in (DeprecationWarning, PendingDeprecationWarning):
            warnings.filterwarnings("ignore", category=category, module=r"myst_parser\.")
        status = build_main(["-W", "--keep-going", "-q", "-b", "html",
                             "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")])
    assert status == 0, "sphinx-build -W failed: see the warnings above"
    missing = [page for page in PAGES if not (tmp_path / "html" / f"{page}.html").is_file()]
    assert not missing, f"pages not built: {missing}"
    api = (tmp_path / "html" / "api.html").read_text(encoding="utf-8")
    for name in ("titop_lpv.model.files.load_model", "titop_lpv.analysis.trim.trim",
                 "titop_lpv.analysis.linearize.linearize", "titop_lpv.analysis.lpv.LPVGrid.at",
                 "titop_lpv.io.export.save_linear"):
        assert f'id="{name}"' in api, f"{name} is missing from the API reference"
