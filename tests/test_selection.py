"""Penalty selection, the negative-transfer guard and orientation-aware metrics (issue 9).

Truths used: hand-computed means and standard errors of constructed
held-out scores; the Markov equivalence class of small DAGs enumerated by
brute force (same skeleton and v-structures, Verma & Pearl 1990); tasks
whose variables share names but not structure (transfer cannot help) and
perturbed copies of one network (it should); the single-task learner run on
its own.
"""

import itertools
import json
import warnings

import numpy as np
import pytest

from mtbn.benchmarks import make_problem
from mtbn.cli import main
from mtbn.exceptions import InvalidParameterError, TransferWarning
from mtbn.graph import cpdag_distance, essential_graph
from mtbn.learn import learn_structures
from mtbn.metrics import undecidable_reversals
from mtbn.networks import sample
from mtbn.heldout import ValidationScores, kfold_splits


# --- the selection rules -----------------------------------------------------


def _path(offsets, noise, n=400, k=2, seed=0):
    """Candidates scored on the same rows: a shared row effect + offset + own noise."""
    rng = np.random.default_rng(seed)
    shared = [rng.normal(-10.0, 3.0, n) for _ in range(k)]
    return [[s + off + rng.normal(0.0, noise, n) for s in shared] for off in offsets]


def test_means_and_paired_standard_errors_match_the_formulas():
    rows = _path([0.0, 0.05, 0.1], noise=0.2)
    vs = ValidationScores(rows)
    for c, cand in enumerate(rows):
        assert vs.means[c] == pytest.approx(np.mean([r.mean() for r in cand]))
        assert vs.ses[c] == pytest.approx(np.sqrt(sum(r.var(ddof=1) / len(r) for r in cand)) / 2)
    diff, se, d_t, se_t = vs.difference(2, 0)
    by_hand = [a - b for a, b in zip(rows[2], rows[0])]
    assert diff == pytest.approx(np.mean([d.mean() for d in by_hand]))
    assert se == pytest.approx(np.sqrt(sum(d.var(ddof=1) / len(d) for d in by_hand)) / 2)
    # The paired error removes the shared row effect (sd 3): far below the unpaired one.
    assert se < vs.ses[2] / 5


