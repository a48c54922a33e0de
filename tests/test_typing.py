"""What the package says about its type hints is true (issues 14 and 34).

mtbn does not claim to be a typed package (no ``py.typed``, no "Typing :: Typed" classifier): most public
functions carry no annotations, and a type checker would treat them as ``Any``. The hints that exist are
checked by mypy (the slow test below).
"""

import inspect
import os
import subprocess
import sys

import pytest

import mtbn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _annotated_share():
    """The share of the public callables in ``mtbn.__all__`` (functions, and classes' ``__init__``) with hints."""
    funcs = []
    for name in mtbn.__all__:
        obj = getattr(mtbn, name)
        if inspect.isclass(obj):
            obj = obj.__init__ if "__init__" in vars(obj) else None
        if inspect.isfunction(obj):
            funcs.append(obj)
    annotated = [f for f in funcs if f.__annotations__]
    return len(annotated) / len(funcs), len(funcs)


def test_typed_claim_only_with_annotations():
    marked = os.path.exists(os.path.join(os.path.dirname(mtbn.__file__), "py.typed"))
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as fh:
        classified = "Typing :: Typed" in fh.read()
    share, n = _annotated_share()
    assert n > 10
    if marked or classified:
        assert share >= 0.9, f"py.typed / 'Typing :: Typed' claimed with {share:.0%} of {n} public callables annotated"


@pytest.mark.slow
def test_mypy_finds_no_errors():
    pytest.importorskip("mypy")
    src = os.path.join(ROOT, "mtbn")
    if not os.path.isdir(src):  # pragma: no cover - only the installed package is at hand
        pytest.skip("the source tree is not available")
    out = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental", src],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
