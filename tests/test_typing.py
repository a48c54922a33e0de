"""The public API's type hints are checked by mypy (issue 14); the package ships py.typed."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_package_is_marked_typed():
    import mtbn

    assert os.path.exists(os.path.join(os.path.dirname(mtbn.__file__), "py.typed"))


@pytest.mark.slow
def test_mypy_finds_no_errors():
    pytest.importorskip("mypy")
    src = os.path.join(ROOT, "mtbn")
    if not os.path.isdir(src):  # pragma: no cover - only the installed package is at hand
        pytest.skip("the source tree is not available")
    out = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental", src],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