def test_one_se_rule_takes_the_weakest_candidate_within_one_error_of_the_best():
    # Constructed exactly: row effect r shared by all candidates; candidates
    # 1 and 2 differ from the best (3) by a fixed +-s pattern, so the paired
    # SE of each difference is s * sqrt(n / (n - 1)) / sqrt(n) / sqrt(k) by hand.
    n, k, s = 400, 2, 0.4
    rng = np.random.default_rng(0)
    r = [rng.normal(-10.0, 3.0, n) for _ in range(k)]
    e = np.tile([s, -s], n // 2)
    offsets = {0: (-0.5, 0 * e), 1: (-0.05, e), 2: (-0.01, e), 3: (0.0, 0 * e), 4: (-0.3, 0 * e)}
    rows = [[x + off + noise for x in r] for off, noise in (offsets[c] for c in range(5))]
    vs = ValidationScores(rows)
    se = s * np.sqrt(n / (n - 1)) / np.sqrt(n) / np.sqrt(k)  # = 0.0141
    assert vs.difference(2, 3)[1] == pytest.approx(se)
    assert vs.difference(1, 3)[1] == pytest.approx(se)
    assert vs.best() == 3 and vs.choose("max") == 3
    assert vs.choose("one-se") == 2  # 0.01 below (within 0.014); candidate 1 is 0.05 below
    # Without the pattern the differences have no error: only the best is within one SE.
    exact = ValidationScores([[x + off for x in r] for off in (-0.5, -0.05, -0.01, 0.0, -0.3)])
    assert exact.choose("one-se") == 3


def test_exact_ties_go_to_the_weaker_coupling():
    rows = _path([0.0, 0.1, 0.1, 0.1], noise=0.0)
    rows[2] = [r.copy() for r in rows[1]]
    rows[3] = [r.copy() for r in rows[1]]
    vs = ValidationScores(rows)
    assert vs.best() == 1 and vs.choose("max") == 1 and vs.choose("one-se") == 1
    with pytest.raises(InvalidParameterError, match="rule"):
        vs.choose("min")


def test_kfold_splits_partition_the_rows():
    folds = kfold_splits(23, 5, np.random.default_rng(0))
    held = np.concatenate([h for _, h in folds])
    assert sorted(held.tolist()) == list(range(23))
    for train, h in folds:
        assert set(train).isdisjoint(h) and len(train) + len(h) == 23
    # fewer rows than folds: each row held out once, the remaining folds hold out nothing
    small = kfold_splits(4, 5, np.random.default_rng(0))
    assert sorted(np.concatenate([h for _, h in small]).tolist()) == [0, 1, 2, 3]
    assert [len(h) for _, h in small].count(0) == 1
    with pytest.raises(InvalidParameterError, match="at least one row"):
        kfold_splits(0, 5, np.random.default_rng(0))


# --- the guard ----------------------------------------------------------------


def _problem_tasks(problem, n, k=5, seed=0):
    rng = np.random.default_rng(seed)
    nets = make_problem(problem, n_tasks=k, random_state=rng)
    return {f"t{t}": sample(net, n, random_state=rng).to_dataframe() for t, net in enumerate(nets)}


FAST = dict(n_restarts=3, n_joint_restarts=1, penalty_grid=(0.0, 0.9, 0.99, 0.999, 1.0))


@pytest.mark.slow
def test_guard_returns_single_task_structures_on_unrelated_tasks():
    tasks = _problem_tasks("sachs-unrelated", 400)
    with pytest.warns(TransferWarning, match="single-task structures"):
        res = learn_structures(tasks, **FAST)
    assert res.transfer["status"] in ("none", "rejected")
    assert res.penalty == 0.0
    alone = learn_structures(tasks, prior="none", n_restarts=3)
    assert [g.parents for g in res.graphs] == [g.parents for g in alone.graphs]
    assert set(res.transfer["tasks"]) == set(tasks)


@pytest.mark.slow
def test_guard_accepts_transfer_on_related_alarm_tasks():
    tasks = _problem_tasks("alarm", 300, k=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TransferWarning)
        res = learn_structures(tasks, **FAST)
    assert res.transfer["status"] == "accepted"
    assert res.penalty > 0 and res.transfer["gain"] > res.transfer["se"] > 0
    assert res.transfer["relatedness"]["p_value"] < res.transfer["relatedness"]["level"]
    # The final structures are learned on all rows at the chosen penalty.
    direct = learn_structures(tasks, penalty=res.penalty, n_restarts=3, n_joint_restarts=1)
    assert [g.parents for g in res.graphs] == [g.parents for g in direct.graphs]


@pytest.mark.slow
def test_force_transfer_keeps_the_multitask_result():
    # With the "max" rule, noise picks a penalty > 0 on these unrelated tasks, and the guard rejects it.
    tasks = _problem_tasks("sachs-unrelated", 300, k=3, seed=1)
    with pytest.warns(TransferWarning, match="rejected"):
        guarded = learn_structures(tasks, selection_rule="max", **FAST)
    assert guarded.transfer["status"] == "rejected" and guarded.penalty == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", TransferWarning)
        forced = learn_structures(tasks, selection_rule="max", force_transfer=True, **FAST)
    assert forced.transfer["status"] == "forced"
    assert forced.penalty == guarded.transfer["selected_penalty"] > 0
    direct = learn_structures(tasks, penalty=forced.penalty, n_restarts=3, n_joint_restarts=1)
    assert [g.parents for g in forced.graphs] == [g.parents for g in direct.graphs]


def _write_csvs(tasks, folder):
    paths = [str(folder / f"{name}.csv") for name in tasks]
    for path, df in zip(paths, tasks.values()):
        df.to_csv(path, index=False)
    return paths


def test_prior_none_cli_equals_api_equals_the_multitask_start(tmp_path, capsys):
    tasks = _problem_tasks("sachs", 300, k=3)
    paths = _write_csvs(tasks, tmp_path)
    out = tmp_path / "none"
    assert main(["learn", "--prior", "none", "--restarts", "4", "--out", str(out), *paths]) == 0
    capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    api = learn_structures(tasks, prior="none", n_restarts=4)
    multi = learn_structures(tasks, penalty=0.9, n_restarts=4, n_joint_restarts=0)
    for t, name in enumerate(tasks):
        cli_edges = {tuple(e) for e in summary["tasks"][name]["edges"]}
        assert cli_edges == set(api.graphs[t].edges(names=True))
        assert cli_edges == set(multi.single_task[t].graph.edges(names=True))


@pytest.mark.slow
def test_cli_prints_the_guard_and_writes_it(tmp_path, capsys):
    tasks = _problem_tasks("sachs-unrelated", 300, k=3)
    paths = _write_csvs(tasks, tmp_path)
    out = tmp_path / "guard"
    assert main(["learn", "--restarts", "2", "--joint-restarts", "0", "--cv", "3", "--out", str(out), *paths]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["transfer"]["message"] in printed
    assert summary["transfer"]["folds"] == 3 and summary["transfer"]["rule"] == "one-se"
    assert all(set(v) == {"gain", "se", "verdict", "relatedness"} for v in summary["transfer"]["tasks"].values())
    assert 0 < summary["transfer"]["relatedness"]["p_value"] <= 1


# --- the relabelling test (are the tasks related at all?) -------------------------


def _random_symmetric(m, rng):
    a = rng.normal(size=(m, m))
    a = a + a.T
    np.fill_diagonal(a, 0.0)
    return a


def test_relabelling_statistic_is_the_mean_pairwise_spearman_correlation():
    from scipy.stats import spearmanr

    from mtbn.stats import relabelling_test

    rng = np.random.default_rng(0)
    base = _random_symmetric(9, rng)
    mats = [base + 0.8 * _random_symmetric(9, rng) for _ in range(4)]
    iu = np.triu_indices(9, 1)
    rho = np.array([[spearmanr(a[iu], b[iu])[0] for b in mats] for a in mats])
    out = relabelling_test(mats, n_permutations=99, random_state=0)
    assert out["statistic"] == pytest.approx(rho[np.triu_indices(4, 1)].mean())
    for t in range(4):
        assert out["tasks"][t]["statistic"] == pytest.approx((rho[t].sum() - 1) / 3)
    assert out["p_value"] == pytest.approx(0.01)  # no relabelling comes close: 1 / (1 + 99)
    again = relabelling_test(mats, n_permutations=99, random_state=0)
    assert again == out



def test_relabelling_null_matches_one_permutation_at_a_time():
    """The null drawn in blocks equals the plain loop: per permutation, each task's strata relabelled by
    ``rng.permutation`` of the stratum's indices in turn, the relabelled matrices' mean pairwise inner product and
    each task's inner product with the others' observed sum (the test's statistics, Spearman on centred ranks)."""
    from scipy.stats import rankdata

    from mtbn.stats import relabelling_test

    rng = np.random.default_rng(3)
    k, m, n_perm = 4, 23, 61
    mats = [_random_symmetric(m, rng) for _ in range(k)]
    strata = rng.integers(0, 5, size=(k, m))
    strata[:, 0] = 9  # a stratum of one variable: never moved, draws nothing
    iu = np.triu_indices(m, 1)
    ranked = []
    for b in mats:
        r = rankdata(b[iu])
        r = (r - r.mean()) / np.linalg.norm(r - r.mean())
        full = np.zeros((m, m))
        full[iu] = r
        ranked.append(full + full.T)
    total = sum(ranked)
    draw = np.random.default_rng(11)
    null, own = [], []
    for _ in range(n_perm):
        moved = []
        for t in range(k):
            perm = np.arange(m)
            for value in np.unique(strata[t]):
                where = np.flatnonzero(strata[t] == value)
                perm[where] = draw.permutation(where)
            moved.append(ranked[t][np.ix_(perm, perm)])
        pairs = [(moved[a] * moved[b]).sum() / 2 for a in range(k) for b in range(a + 1, k)]
        null.append(np.mean(pairs))
        own.append([(moved[t] * (total - ranked[t])).sum() / 2 for t in range(k)])
    null, own = np.array(null), np.array(own)
    observed = np.mean([(ranked[a] * ranked[b]).sum() / 2 for a in range(k) for b in range(a + 1, k)])
    out = relabelling_test(mats, n_perm, np.random.default_rng(11), strata=strata)
    assert out["statistic"] == pytest.approx(observed, abs=1e-12)
    assert out["null_mean"] == pytest.approx(null.mean(), abs=1e-12)
    assert out["p_value"] == (1 + np.sum(null >= observed - 1e-12)) / (1 + n_perm)
    for t in range(k):
        assert out["tasks"][t]["null_mean"] * (k - 1) == pytest.approx(own[:, t].mean(), abs=1e-12)
        assert out["tasks"][t]["null_sd"] * (k - 1) == pytest.approx(own[:, t].std(), abs=1e-12)

@pytest.mark.slow
def test_relabelling_test_is_calibrated_on_unrelated_matrices():
    from mtbn.stats import relabelling_test

    rng = np.random.default_rng(1)
    p = [relabelling_test([_random_symmetric(8, rng) for _ in range(3)], 99, random_state=i)["p_value"]
         for i in range(200)]
    # Under the null the p-value is (discretely) uniform: about 10% fall at or below 0.1.
    assert 0.04 < np.mean(np.array(p) <= 0.1) < 0.18
    assert 0.35 < np.mean(p) < 0.65


def test_pairwise_log_bayes_factors_are_score_differences_and_symmetric():
    from mtbn.score import BDeuScore, pairwise_log_bayes_factors

    from mtbn.data import from_dataframe

    data = from_dataframe(_problem_tasks("sachs", 200, k=1)["t0"])
    s = BDeuScore(data)
    b = pairwise_log_bayes_factors(s)
    fresh = BDeuScore(data)
    for u in range(data.n_vars):
        for v in range(data.n_vars):
            if u != v:
                # BDeu is score equivalent: u -> v and v -> u give the same evidence.
                assert b[u, v] == pytest.approx(fresh.local_score(v, (u,)) - fresh.local_score(v, ()), abs=1e-9)
    assert np.allclose(b, b.T) and np.all(np.diag(b) == 0)
    sub = pairwise_log_bayes_factors(s, [4, 1, 7])
    assert np.allclose(sub, b[np.ix_([4, 1, 7], [4, 1, 7])])


def test_excess_log_bayes_factors_subtract_the_exact_mean_over_all_matchings_of_the_rows():
    # Brute force: every one of the 7! orders of one column (the marginals kept, the rows matched at random).
    import itertools

    from mtbn.data import DiscreteData
    from mtbn.score import BDeuScore, excess_log_bayes_factors, pairwise_log_bayes_factors

    rng = np.random.default_rng(1)
    codes = np.column_stack([rng.integers(0, 2, 7), rng.integers(0, 3, 7), rng.integers(0, 3, 7)])
    codes[:, 2] = (codes[:, 1] + (rng.random(7) < 0.3)) % 3
    names, states = ("A", "B", "C"), (("a", "b"), ("x", "y", "z"), ("p", "q", "r"))
    d = DiscreteData(codes, names, states)
    for ess in (1.0, 4.0):
        raw = pairwise_log_bayes_factors(BDeuScore(d, ess))
        excess = excess_log_bayes_factors(d, equivalent_sample_size=ess)
        assert np.allclose(excess, excess.T) and np.all(np.diag(excess) == 0)
        for u, v in ((0, 1), (0, 2), (1, 2)):
            null = []
            for order in itertools.permutations(range(7)):
                c = codes.copy()
                c[:, v] = codes[list(order), v]
                null.append(pairwise_log_bayes_factors(BDeuScore(DiscreteData(c, names, states), ess))[u, v])
            assert excess[u, v] == pytest.approx(raw[u, v] - np.mean(null), abs=1e-9)
    assert np.allclose(excess_log_bayes_factors(d, [2, 0]), excess_log_bayes_factors(d)[np.ix_([2, 0], [2, 0])])


def test_distinct_rows_partition_the_rows_as_numpys_unique_does():
    from mtbn.score.bdeu import _distinct_rows

    rng = np.random.default_rng(3)
    for n in (1, 7, 500):
        cols = [rng.integers(0, 4, n), rng.integers(-3, 3, n), np.array([1, -1]).repeat(n)[rng.integers(0, 2, n)]]
        first, inverse = _distinct_rows(*cols)
        rows = np.stack(cols, axis=1)
        uniq, ref_inverse = np.unique(rows, axis=0, return_inverse=True)
        assert len(first) == len(uniq) and len({tuple(r) for r in rows[first]}) == len(first)
        assert np.array_equal(rows[first][inverse], rows)  # each row's distinct row is equal to it
        # the same partition of the rows as numpy's (the order of the distinct rows aside)
        assert np.array_equal(ref_inverse.ravel()[first][inverse], ref_inverse.ravel())


def test_the_null_means_of_cell_terms_agree_with_scipys_hypergeometric_law_on_large_tables():
    # the support is cut to the mean +- sqrt(20 min(a, b)); scipy sums the whole support
    from scipy.special import gammaln
    from scipy.stats import hypergeom

    from mtbn.score.bdeu import _mean_cell_terms

    rng = np.random.default_rng(0)
    for n in (50, 1000, 5000):
        a, b, alpha = rng.integers(0, n + 1, 40), rng.integers(0, n + 1, 40), rng.choice([0.25, 1 / 12, 0.5], 40)
        got = _mean_cell_terms(n, a, b, alpha)
        for i in range(40):
            x = np.arange(min(a[i], b[i]) + 1)
            want = np.sum(hypergeom(n, a[i], b[i]).pmf(x) * (gammaln(alpha[i] + x) - gammaln(alpha[i])))
            assert got[i] == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_independent_many_state_variables_with_alike_marginals_are_found_unrelated():
    """pgmpy's BARLEY (up to 67 states) passed the test in 10 of 10 trials with unrelated tasks: on sparse tables
    a raw log Bayes factor follows both marginals. Here every variable (12 states) is independent of every other
    and its skewed marginal is the same in all four tasks; the raw factors are called related in 5 of 5 runs."""
    from mtbn.data import DiscreteData, make_taskset
    from mtbn.learn import RELATEDNESS_LEVEL, _relatedness_check
    from mtbn.learn.guard import relatedness_of
    from mtbn.score import BDeuScore, pairwise_log_bayes_factors

    names, states = tuple(f"v{i}" for i in range(16)), tuple(tuple(f"s{j}" for j in range(12)) for _ in range(16))
    raw_related = 0
    for run in range(5):
        rng = np.random.default_rng(run)
        probs = [rng.dirichlet(np.full(12, c)) for c in np.geomspace(0.1, 5, 16)]
        tasks = [DiscreteData(np.column_stack([rng.choice(12, 300, p=p) for p in probs]), names, states, f"t{t}")
                 for t in range(4)]
        ts = make_taskset(tasks)
        seed = np.random.SeedSequence([0, run, 5])
        assert _relatedness_check([BDeuScore(d) for d in ts.tasks], ts.local_index, seed)["p_value"] >= 0.05
        raw = [pairwise_log_bayes_factors(BDeuScore(d)) for d in ts.tasks]
        raw_related += relatedness_of(raw, np.array([d.arities for d in ts.tasks]), seed)["p_value"] < \
            RELATEDNESS_LEVEL
    assert raw_related == 5  # the case is one the uncorrected factors fail


def test_the_left_out_message_names_each_task_with_the_results_that_left_it_out():
    from mtbn.learn.multitask import _left_out_message

    def rows(ps, effects):
        return [{"p_value": p, "statistic": e + 0.1, "null_mean": 0.1, "null_sd": 0.05} for p, e in zip(ps, effects)]

    names = ["a", "b", "c", "d", "e"]
    test = {"tasks": rows([0.001, 0.001, 0.001, 0.5, 0.04], [0.30, 0.32, 0.28, 0.0, 0.25]),
            "tasks_excess": rows([0.001, 0.001, 0.001, 0.6, 0.7], [0.20, 0.22, 0.24, 0.01, 0.02])}
    # raw: d left out (0.30 - 0.00 >= 0.15), e not (0.05 below); excess: d and e (reference 0.22)
    assert _left_out_message(names, test) == (
        "tasks 'd' depend on their variables unlike the others (own relatedness p = 0.5, level 0.01; agreement "
        "with the others 0.00 against 0.30 for the tasks that pass); tasks 'e' depend on their variables unlike "
        "the others (own relatedness p = 0.7, level 0.01; agreement with the others 0.02 against 0.22 for the "
        "tasks that pass, on each pair's evidence beyond its mean under independence)")


def test_each_task_s_own_test_leaves_out_tasks_that_only_look_like_the_related_ones():
    """pgmpy's BARLEY, 3 related tasks and 2 random networks whose variables keep the network's marginals
    (``lookalike:``): on the raw factors the look-alike tasks pass or nearly pass their own test and neither is
    left out; on the factors' excess over independence both are, and so the guard leaves both out."""
    import os

    import pgmpy

    from mtbn.benchmarks import make_problem
    from mtbn.data import make_taskset
    from mtbn.learn.guard import _relatedness_check, leave_out_by, tasks_to_leave_out
    from mtbn.networks import sample
    from mtbn.score import BDeuScore

    barley = os.path.join(os.path.dirname(pgmpy.__file__), "utils", "example_models", "barley.bif.gz")
    rng = np.random.default_rng(1)
    nets = make_problem(f"lookalike:{barley}", random_state=rng)
    ts = make_taskset({f"t{i}": sample(n, 250, random_state=rng).to_dataframe() for i, n in enumerate(nets)})
    test = _relatedness_check([BDeuScore(d) for d in ts.tasks], ts.local_index, 0)
    assert test["p_value"] < 0.01  # three tasks are related: the all-tasks test passes
    found = leave_out_by(test)
    assert found["tasks"] == []  # the case is one the raw factors miss
    assert found["tasks_excess"] == [3, 4]
    assert tasks_to_leave_out(test) == [3, 4]


def test_guard_rejects_a_held_out_gain_between_unrelated_tasks():
    from mtbn.learn import _transfer_check

    rows = _path([0.0, 0.05], noise=0.2, k=3)  # candidate 1 (penalty 0.9) wins clearly on held-out rows
    scores = ValidationScores(rows)
    names = ("a", "b", "c")
    unrelated = {"p_value": 0.4, "level": 0.01, "statistic": 0.0,
                 "tasks": [{"statistic": 0.0, "p_value": 0.4}] * 3}
    out = _transfer_check(scores, [0.0, 0.9], 1, names, "one-se", 5, False, unrelated)
    assert out["status"] == "rejected" and "unrelated" in out["message"]
    assert out["relatedness"]["p_value"] == 0.4 and out["tasks"]["a"]["relatedness"]["p_value"] == 0.4
    assert _transfer_check(scores, [0.0, 0.9], 1, names, "one-se", 5, True, unrelated)["status"] == "forced"
    related = dict(unrelated, p_value=0.001, tasks=[{"statistic": 0.8, "p_value": 0.001}] * 2
                   + [{"statistic": 0.0, "p_value": 0.5}])
    out = _transfer_check(scores, [0.0, 0.9], 1, names, "one-se", 5, False, related)
    # the per-task test has little power: it is reported per task, not in the message
    assert out["status"] == "accepted" and out["tasks"]["c"]["relatedness"]["p_value"] == 0.5
    assert "relabelling" not in out["message"]
    assert _transfer_check(scores, [0.0, 0.9], 1, names, "one-se", 5, False, None)["status"] == "accepted"


def test_relatedness_check_needs_enough_shared_variables():
    from mtbn.data import make_taskset
    from mtbn.learn import RELATEDNESS_MIN_VARIABLES, _relatedness_check
    from mtbn.score import make_scorer

    tasks = _problem_tasks("sachs", 200, k=2)
    few = {n: df.iloc[:, :RELATEDNESS_MIN_VARIABLES - 1] for n, df in tasks.items()}
    ts = make_taskset(few)
    assert _relatedness_check([make_scorer(d) for d in ts.tasks], ts.local_index, 0) is None
    ts = make_taskset(tasks)
    assert _relatedness_check([make_scorer(d) for d in ts.tasks], ts.local_index, 0)["p_value"] < 0.01


# --- CPDAG distance --------------------------------------------------------------


def _v_structures(edges):
    parents = {}
    for u, v in edges:
        parents.setdefault(v, set()).add(u)
    adj = {frozenset(e) for e in edges}
    return {(frozenset((a, b)), c) for c, pa in parents.items() for a in pa for b in pa
            if a < b and frozenset((a, b)) not in adj}


def _is_acyclic(nodes, edges):
    left = set(nodes)
    while left:
        roots = [v for v in left if not any((u, v) in edges for u in left)]
        if not roots:
            return False
        left -= set(roots)
    return True


def _class_by_brute_force(nodes, edges):
    """All DAGs with the same skeleton and v-structures (the Markov equivalence class)."""
    skeleton = sorted(tuple(sorted(e)) for e in edges)
    target = _v_structures(edges)
    members = []
    for flips in itertools.product((False, True), repeat=len(skeleton)):
        cand = {(b, a) if f else (a, b) for (a, b), f in zip(skeleton, flips)}
        if _is_acyclic(nodes, cand) and _v_structures(cand) == target:
            members.append(cand)
    return members


def test_essential_graph_equals_the_brute_force_equivalence_class():
    rng = np.random.default_rng(3)
    nodes = list("abcde")
    for _ in range(60):
        order = list(rng.permutation(nodes))
        edges = {(order[i], order[j]) for i in range(5) for j in range(i + 1, 5) if rng.random() < 0.45}
        members = _class_by_brute_force(nodes, edges)
        compelled = {e for e in edges if all(e in m for m in members)}
        directed, undirected = essential_graph(edges)
        assert directed == compelled
        assert undirected == {frozenset(e) for e in edges if e not in compelled}
        # Every member is at CPDAG distance 0 from the DAG, and has no undecidable reversal
        # counted as an error by the CPDAG distance.
        for m in members:
            assert cpdag_distance(m, edges) == 0
            assert undecidable_reversals(m, edges) == sum((v, u) in edges for u, v in m)


def test_cpdag_distance_hand_examples():
    # A reversal inside the class (a chain) costs 0; the edit distance counts it.
    assert cpdag_distance([("a", "b"), ("b", "c")], [("b", "a"), ("b", "c")]) == 0
    assert undecidable_reversals([("b", "a"), ("b", "c")], [("a", "b"), ("b", "c")]) == 1
    # Turning a collider into a chain changes both marks: 2.
    assert cpdag_distance([("a", "c"), ("b", "c")], [("c", "a"), ("b", "c")]) == 2
    # A missing edge costs 1; a compelled edge reversed costs 1 per pair.
    assert cpdag_distance([("a", "c"), ("b", "c")], [("a", "c")]) == 2  # the v-structure disappears too
    assert cpdag_distance([("a", "c"), ("b", "c"), ("c", "d")], [("a", "c"), ("b", "c"), ("d", "c")]) == 1
    assert cpdag_distance([], []) == 0


# --- search_candidates: refine against scoring every candidate (issue 30) ---

from mtbn.heldout import search_candidates  # noqa: E402


def _curve_rows(means, n_rows=40, noise=0.5, seed=0):
    """Held-out rows of two tasks per candidate: a shared row effect plus the candidate's mean (paired rows)."""
    rng = np.random.default_rng(seed)
    base = [rng.normal(0, 3, n_rows) for _ in range(2)]
    jitter = [[rng.normal(0, noise, n_rows) for _ in range(2)] for _ in means]
    return [[b + m + j for b, j in zip(base, jit)] for m, jit in zip(means, jitter)]


def _driver(rows, log):
    def score(points):
        log.append(list(points))
        return [rows[i] for i in points]
    return score


@pytest.mark.parametrize("seed", range(12))
def test_refine_finds_the_best_of_a_single_peaked_curve_with_fewer_scores(seed):
    rng = np.random.default_rng(seed)
    n = 13
    peak = int(rng.integers(0, n))
    means = -np.abs(np.arange(n) - peak) * rng.uniform(0.05, 1.0)  # rises to one peak, then falls
    rows = _curve_rows(means, noise=0.0, seed=seed)
    full_done, full = search_candidates(n, _driver(rows, []), rule="max", search="grid")
    log = []
    done, scores = search_candidates(n, _driver(rows, log), rule="max", search="refine")
    assert full_done == list(range(n))
    assert done[scores.best()] == full_done[full.best()] == peak
    assert log[0] == [0, 2, 4, 6, 8, 10, 12]
    assert len(done) < n and sum(map(len, log)) == len(done)  # each candidate scored once
    assert sorted(set(done)) == done


@pytest.mark.parametrize("seed", range(12))
def test_refine_scores_every_neighbour_of_the_best_and_the_candidate_before_the_chosen(seed):
    rng = np.random.default_rng(100 + seed)
    n = 13
    means = np.cumsum(rng.normal(0, 0.3, n))  # any curve
    rows = _curve_rows(means, noise=0.4, seed=seed)
    for rule in ("one-se", "max"):
        done, scores = search_candidates(n, _driver(rows, []), rule=rule)
        best, chosen = done[scores.best()], done[scores.choose(rule)]
        for i in (best - 1, best + 1, chosen - 1):
            assert not 0 <= i < n or i in done
        # the choice among the scored candidates is what the rule picks on exactly those rows
        sub = ValidationScores([rows[i] for i in done])
        assert sub.choose(rule) == scores.choose(rule)


def test_refine_one_se_reaches_a_candidate_next_to_the_first_round_choice():
    # candidate 1 (not in the first round) is within one SE of the best (3, also not in the first round)
    means = [-1.0, -0.001, -0.5, 0.0, -0.6, -1.0, -2.0]
    rows = _curve_rows(means, noise=0.05, seed=3)
    _, grid = search_candidates(7, _driver(rows, []), rule="one-se", search="grid")
    log = []
    done, scores = search_candidates(7, _driver(rows, log), rule="one-se")
    assert grid.choose("one-se") == 1 and done[scores.choose("one-se")] == 1
    assert log == [[0, 2, 4, 6], [1, 3]]


def test_refine_one_se_misses_only_a_skipped_candidate_below_the_chosen_one():
    # the documented limit: candidate 1 is within one SE of the best (6) but nothing near it is
    means = [-1.0, -0.001, -1.0, -1.0, -1.0, -0.5, 0.0, -0.5, -1.0]
    rows = _curve_rows(means, noise=0.05, seed=3)
    _, grid = search_candidates(9, _driver(rows, []), rule="one-se", search="grid")
    done, scores = search_candidates(9, _driver(rows, []), rule="one-se")
    assert grid.choose("one-se") == 1
    assert done == [0, 2, 4, 5, 6, 7, 8] and done[scores.choose("one-se")] == 6


def test_unknown_search_is_refused_by_name():
    with pytest.raises(ValueError, match="search must be one of .*'bisect'"):
        search_candidates(3, lambda pts: [], search="bisect")


def test_relabelling_per_task_null_is_centred_for_free_relabelling():
    """Relabelling a task's variables uniformly moves every centred rank to every pair alike, so the expected
    product with the others' ranks is exactly 0: the per-task null mean is 0 up to Monte Carlo error."""
    from mtbn.stats import relabelling_test

    rng = np.random.default_rng(3)
    base = _random_symmetric(10, rng)
    mats = [base + 0.5 * _random_symmetric(10, rng) for _ in range(3)] + [_random_symmetric(10, rng)]
    out = relabelling_test(mats, n_permutations=1999, random_state=0)
    for row in out["tasks"]:
        assert row["null_sd"] > 0
        assert abs(row["null_mean"]) < 4 * row["null_sd"] / np.sqrt(1999)
    # the related tasks sit far above their null, the unrelated one does not
    z = [(r["statistic"] - r["null_mean"]) / r["null_sd"] for r in out["tasks"]]
    assert min(z[:3]) > 3 > abs(z[3])


def test_tasks_to_leave_out_needs_evidence_of_less_relatedness_by_hand():
    from mtbn.learn import LEAVE_OUT_SDS, tasks_to_leave_out

    def test(ps, effects, sd=0.05):
        return {"tasks": [{"p_value": p, "statistic": e + 0.1, "null_mean": 0.1, "null_sd": sd}
                          for p, e in zip(ps, effects)]}

    assert LEAVE_OUT_SDS == 3.0
    # reference = median(0.30, 0.32, 0.28) = 0.30; task 3: 0.30 - 0.00 >= 3 * 0.05, task 4: 0.30 - 0.20 < 0.15
    assert tasks_to_leave_out(test([0.001, 0.001, 0.001, 0.5, 0.5], [0.30, 0.32, 0.28, 0.0, 0.20])) == [3]
    # a weak but related task: fails its own test, yet agrees with the others within 3 SDs
    assert tasks_to_leave_out(test([0.001, 0.001, 0.03], [0.10, 0.12, 0.06])) == []
    # too few tasks pass to say what related looks like, or two would not remain
    assert tasks_to_leave_out(test([0.001, 0.5, 0.5], [0.3, 0.0, 0.0])) == []
    assert tasks_to_leave_out(test([0.001, 0.001, 0.5, 0.5], [0.3, 0.3, 0.0, 0.0])) == [2, 3]
    assert tasks_to_leave_out(None) == []
    # two sets of per-task results (raw factors, their excess): a task is left out when either leaves it out
    both = test([0.001, 0.001, 0.001, 0.5, 0.5], [0.30, 0.32, 0.28, 0.0, 0.20])
    both["tasks_excess"] = test([0.001, 0.001, 0.001, 0.5, 0.5], [0.30, 0.32, 0.28, 0.20, 0.0])["tasks"]
    assert tasks_to_leave_out(both) == [3, 4]
    # ... unless fewer than two tasks would remain (the raw results leave out 0, the excess 2, 3 and 4)
    both = test([0.5, 0.001, 0.001, 0.001, 0.001], [0.0, 0.30, 0.32, 0.28, 0.30])
    both["tasks_excess"] = test([0.001, 0.001, 0.5, 0.5, 0.5], [0.30, 0.32, 0.0, 0.0, 0.0])["tasks"]
    assert tasks_to_leave_out(both) == []
    both["tasks_excess"] = test([0.001, 0.001, 0.001, 0.5, 0.5], [0.30, 0.32, 0.28, 0.0, 0.0])["tasks"]
    assert tasks_to_leave_out(both) == [0, 3, 4]


def _shared_skew_tasks(run, n_tasks=4, n_vars=12, rows=800):
    """Issue 47's case: each task its own independent random DAG over 12 ternary variables, every variable with the
    same marginal skew in every task (CPT rows Dirichlet draws around a skewed distribution shared by the tasks)."""
    from mtbn.data import DiscreteData
    from mtbn.networks import BayesianNetwork, sample

    rng = np.random.default_rng([47, run])
    base = [np.exp(s * np.arange(3)) / np.exp(s * np.arange(3)).sum() for s in rng.uniform(-2.5, 2.5, n_vars)]
    names, states = [f"v{i}" for i in range(n_vars)], [("a", "b", "c")] * n_vars
    tasks = {}
    for t in range(n_tasks):
        order = rng.permutation(n_vars)
        parents = [()] * n_vars
        for i, v in enumerate(order):
            k = int(rng.integers(0, min(i, 3) + 1))
            parents[v] = tuple(sorted(int(p) for p in rng.choice(order[:i], size=k, replace=False))) if k else ()
        cpts = [rng.dirichlet(9.0 * base[v], size=3 ** len(parents[v])).reshape((3,) * len(parents[v]) + (3,))
                for v in range(n_vars)]
        net = BayesianNetwork(names, states, parents, cpts)
        tasks[f"t{t}"] = DiscreteData(sample(net, rows, random_state=rng).codes, names, states, f"t{t}")
    return tasks


def test_independent_structures_with_shared_marginals_are_found_unrelated():
    """Before the ranks were centred, 8 of these 10 were called related (p <= 0.01); issue 47 asks for >= 9 of 10
    found unrelated at the guard's level, while related tasks keep their power (experiments/relatedness_power.py)."""
    from mtbn.data import make_taskset
    from mtbn.learn import RELATEDNESS_LEVEL, _relatedness_check
    from mtbn.score import make_scorer

    unrelated = 0
    for run in range(10):
        ts = make_taskset(_shared_skew_tasks(run))
        scorers = [make_scorer(d, "bdeu", 1.0) for d in ts.tasks]
        unrelated += _relatedness_check(scorers, ts.local_index, np.random.SeedSequence([0, run, 5]))[
            "p_value"] >= RELATEDNESS_LEVEL
    assert unrelated >= 9


@pytest.mark.slow
@pytest.mark.parametrize("run", [0, 1, 2])
def test_the_default_learns_shared_marginal_tasks_alone(run):
    """Found unrelated, the default returns single-task learning: the same structures and the same CPTs."""
    import warnings

    from mtbn.learn import learn_structures

    tasks = _shared_skew_tasks(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = learn_structures(tasks, n_restarts=5, random_state=run)
    alone = learn_structures(tasks, prior="none", n_restarts=5, random_state=run)
    assert [g.parents for g in default.graphs] == [g.parents for g in alone.graphs]
    for a, b in zip(default.networks, alone.networks):
        assert all(np.array_equal(x, y) for x, y in zip(a.cpts, b.cpts))
