"""The figure gallery of the guide (docs/guide/figures.rst) is what the commands draw today."""

import os
import subprocess
import sys

import pytest

EXPERIMENTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "experiments")


@pytest.mark.slow
def test_the_gallery_page_lists_what_the_commands_draw_on_asia():
    pytest.importorskip("matplotlib")
    out = subprocess.run([sys.executable, os.path.join(EXPERIMENTS, "figures_gallery.py"), "--check", "--sets", "asia"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "12 figures drawn as the page lists them" in out.stdout
