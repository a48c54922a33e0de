"""The scikit-learn estimator contract of StructureLearner and MultitaskStructureLearner (issue 14)."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

from mtbn.exceptions import InvalidParameterError, NotFittedError
from mtbn.estimators import MultitaskStructureLearner, StructureLearner
from mtbn.learn import learn_structure, learn_structures
from mtbn.networks import load_network, sample

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.utils import estimator_checks as ec  # noqa: E402
from sklearn.utils.validation import check_is_fitted  # noqa: E402

ESTIMATORS = [StructureLearner(n_restarts=0), MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0)]
IDS = ["single", "multi"]


@pytest.fixture(scope="module")
def asia_frames():
    net = load_network("asia")
    return {name: sample(net, 400, random_state=seed).to_dataframe() for name, seed in (("a", 1), ("b", 2))}


def test_importing_mtbn_does_not_import_sklearn():
    code = "import sys, mtbn, mtbn.learn, mtbn.estimators; print('sklearn' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


#: Checks of scikit-learn's suite these learners are expected to fail, each with its reason: none. (The
#: learners take 2-D arrays of integer-coded categories, so the whole suite runs; continuous columns, NaN,
#: sparse and complex input are refused with the one-line messages the checks look for.)
EXPECTED_FAILED_CHECKS: "dict[str, str]" = {}


@ec.parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_check_suite(estimator, check):
    check(estimator)


def test_the_whole_suite_runs():
    # Not a subset: the tags let every check of the suite apply (no check skipped for the input kind).
    for est in ESTIMATORS:
        results = ec.check_estimator(clone(est), on_fail=None)
        skipped = [r["check_name"] for r in results if r["status"] == "skipped"]
        assert not [r for r in results if r["status"] == "failed"]
        assert len(results) >= 40 and len(skipped) <= 1, skipped


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_every_fitted_attribute_raises_not_fitted_before_fit(estimator):
    est = clone(estimator)
    for attr in type(est)._fitted:
        with pytest.raises(NotFittedError, match="not fitted yet"):
            getattr(est, attr)
        assert not hasattr(est, attr)
    with pytest.raises(sklearn.exceptions.NotFittedError):
        check_is_fitted(est)
    with pytest.raises(AttributeError):
        est.no_such_attribute  # noqa: B018 - an ordinary missing attribute is still an AttributeError
    tags = est.__sklearn_tags__()
    assert tags.requires_fit and not tags.target_tags.required and tags.input_tags.categorical


def test_fitted_learners_pass_check_is_fitted_pickle_and_clone(asia_frames):
    single = StructureLearner(n_restarts=0).fit(asia_frames["a"])
    multi = MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0).fit(asia_frames)
    for est in (single, multi):
        check_is_fitted(est)
        again = pickle.loads(pickle.dumps(est))
        assert again.get_params().keys() == est.get_params().keys()
        assert not hasattr(clone(est), "result_")
    assert multi.networks_["a"] is multi.networks_["a"]  # built once: a user's change is kept
    assert single.network_ is single.network_
    multi.networks_["a"].name = "changed"
    assert multi.networks_["a"].name == "changed"


def test_estimators_take_every_learn_structures_option(asia_frames):
    import inspect

    api = set(inspect.signature(learn_structures).parameters) - {"tasks", "score"}
    assert api | {"scoring"} <= set(MultitaskStructureLearner().get_params())
    single_api = set(inspect.signature(learn_structure).parameters) - {"data", "scorer", "perturbation", "score"}
    assert single_api | {"scoring"} <= set(StructureLearner().get_params())  # score is the method; scoring the name
    # constructor and fit-time constraints give the same result; fit-time arguments win
    forbidden = [("asia", "tub"), ("tub", "asia")]
    a = MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0, forbidden_edges=forbidden)
    b = MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0)
    a.fit(asia_frames)
    b.fit(asia_frames, forbidden_edges=forbidden)
    assert {n: sorted(g.edges) for n, g in a.graphs_.items()} == {n: sorted(g.edges) for n, g in b.graphs_.items()}
    for g in a.graphs_.values():
        assert not g.has_edge("asia", "tub") and not g.has_edge("tub", "asia")


def test_score_is_the_held_out_log_likelihood_and_grid_search_uses_it(asia_frames):
    from sklearn.model_selection import GridSearchCV

    from mtbn.networks import log_likelihood

    frame = asia_frames["a"]
    est = StructureLearner(n_restarts=0).fit(frame.iloc[:300])
    expected = np.mean(log_likelihood(est.bayesian_network_, frame.iloc[300:].reset_index(drop=True)
                                      .pipe(lambda df: __import__("mtbn").data.from_dataframe(df)), per_row=True))
    assert est.score(frame.iloc[300:]) == pytest.approx(expected)
    search = GridSearchCV(StructureLearner(n_restarts=0), {"equivalent_sample_size": [1.0, 10.0]}, cv=3).fit(frame)
    assert search.best_params_["equivalent_sample_size"] in (1.0, 10.0)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    multi = MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0).fit(asia_frames)
    per_task = [np.mean(log_likelihood(multi.bayesian_networks_[n],
                                       __import__("mtbn").data.from_dataframe(asia_frames[n]), per_row=True))
                for n in ("a", "b")]
    assert multi.score(asia_frames) == pytest.approx(np.mean(per_task))


def test_a_state_unseen_in_training_scores_finitely_by_hand():
    # issue 34: GridSearchCV(...).cv_results_['mean_test_score'] was NaN when a fold missed a rare state
    import math

    import pandas as pd

    train = pd.DataFrame({"x": ["a"] * 6 + ["b"] * 2, "y": ["u", "v", "u", "u", "v", "u", "v", "v"]})
    test = pd.DataFrame({"x": ["c", "a"], "y": ["u", "v"]})
    est = StructureLearner(n_restarts=0, max_parents=1, required_edges=[("x", "y")]).fit(train)
    got = est.score_samples(test)
    # BDeu posterior means (ess 1) over x's states {a, b, c}: P(x) = (N_x + 1/3) / (8 + 1);
    # P(y | x) = (N_xy + 1/(3*2)) / (N_x + 1/3), and 1/2 for the parent state c that training never shows.
    p_c = (0 + 1 / 3) / 9 * 0.5
    p_a_v = (6 + 1 / 3) / 9 * ((2 + 1 / 6) / (6 + 1 / 3))  # x = a in 6 rows, with y = v in 2
    assert got == pytest.approx([math.log(p_c), math.log(p_a_v)], rel=1e-12)


@pytest.mark.slow
def test_grid_search_cv_scores_alarm_folds_finitely():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV

    assert sklearn
    d = sample(load_network("alarm"), 500, random_state=0).to_dataframe()
    scores = GridSearchCV(StructureLearner(n_restarts=0), {"max_parents": [2, 4]}, cv=3).fit(d)
    assert np.isfinite(scores.cv_results_["mean_test_score"]).all()


def test_repr_features_and_a_random_state_object_follow_scikit_learn():
    # issue 34 item 7: repr printed all 30 parameters; no n_features_in_; RandomState refused
    assert repr(StructureLearner()) == "StructureLearner()"
    assert repr(MultitaskStructureLearner(penalty=0.5, prior="edit")) == \
        "MultitaskStructureLearner(prior='edit', penalty=0.5)"
    d = sample(load_network("asia"), 200, random_state=0).to_dataframe()
    est = StructureLearner(n_restarts=2, random_state=np.random.RandomState(3)).fit(d)
    assert est.n_features_in_ == 8 and list(est.feature_names_in_) == list(d.columns)
    again = StructureLearner(n_restarts=2, random_state=np.random.RandomState(3)).fit(d)
    assert again.graph_.edges() == est.graph_.edges()  # the same RandomState state, the same result
    with pytest.raises(NotFittedError):
        StructureLearner().n_features_in_


def test_not_fitted_is_scikit_learns_not_fitted_error_too():
    import pickle

    est = StructureLearner()
    for read in (lambda: est.graph_, lambda: est.score(None)):
        with pytest.raises(sklearn.exceptions.NotFittedError) as info:
            read()
        assert isinstance(info.value, (NotFittedError, ValueError, AttributeError))
        assert type(pickle.loads(pickle.dumps(info.value))) is type(info.value)


def test_without_scikit_learn_not_fitted_stays_mtbns_own():
    code = ("import sys, mtbn\n"
            "try:\n    mtbn.StructureLearner().graph_\n"
            "except mtbn.NotFittedError as e:\n"
            "    print(type(e).__mro__[1].__name__, isinstance(e, ValueError), 'sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
    assert out == ["MtbnError", "True", "False"]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_estimator_type_is_density_estimator(estimator):
    # score(X) is the mean log-likelihood of rows, as scikit-learn's density estimators (KernelDensity) score.
    assert estimator.__sklearn_tags__().estimator_type == "density_estimator"
    assert not sklearn.base.is_classifier(estimator) and not sklearn.base.is_regressor(estimator)


def test_grid_search_splits_the_rows_of_one_frame_with_a_task_column(asia_frames):
    # scikit-learn's splitters index rows: one DataFrame whose task_column says each row's task is what they split
    # (a dict of tasks would be split by task). Each candidate's held-out score is the learner's own score().
    import pandas as pd
    from sklearn.model_selection import GridSearchCV, KFold

    frame = pd.concat([f.assign(site=t) for t, f in asia_frames.items()], ignore_index=True)
    est = MultitaskStructureLearner(n_restarts=0, n_joint_restarts=0, task_column="site")
    folds = KFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(est, {"penalty": [0.5, 0.9]}, cv=folds).fit(frame)
    for i, penalty in enumerate((0.5, 0.9)):
        by_hand = [clone(est).set_params(penalty=penalty).fit(frame.iloc[tr]).score(frame.iloc[te])
                   for tr, te in folds.split(frame)]
        assert gs.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(by_hand), rel=1e-12)


def test_an_integer_array_is_one_task_or_several_by_a_task_column(asia_frames):
    import pandas as pd

    frame = asia_frames["a"]
    codes = np.column_stack([frame[c].astype("category").cat.codes.to_numpy() for c in frame.columns])
    single = StructureLearner(n_restarts=0).fit(codes)
    assert list(single.feature_names_in_) == [f"x{j}" for j in range(codes.shape[1])]
    by_frame = StructureLearner(n_restarts=0).fit(pd.DataFrame(codes, columns=[f"x{j}" for j in range(codes.shape[1])]))
    assert single.dag_.parents == by_frame.dag_.parents
    assert single.score(codes) == pytest.approx(by_frame.score(codes), rel=1e-12)
    with pytest.raises(ValueError, match="X has 7 features, but StructureLearner is expecting 8"):
        single.score(codes[:, 1:])
    with pytest.raises(ValueError, match="column x2 holds 0.5, not an integer code"):
        StructureLearner().fit(np.where(np.arange(codes.shape[1]) == 2, 0.5, codes))
    # Two tasks in one array, the first column saying which (task_column=0): the same as the dict of the two.
    b = asia_frames["b"]
    codes_b = np.column_stack([b[c].astype("category").cat.codes.to_numpy() for c in b.columns])
    both = np.vstack([np.column_stack([np.zeros(len(codes), int), codes]),
                      np.column_stack([np.ones(len(codes_b), int), codes_b])])
    multi = MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0, task_column=0).fit(both)
    names = [f"x{j}" for j in range(1, codes.shape[1] + 1)]
    as_dict = MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0).fit(
        {"0": pd.DataFrame(codes, columns=names), "1": pd.DataFrame(codes_b, columns=names)})
    assert [multi.dags_[t].parents for t in ("0", "1")] == [as_dict.dags_[t].parents for t in ("0", "1")]
    assert multi.n_features_in_ == codes.shape[1] + 1
    assert multi.score(both) == pytest.approx(as_dict.score(
        {"0": pd.DataFrame(codes, columns=names), "1": pd.DataFrame(codes_b, columns=names)}), rel=1e-12)
    width = both.shape[1]
    for position in (width, -1):  # a position the array lacks: named with the positions it has
        with pytest.raises(InvalidParameterError, match=rf"^task_column {position}: the array has {width} columns, "
                                                        rf"so the task column is one of 0 to {width - 1} by position"):
            MultitaskStructureLearner(penalty=0.9, n_restarts=0, n_joint_restarts=0, task_column=position).fit(both)


def test_a_dataframe_is_never_read_as_an_array_of_tasks_whatever_its_column_names():
    # Columns named like an array's (x0, x1, ...) do not make a DataFrame one task: without task_column= a single
    # DataFrame is refused, as every DataFrame is.
    import pandas as pd

    frame = pd.DataFrame({"x0": ["a", "b", "a"], "x1": ["u", "v", "v"]})
    with pytest.raises(ValueError, match="task_column"):
        MultitaskStructureLearner(penalty=0.9, n_restarts=0).fit(frame)
