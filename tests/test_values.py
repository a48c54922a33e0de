"""The user's own values come back (issue 14): ints, bools and categories as pgmpy state names."""

import warnings

import numpy as np
import pandas as pd
import pytest

from mtbn.data import from_dataframe, make_taskset
from mtbn.exceptions import InvalidDataError
from mtbn.estimators import MultitaskStructureLearner, StructureLearner
from mtbn.networks import read_bif, write_bif
from mtbn.score import BDeuScore


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    n = 400
    smoke = rng.integers(0, 2, n)
    cancer = np.where(rng.random(n) < 0.85, smoke, 1 - smoke).astype(bool)
    grade = pd.Categorical(np.where(cancer, "high", "low"), categories=["low", "mid", "high"])
    age = rng.choice([2, 10, 30], n)
    return pd.DataFrame({"smoke": smoke, "cancer": cancer, "grade": grade, "age": age})


def test_states_keep_the_values_order_and_declared_levels(frame):
    d = from_dataframe(frame)
    assert d.states[d.index("smoke")] == ("0", "1")
    assert d.states[d.index("cancer")] == ("False", "True")
    assert d.states[d.index("grade")] == ("low", "mid", "high")  # declared order, unused level kept
    assert d.states[d.index("age")] == ("2", "10", "30")  # numeric order, not '10' < '2'
    assert d.kinds == ("int", "bool", None, "int")
    # the unused level counts in the arity, as bnlearn counts factor levels: BDeu by hand for the
    # root "grade" with r = 3 states, counts (n_low, 0, n_high), ess 1: lnG(1) - lnG(1 + N) + sum lnG(1/3 + n) - lnG(1/3)
    from math import lgamma

    n_low, n_high = int((frame["grade"] == "low").sum()), int((frame["grade"] == "high").sum())
    by_hand = lgamma(1) - lgamma(1 + len(frame)) + sum(lgamma(1 / 3 + c) - lgamma(1 / 3) for c in (n_low, 0, n_high))
    assert BDeuScore(d).local_score(d.index("grade"), []) == pytest.approx(by_hand)


def test_union_across_tasks_orders_numbers_numerically(frame):
    other = frame.assign(age=np.where(frame["age"] == 30, 4, frame["age"]))
    ts = make_taskset({"a": frame, "b": other})
    assert ts.states[ts.variables.index("age")] == ("2", "4", "10", "30")


def test_a_column_mixing_types_is_an_error_naming_it():
    with pytest.raises(InvalidDataError, match=r"column 'm' mixes int and str values \(e.g. 1 and '1'\)"):
        from_dataframe(pd.DataFrame({"m": [1, "1", 2, "x"]}), name="t")


def test_pgmpy_queries_take_the_users_values_and_bif_round_trips(frame, tmp_path):
    from pgmpy.inference import VariableElimination

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        multi = MultitaskStructureLearner(penalty=0.5, n_restarts=1, n_joint_restarts=0).fit(
            {"a": frame, "b": frame.sample(frac=1, random_state=1).reset_index(drop=True)})
    net = multi.networks_["a"]
    assert net.get_cpds("smoke").state_names["smoke"] == [0, 1]
    assert net.get_cpds("cancer").state_names["cancer"] == [False, True]
    assert net.get_cpds("age").state_names["age"] == [2, 10, 30]
    ve = VariableElimination(net)
    q = ve.query(["cancer"], evidence={"smoke": 1, "grade": "high"}, show_progress=False)
    assert q.state_names["cancer"] == [False, True] and np.isclose(q.values.sum(), 1)
    q2 = ve.query(["smoke"], evidence={"cancer": True, "age": 10}, show_progress=False)
    assert q2.values[1] > q2.values[0]  # smokers are more likely given cancer
    single = StructureLearner(n_restarts=1).fit(frame)
    assert single.network_.get_cpds("smoke").state_names["smoke"] == [0, 1]
    # BIF keeps the labels; reading it back gives the same network
    path = tmp_path / "a.bif"
    b = multi.bayesian_networks_["a"]
    write_bif(b, path)
    back = read_bif(path)
    assert back.names == b.names and back.states == b.states
    for x, y in zip(back.cpts, b.cpts):
        np.testing.assert_allclose(x, y, atol=1e-15)


def test_whole_numbers_stored_as_floats_are_the_same_states_as_ints():
    # pandas stores an integer column with a missing value as floats (or as nullable Int64).
    ts = make_taskset({"a": pd.DataFrame({"x": [1, 2, 1]}), "b": pd.DataFrame({"x": [1, 2, None, 2]})}, dropna=True)
    assert ts.states == (("1", "2"),) and ts.tasks[1].kinds == ("int",)
    d = from_dataframe(pd.DataFrame({"x": pd.array([1, None, 2], dtype="Int64")}), dropna=True)
    assert d.states == (("1", "2"),) and d.kinds == ("int",)
    d = from_dataframe(pd.DataFrame({"x": [1, pd.NA, 2]}, dtype=object), dropna=True)  # pd.NA is missing
    assert d.states == (("1", "2"),)
    d = from_dataframe(pd.DataFrame({"x": [1.5, 2.0, 1.5]}))
    assert d.states == (("1.5", "2"),) and d.kinds == ("float",)


def test_score_uses_the_task_column_given_to_fit(frame):
    long = pd.concat([frame.assign(site="a"), frame.assign(site="b")], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = MultitaskStructureLearner(penalty=0.5, n_restarts=0, n_joint_restarts=0).fit(long, task_column="site")
    assert np.isfinite(m.score(long))
