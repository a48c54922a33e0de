"""Paired comparisons and Holm's correction against hand-computed values."""

import numpy as np
import pytest

from mtbn.stats import holm, paired_comparison


def test_holm_by_hand():
    # p sorted: 0.01 (x4), 0.02 (x3), 0.03 (x2), 0.04 (x1) -> 0.04, 0.06, 0.06, 0.06 (monotone).
    got = holm([0.03, 0.01, 0.04, 0.02])
    assert got == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert np.isnan(holm([np.nan, 0.01])[0]) and holm([np.nan, 0.01])[1] == pytest.approx(0.01)


def test_paired_comparison_by_hand():
    a = np.array([3.0, 5.0, 4.0, 6.0])
    b = np.array([2.0, 2.0, 3.0, 3.0])
    # a - b = 1, 3, 1, 3: mean 2, sd 2/sqrt(3)
    r = paired_comparison(a, b)
    half = 3.182446305284263 * (2 / np.sqrt(3)) / 2  # t_{0.975, 3} * sd / sqrt(n)
    assert r["mean_diff"] == pytest.approx(2.0)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((2 - half, 2 + half))
    t = 2.0 / ((2 / np.sqrt(3)) / 2)  # = 3.4641
    from scipy import stats
    assert r["p_t"] == pytest.approx(2 * stats.t.sf(t, 3))
    assert r["p_wilcoxon"] == pytest.approx(0.125)  # all 4 differences positive: 2 / 2^4
    same = paired_comparison(a, a)
    assert same["mean_diff"] == 0 and same["p_t"] == 1.0 and same["p_wilcoxon"] == 1.0


def test_stratified_permutation_moves_indices_only_within_their_stratum():
    from mtbn.stats import stratified_permutation

    rng = np.random.default_rng(3)
    strata = rng.integers(0, 4, size=40)
    for _ in range(20):
        p = stratified_permutation(strata, rng)
        assert sorted(p.tolist()) == list(range(40))
        assert np.array_equal(strata[p], strata)
    # One stratum: the same draws as an unrestricted permutation (the test's default is unchanged).
    assert np.array_equal(stratified_permutation(np.zeros(9), np.random.default_rng(1)),
                          np.random.default_rng(1).permutation(9))


def test_relabelling_within_state_counts_removes_the_state_count_confound():
    from mtbn.stats import relabelling_test

    # Two tasks whose dependence strengths share nothing but a scale set by each variable pair's state
    # counts (as a log Bayes factor's is): related under free relabelling, not within equal state counts.
    rng = np.random.default_rng(0)
    arity = np.repeat([2, 3, 4], 8)
    scale = np.multiply.outer(arity - 1, arity - 1).astype(float)
    mats = []
    for _ in range(2):
        noise = rng.normal(size=scale.shape)
        m = scale + 2 * (noise + noise.T)
        np.fill_diagonal(m, 0)
        mats.append(m)
    free = relabelling_test(mats, 199, random_state=1)
    within = relabelling_test(mats, 199, random_state=1, strata=arity)
    assert free["p_value"] == 0.005  # the smallest p with 199 relabellings
    assert within["p_value"] > 0.05
    # Tasks that do share their pattern beyond the state counts stay related within the strata.
    shared = rng.normal(size=scale.shape)
    related = [m + 5 * (shared + shared.T) for m in mats]
    assert relabelling_test(related, 199, random_state=1, strata=arity)["p_value"] == 0.005
