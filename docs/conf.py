"""Sphinx configuration of the mtbn documentation site.

Build: ``pip install ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html``
"""

import os
import sys

# Document the source tree next to this folder (an installed mtbn would do as well).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import mtbn  # noqa: E402

project = "mtbn"
author = "The mtbn developers"
copyright = "The mtbn developers"
version = release = mtbn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]  # autosummary/class.rst: a class page documents its methods
exclude_patterns = ["_build", "_templates", "_extra", "Thumbs.db", ".DS_Store"]

# API reference: one page per public object, generated from the docstrings.
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"           # the numpydoc "Parameters" sections carry the types
numpydoc_show_class_members = False  # the class template documents the methods; numpydoc does not list them again
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

# The Markdown pages of docs/ (results, performance, design, ...) are included as they are.
myst_heading_anchors = 3

# The user guide's ``>>>`` examples are run by tests/test_docs.py (doctest on docs/guide/*.rst),
# the scripts it includes from docs/examples/ by tests/test_examples.py: the build itself runs no learner.

html_theme = "alabaster"
html_title = f"mtbn {release}"
html_static_path = []
# Copied as they are to the site's root: the sample report (written by experiments/figures_gallery.py).
html_extra_path = ["_extra"]
