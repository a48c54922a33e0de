"""The example scripts in docs/examples run as a user runs them (issue 14)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "docs", "examples")
SCRIPTS = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py")) if os.path.isdir(EXAMPLES) else []


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_example_runs(script, tmp_path):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), str(tmp_path / "out")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip()


def test_there_are_examples():
    assert len(SCRIPTS) >= 2
