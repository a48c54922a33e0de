"""Every example of the user guide (docs/guide/*.rst) runs and prints what the page shows."""

import doctest
import os
import warnings

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUIDE = os.path.join(ROOT, "docs", "guide")
PAGES = sorted(f for f in os.listdir(GUIDE) if f.endswith(".rst")) if os.path.isdir(GUIDE) else []
# Pages that only link to others or include the example scripts (tests/test_examples.py runs those).
NO_EXAMPLES = {"index.rst", "quickstart.rst"}


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_guide_examples(page, tmp_path, monkeypatch):
    if page == "relatedness.rst":
        pytest.importorskip("matplotlib")  # its report examples draw figures
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():  # a page's own warning filters (inference.rst ignores them) stay on the page
        result = doctest.testfile(os.path.join(GUIDE, page), module_relative=False, report=True,
                                  optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} example(s) of docs/guide/{page} failed (output above)"
    assert (result.attempted > 0) == (page not in NO_EXAMPLES)


def test_the_guide_has_its_pages():
    assert {"data.rst", "penalty.rst", "relatedness.rst", "bootstrap.rst", "paper.rst", "scaling.rst",
            "sachs.rst"} <= set(PAGES)


def test_every_public_name_has_an_example():
    """Each name of ``mtbn.__all__`` shows how it is used in its own docstring (run by --doctest-modules)."""
    import mtbn

    finder = doctest.DocTestFinder(recurse=False)
    without = [name for name in mtbn.__all__ if name != "__version__"
               and not any(test.examples for test in finder.find(getattr(mtbn, name), name))]
    assert not without, f"public names whose docstring has no '>>>' example: {', '.join(without)}"
