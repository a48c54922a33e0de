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
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]  # autosummary/class.rst: a class page documents its methods
exclude_patterns = ["_build", "_templates", "Thumbs.db", ".DS_Store"]

# API reference: one page per public object, generated from the docstrings.
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"           # the numpydoc "Parameters" sections carry the types
numpydoc_show_class_members = False  # autosummary lists the methods; numpydoc does not repeat them
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

# The Markdown pages of docs/ (results, performance, design, ...) are included as they are.
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# Examples in the user guide are ``.. doctest::`` blocks, run by ``-b doctest``
# (and by tests/test_docs.py); keep them to ASIA-size data and a few hundred rows.
doctest_global_setup = """
import warnings
warnings.simplefilter("ignore")
"""

html_theme = "alabaster"
html_title = f"mtbn {release}"
html_static_path = []
