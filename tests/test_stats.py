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
