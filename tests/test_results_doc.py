"""docs/results.md is generated from the stored experiment outputs (issue 10)."""

import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPERIMENTS = os.path.join(ROOT, "experiments")


@pytest.fixture(scope="module")
def results_doc():
    sys.path.insert(0, EXPERIMENTS)
    try:
        import results_doc
    finally:
        sys.path.remove(EXPERIMENTS)
    return results_doc


def test_the_page_is_what_the_generator_writes_from_the_stored_outputs():
    out = subprocess.run([sys.executable, os.path.join(EXPERIMENTS, "results_doc.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_verdicts_follow_the_corrected_test_and_the_claimed_direction(results_doc):
    rng = np.random.default_rng(0)
    base = rng.normal(10, 1, size=10)
    noise = rng.normal(0, 0.1, size=10)
    c = results_doc.Claims("test")
    lower = c.add("clearly lower", "lower", base - 3 + noise, base)
    higher = c.add("clearly higher", "lower", base + 3 + noise, base)
    tie = c.add("no difference", "lower", base + noise, base)
    no_worse = c.add("no worse, and none", "no worse", base + noise, base, expect="not higher")
    worse = c.add("no worse, but worse", "no worse", base + 3 + noise, base, expect="not higher")
    c.finish()
    assert lower["verdict"] == "yes"
    assert higher["verdict"].startswith("no: significant in the other direction")
    assert tie["verdict"].startswith("not shown")
    assert no_worse["verdict"].startswith("consistent")
    assert worse["verdict"] == "no: significantly higher"
    assert [r["label"] for r in c.supported] == ["clearly lower"]
    assert {r["label"] for r in c.unsupported} == {"clearly higher", "no difference", "no worse, but worse"}
    # Holm: the adjusted p-values are at least the raw ones, in the same order.
    assert all(r["p_holm"] >= r["p_t"] for r in c.rows)
