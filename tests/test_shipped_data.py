"""The shipped Sachs et al. (2005) conditions (issue 31 item 2).

Truths used: the per-condition row counts published with the data (Sachs
et al., and data/README.md), the 11 measured variables, and two effects of
the interventions that any correct split must show: Psitectorigenin
(condition 5) inhibits PIP2 and U0126 (condition 6) blocks the
phosphorylation of p44/42 (ERK) downstream of MEK, so their medians drop far
below the general-stimulation condition's.
"""

import json

import numpy as np
import pytest

from mtbn.data import load_sachs_conditions, make_taskset

ROWS = {"1-cd3cd28": 853, "2-cd3cd28-icam2": 902, "3-cd3cd28-aktinhib": 911, "4-cd3cd28-g0076": 723,
        "5-cd3cd28-psitect": 810, "6-cd3cd28-u0126": 799, "7-cd3cd28-ly": 848, "8-pma": 913, "9-b2camp": 707}
VARIABLES = ["praf", "pmek", "plcg", "PIP2", "PIP3", "p44/42", "pakts473", "PKA", "PKC", "P38", "pjnk"]


def test_nine_conditions_with_the_published_row_counts():
    sachs = load_sachs_conditions()
    assert {name: len(frame) for name, frame in sachs.tasks.items()} == ROWS
    assert list(sachs.tasks) == list(ROWS)  # the paper's order
    for frame in sachs.tasks.values():
        assert list(frame.columns) == VARIABLES
        assert frame.dtypes.map(lambda d: d.kind == "f").all() and not frame.isna().any().any()
    assert set(sachs.interventions) == set(ROWS)
    assert len(sachs.consensus) == 18 and all(a in VARIABLES and b in VARIABLES for a, b in sachs.consensus)


def test_the_split_shows_the_interventions():
    tasks = load_sachs_conditions().tasks
    base = tasks["1-cd3cd28"]
    assert np.median(tasks["5-cd3cd28-psitect"]["PIP2"]) < 0.2 * np.median(base["PIP2"])
    assert np.median(tasks["6-cd3cd28-u0126"]["p44/42"]) < 0.2 * np.median(base["p44/42"])


def test_discretised_jointly_every_variable_has_three_states():
    ts = make_taskset(load_sachs_conditions().tasks, discretize="quantile:3")
    assert ts.n_tasks == 9 and ts.variables == tuple(VARIABLES)
    assert all(len(s) == 3 for s in ts.states)
    assert all(len(ts.discretization.cuts[v]) == 2 for v in VARIABLES)


@pytest.mark.slow
def test_learn_discretizes_the_nine_condition_files(tmp_path):
    """Issue 31: `mtbn learn --discretize quantile:3 --out DIR <the nine files>` writes nine networks with three
    states per variable, and the cut points."""
    from mtbn.cli import main
    from mtbn.networks import read_network

    paths = []
    for name, frame in load_sachs_conditions().tasks.items():
        paths.append(str(tmp_path / f"{name}.csv"))
        frame.to_csv(paths[-1], index=False)
    out = tmp_path / "out"
    assert main(["learn", "--discretize", "quantile:3", "--out", str(out), *paths]) == 0
    for name in ROWS:
        net = read_network(str(out / f"{name}.bifxml"))
        assert sorted(net.names) == sorted(VARIABLES) and all(len(s) == 3 for s in net.states)
    record = json.loads((out / "discretization.json").read_text())
    assert record["method"] == "quantile" and sorted(record["columns"]) == sorted(VARIABLES)
    assert all(len(c["cut_points"]) == 2 for c in record["columns"].values())
