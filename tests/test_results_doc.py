"""docs/results.md is generated from the stored experiment outputs (issue 10)."""

import json
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


@pytest.mark.slow
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


def test_an_unfinished_figure_2_11_rerun_reports_only_its_finished_sizes(results_doc, tmp_path, monkeypatch):
    folder = tmp_path / results_doc.SELECTION_CURRENT
    folder.mkdir()
    # 250 rows: three trials where selection beats all tasks by 5 edits (+- 1); 500 rows: one trial only.
    for t, wobble in enumerate((0, 1, -1)):
        trial = {"stl_ed": 30, "all": 15, "selection": 10 + wobble, "optimal": 8, "two": 14, "chosen": 3}
        (folder / f"fig2_11_rows250_trial{t}.json").write_text(json.dumps(trial))
    (folder / "fig2_11_rows500_trial0.json").write_text(
        json.dumps({"stl_ed": 20, "all": 9, "selection": 30, "optimal": 6, "two": 11, "chosen": 2}))
    monkeypatch.setattr(results_doc, "OUT", str(tmp_path))
    monkeypatch.setattr(results_doc, "SELECTION_TRIALS", 3)
    text, claims = results_doc._selection_current("2.11", results_doc._fig2_11)
    assert "Interim" in text and "500 rows 1" in text
    assert [r["label"] for r in claims.rows] == ["250 rows: task selection vs all tasks, ED"]
    assert claims.rows[0]["mean_diff"] == pytest.approx(-5.0) and claims.rows[0]["n"] == 3
    assert "| 250 | 3 |" in text and "| 500 |" not in text
    assert "fig2_11.png" not in text  # the figure waits for every size
    # Once every size has finished, the section is the full one, with its figure.
    for t in (1, 2):
        (folder / f"fig2_11_rows500_trial{t}.json").write_text((folder / "fig2_11_rows500_trial0.json").read_text())
    for rows in (1000, 2000):
        for t in range(3):
            (folder / f"fig2_11_rows{rows}_trial{t}.json").write_text(
                (folder / f"fig2_11_rows250_trial{t}.json").read_text())
    text, claims = results_doc._selection_current("2.11", results_doc._fig2_11)
    assert "Interim" not in text and "fig2_11.png" in text and len(claims.rows) == 4


def test_an_about_the_same_claim_is_contradicted_only_by_a_significant_difference_either_way(results_doc):
    rng = np.random.default_rng(1)
    base = rng.normal(10, 1, size=10)
    noise = rng.normal(0, 0.1, size=10)
    c = results_doc.Claims("test")
    tie = c.add("tie", "about the same", base + noise, base, expect="same")
    above = c.add("above", "about the same", base + 3 + noise, base, expect="same")
    below = c.add("below", "about the same", base - 3 + noise, base, expect="same")
    c.finish()
    assert tie["verdict"].startswith("consistent")
    assert above["verdict"] == "no: significantly higher"
    assert below["verdict"] == "no: significantly lower"
    assert {r["label"] for r in c.unsupported} == {"above", "below"} and not c.supported


def test_a_difference_the_paper_found_not_significant_is_consistent_when_not_significant_here(results_doc):
    rng = np.random.default_rng(2)
    base = rng.normal(10, 1, size=10)
    noise = rng.normal(0, 0.1, size=10)
    c = results_doc.Claims("test")
    tie = c.add("tie", "lower, n.s. in the paper", base + noise, base, paper_significant=False)
    lower = c.add("lower", "lower, n.s. in the paper", base - 3 + noise, base, paper_significant=False)
    missed = c.add("missed", "lower", base + noise, base)
    backwards = c.add("backwards", "lower", base + np.tile([0.1, -0.05], 5), base)  # mean +0.025, not significant
    c.finish()
    assert backwards["verdict"] == "not shown (not significant after Holm; the mean goes the other way)"
    assert tie["verdict"] == "consistent (not significant, as in the paper)"
    assert lower["verdict"] == "yes"
    assert missed["verdict"].startswith("not shown")
    assert [r["label"] for r in c.unsupported] == ["missed", "backwards"]
    pattern = results_doc._significance_pattern(c)
    assert "not in the paper: lower;" in pattern and pattern.endswith("but not here: missed; backwards.")


def test_trials_needed_matches_the_hand_computed_normal_approximation(results_doc):
    # Differences with mean -1, SD sqrt(80 / 19) = 2.052: n = ((1.95996 + 0.84162) * 2.052 / 1)^2 = 33.05 -> 34.
    d = np.array([-3.0, 1.0] * 10)
    claims = results_doc.Claims("t")
    claims.add("250 rows", "selection better", d, np.zeros_like(d))
    claims.add("500 rows", "selection better", -d, np.zeros_like(d))  # the mean goes the other way: not listed
    claims.finish()
    text = results_doc._selection_power(claims)
    assert "250 rows 34 (mean -1.00 edits, SD 2.05)" in text and "500 rows" not in text


def test_interventional_verdicts_mark_only_corrected_differences_and_count_them():
    """experiments/interventions_synthetic.verdicts on a made-up cell: `known` 5 edits below pooling in every
    trial (significant after Holm), `unknown` as pooling, recall 9 of 10 changes at 1000 rows."""
    import pandas as pd

    sys.path.insert(0, EXPERIMENTS)
    try:
        import interventions_synthetic
    finally:
        sys.path.remove(EXPERIMENTS)
    rng = np.random.default_rng(1)
    rows = []
    for trial in range(10):
        pooled = 20 + rng.integers(0, 5)
        for method, ed in (("pooled", pooled), ("default", pooled), ("known", pooled - 5 - rng.integers(0, 2)),
                           ("unknown", pooled + rng.integers(-1, 2))):
            extra = {"changes_true": 1, "changes_true_found": int(trial < 9), "changes_found": 1} \
                if method == "unknown" else {"type": "activity" if trial < 3 else "mechanism"} if method == "known" \
                else {}
            rows.append({"network": "net", "rows": 1000, "kind": "mechanism", "trial": trial, "method": method,
                         "edit_distance": ed, **extra})
    text = interventions_synthetic.verdicts(pd.DataFrame(rows))
    line = next(x for x in text.splitlines() if x.startswith("| net |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[3].endswith("*") and float(cells[3].rstrip("*")) < -5 and cells[4].endswith("*")
    assert not cells[5].endswith("*") and "worse" not in cells[5]
    # no known-mechanism rows; recall; the model `known` chose, per trial
    assert cells[7] == cells[8] == "" and cells[9] == "0.90 / 0.90" and cells[10] == "3 of 10"
    assert "- `known` against `pooled`: lower in 1 of 1 cells, significantly lower in 1, significantly higher in 0." \
        in text
    assert "recall of the changed mechanisms 0.90 to 0.90 over 1 cells" in text
