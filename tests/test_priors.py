"""Tests of mtbn.priors and the pair-problem solvers of mtbn.joint.

Truths used: brute-force evaluations of eqs. 2.7 and 2.8 written here from
the paper (enumerate the consensus state, or sum over task pairs), and a
brute-force enumeration of all 3^k configurations of a pair problem with
that brute-force prior, including the documented tie rule (lexicographically
smallest configuration within the tolerance of the best).
"""

import itertools
import math

import numpy as np
import pytest

from mtbn.exceptions import InvalidParameterError
from mtbn.joint import best_configuration, solve_pairs
from mtbn.priors import EditPrior, PairedPrior, make_prior

PENALTIES = (0.0, 0.3, 0.9, 0.999, 1.0)
TOL = 1e-7


# ---------------------------------------------------------------------------
# Brute-force truths (independent of mtbn.priors)
# ---------------------------------------------------------------------------


def dist(a, b, reversal):
    """Edits between two states of one pair: 0 none, 1 i->j, 2 j->i."""
    if a == b:
        return 0
    if a == 0 or b == 0:
        return 1
    return 1 if reversal == "single" else 2


def log_one_minus(delta):
    return -math.inf if delta >= 1 else math.log1p(-delta)


def scaled(log_factor, count):
    """``count`` edits at ``log_factor`` each: zero edits are free even at -inf."""
    return 0.0 if count == 0 else log_factor * count


def brute_edit(states, part, log_factor, reversal):
    """eq. 2.7 for one pair: L * min_z (edits to make every participant z)."""
    edits = min(
        sum(dist(s, z, reversal) for s, p in zip(states, part) if p) for z in range(3)
    )
    return scaled(log_factor, edits)


def brute_paired(states, part, log_factor, reversal, weights=None):
    """eq. 2.8 for one pair: L / (k - 1) * sum_{t<u} W[t, u] d(s_t, s_u)."""
    k = len(states)
    if k < 2:
        return 0.0
    total = 0.0
    for t in range(k):
        for u in range(t + 1, k):
            if part[t] and part[u]:
                w = 1.0 if weights is None else weights[t][u]
                total += w * dist(states[t], states[u], reversal)
    return scaled(log_factor / (k - 1), total)


def brute(spec, states, part, log_factor):
    name, reversal, weights = spec
    if name == "edit":
        return brute_edit(states, part, log_factor, reversal)
    return brute_paired(states, part, log_factor, reversal, weights)


def brute_best(spec, gains, part, log_factor):
    """Best objective and the lexicographically first configuration within TOL."""
    k = gains.shape[0]
    values = {}
    for conf in itertools.product(range(3), repeat=k):
        g = sum(gains[t, s] for t, s in enumerate(conf))
        if not np.isfinite(g):
            continue
        values[conf] = g + brute(spec, conf, part, log_factor)
    best = max(values.values())
    first = next(c for c, v in values.items() if v >= best - TOL)  # dict keeps lexicographic order
    return best, first


def build(spec, delta, k):
    name, reversal, weights = spec
    return make_prior(name, delta, k, reversal=reversal, weights=weights)


SPECS = [
    ("edit", "single", None),
    ("edit", "double", None),
    ("paired", "single", None),
    ("paired", "double", None),
]


def random_weights(rng, k):
    w = rng.uniform(0.0, 3.0, size=(k, k))
    w[rng.random((k, k)) < 0.2] = 0.0
    w = np.triu(w, 1)
    w = w + w.T
    return w


def random_problem(rng, k, m, delta, *, integer=False):
    """Random pair problems as the joint search builds them.

    Each participating task has its current state at gain 0 and the other
    states at random gains or -inf (illegal moves); a task that does not take
    part has gains (0, -inf, -inf), as :func:`mtbn.joint._pair_gains` gives.
    At delta = 1 the current configuration is consistent (the search never
    sits on a configuration of prior probability 0).
    """
    gains = rng.normal(scale=2.0, size=(m, k, 3))
    if integer:
        gains = np.round(gains * 2) / 2  # many exact ties
    gains[rng.random((m, k, 3)) < 0.25] = -np.inf
    part = rng.random((m, k)) < 0.8
    if delta >= 1:
        cur = np.repeat(rng.integers(0, 3, size=(m, 1)), k, axis=1)
    else:
        cur = rng.integers(0, 3, size=(m, k))
    rows, cols = np.indices((m, k))
    gains[rows, cols, cur] = 0.0
    gains[~part] = (0.0, -np.inf, -np.inf)
    log_factor = np.full(m, log_one_minus(delta))
    return gains, part, log_factor


# ---------------------------------------------------------------------------
# log_prior against the brute-force formulas
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("reversal", ["single", "double"])
@pytest.mark.parametrize("delta", PENALTIES)
def test_edit_log_prior_equals_brute_force_edit_count(reversal, delta):
    rng = np.random.default_rng(1)
    for k in range(1, 7):
        prior = make_prior("edit", delta, k, reversal=reversal)
        assert isinstance(prior, EditPrior)
        states = rng.integers(0, 3, size=(60, k))
        part = rng.random((60, k)) < 0.75
        # Log factors per pair: the global one and some per-edge penalties.
        lf = np.where(rng.random(60) < 0.5, log_one_minus(delta), np.log1p(-rng.uniform(0, 0.99, 60)))
        got = prior.log_prior(states, part, lf)
        want = [brute_edit(s, p, f, reversal) for s, p, f in zip(states.tolist(), part, lf)]
        assert not np.any(np.isnan(got))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reversal", ["single", "double"])
@pytest.mark.parametrize("delta", PENALTIES)
def test_paired_log_prior_equals_brute_force_sum_over_task_pairs(reversal, delta):
    rng = np.random.default_rng(2)
    for k in range(1, 7):
        for weights in (None, random_weights(rng, k)):
            prior = make_prior("paired", delta, k, reversal=reversal, weights=weights)
            assert isinstance(prior, PairedPrior)
            states = rng.integers(0, 3, size=(60, k))
            part = rng.random((60, k)) < 0.75
            lf = np.full(60, log_one_minus(delta))
            got = prior.log_prior(states, part, lf)
            w = None if weights is None else weights.tolist()
            want = [brute_paired(s, p, f, reversal, w) for s, p, f in zip(states.tolist(), part, lf)]
            assert not np.any(np.isnan(got))
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reversal", ["single", "double"])
def test_paired_log_prior_with_unit_weights_counts_exactly_as_the_pair_loop(reversal):
    # The default weights take a counting shortcut; it must give the loop's values bit for bit
    # (the search's tie-breaking and the stored experiment results depend on them).
    rng = np.random.default_rng(5)
    for k in range(2, 17):
        for delta in (0.5, 0.9, 1 - 1e-8, 1.0):
            prior = make_prior("paired", delta, k, reversal=reversal)
            states = rng.integers(0, 3, size=(80, k))
            part = rng.random((80, k)) < 0.8
            lf = np.where(rng.random(80) < 0.5, log_one_minus(delta), np.log1p(-rng.uniform(0, 0.99, 80)))
            fast = prior.log_prior(states, part, lf)
            prior._unit = False  # the pair loop
            loop = prior.log_prior(states, part, lf)
            np.testing.assert_array_equal(fast, loop)


def test_paired_prior_of_two_tasks_counts_symmetric_difference_of_edges():
    # eq. 2.6 for k = 2: each arc in one graph but not the other costs log(1 - delta).
    prior = make_prior("paired", 0.6, 2)  # reversal "double": a reversed arc is 2 arcs of the difference
    L = math.log(0.4)
    states = np.array([[0, 0], [1, 1], [0, 1], [2, 0], [1, 2]])
    got = prior.log_prior(states, np.ones_like(states, dtype=bool), np.full(5, L))
    np.testing.assert_allclose(got, [0, 0, L, L, 2 * L])


def test_edit_prior_of_three_tasks_uses_the_fewest_edits():
    prior = make_prior("edit", 0.5, 3)
    L = math.log(0.5)
    # (1, 1, 0): one addition; (1, 2, 0): reversal + addition or two... min is 2 with z = 1 or z = 0.
    states = np.array([[1, 1, 0], [1, 2, 0], [1, 2, 2], [0, 0, 0]])
    got = prior.log_prior(states, np.ones_like(states, dtype=bool), np.full(4, L))
    np.testing.assert_allclose(got, [L, 2 * L, L, 0.0])


# ---------------------------------------------------------------------------
# delta = 1 and k = 1
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_penalty_one_consistent_is_zero_inconsistent_is_minus_inf(spec):
    k = 4
    prior = build(spec, 1.0, k)
    L = np.full(5, -np.inf)
    states = np.array([
        [0, 0, 0, 0],
        [1, 1, 1, 1],
        [2, 2, 2, 2],
        [1, 1, 1, 0],
        [2, 1, 2, 2],
    ])
    part = np.ones_like(states, dtype=bool)
    got = prior.log_prior(states, part, L)
    assert not np.any(np.isnan(got))
    assert got[0] == 0.0 and got[1] == 0.0 and got[2] == 0.0
    assert np.all(got[3:] == -np.inf)
    # A task that does not take part in the pair may differ freely.
    part2 = part.copy()
    part2[3, 3] = False
    part2[4, 1] = False
    got2 = prior.log_prior(states, part2, L)
    assert not np.any(np.isnan(got2))
    np.testing.assert_array_equal(got2, [0.0, 0.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("delta", PENALTIES)
@pytest.mark.parametrize("reversal", ["single", "double"])
def test_single_task_paired_prior_is_zero(delta, reversal):
    prior = make_prior("paired", delta, 1, reversal=reversal)
    states = np.array([[0], [1], [2]])
    got = prior.log_prior(states, np.ones((3, 1), dtype=bool), np.full(3, log_one_minus(delta)))
    assert not np.any(np.isnan(got))
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.0])
    assert prior.exponent == 1.0


def test_exponent_is_one_over_one_plus_k_minus_one_delta():
    for k in (1, 2, 5):
        for delta in PENALTIES:
            for name in ("edit", "paired"):
                assert make_prior(name, delta, k).exponent == pytest.approx(1.0 / (1.0 + (k - 1) * delta))


def test_default_reversal_is_double_for_paired_and_single_for_edit():
    assert make_prior("paired", 0.5, 3).reversal == "double"
    assert make_prior("edit", 0.5, 3).reversal == "single"


# ---------------------------------------------------------------------------
# The pair-problem solvers agree with each other and with brute force
# ---------------------------------------------------------------------------


def solvers_for(prior):
    return (["exact"] if prior.exact else []) + ["bnb", "exhaustive"]


def check_solvers(spec, prior, gains, part, log_factor, n_config):
    values = {s: solve_pairs(prior, gains, part, log_factor, s) for s in solvers_for(prior)}
    truths = [brute_best(spec, gains[p], part[p], float(log_factor[p])) for p in range(len(gains))]
    want = np.array([t[0] for t in truths])
    for solver, got in values.items():
        assert not np.any(np.isnan(got)), solver
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=solver)
    for p in range(n_config):
        for solver in values:
            conf, value = best_configuration(prior, gains[p], part[p], float(log_factor[p]), solver)
            assert tuple(conf) == truths[p][1], (solver, p)
            assert value == pytest.approx(truths[p][0], rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("delta", PENALTIES)
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s[0]}-{s[1]}")
def test_all_solvers_find_the_brute_force_best(spec, delta):
    rng = np.random.default_rng([SPECS.index(spec), int(delta * 1000)])
    for k in range(1, 7):
        prior = build(spec, delta, k)
        assert prior.exact
        for integer in (False, True):
            gains, part, lf = random_problem(rng, k, 12, delta, integer=integer)
            check_solvers(spec, prior, gains, part, lf, n_config=4)


@pytest.mark.parametrize("delta", PENALTIES)
@pytest.mark.parametrize("reversal", ["single", "double"])
def test_solvers_agree_with_unequal_pair_weights(reversal, delta):
    rng = np.random.default_rng(int(delta * 1000) + (7 if reversal == "single" else 0))
    for k in range(1, 7):
        w = random_weights(rng, k)
        if k >= 3:
            w[0, 1] = w[1, 0] = 1.0
            w[0, 2] = w[2, 0] = 2.5  # surely unequal
        prior = make_prior("paired", delta, k, reversal=reversal, weights=w)
        if k >= 3:
            assert prior.exact is False
            with pytest.raises(InvalidParameterError, match="exact"):
                solve_pairs(prior, np.zeros((1, k, 3)), np.ones((1, k), bool), np.zeros(1), "exact")
        spec = ("paired", reversal, w.tolist())
        for integer in (False, True):
            gains, part, lf = random_problem(rng, k, 12, delta, integer=integer)
            check_solvers(spec, prior, gains, part, lf, n_config=4)


@pytest.mark.parametrize("delta", [0.3, 0.9, 1.0])
def test_equal_non_unit_pair_weights_keep_the_exact_solver(delta):
    rng = np.random.default_rng(11)
    for k in (2, 3, 5):
        w = np.full((k, k), 2.5)
        np.fill_diagonal(w, 0.0)
        prior = make_prior("paired", delta, k, weights=w)
        assert prior.exact
        spec = ("paired", "double", w.tolist())
        gains, part, lf = random_problem(rng, k, 12, delta)
        check_solvers(spec, prior, gains, part, lf, n_config=3)


def test_solvers_agree_with_per_pair_log_factors():
    # Per-edge penalties give each pair its own log factor (including 0 and -inf).
    rng = np.random.default_rng(5)
    for spec in SPECS:
        for k in (2, 3, 4):
            prior = build(spec, 0.5, k)
            gains, part, _ = random_problem(rng, k, 30, 0.5)
            deltas = rng.choice(np.array([0.0, 0.2, 0.5, 0.99]), size=30)
            lf = np.log1p(-deltas)
            # delta = 1 needs a consistent current configuration: use one row of that kind.
            gains[0] = (0.0, -np.inf, 1.0)
            part[0] = True
            lf[0] = -np.inf
            check_solvers(spec, prior, gains, part, lf, n_config=3)


def test_best_configuration_breaks_ties_lexicographically():
    prior = make_prior("edit", 0.0, 2)
    gains = np.array([[0.0, 1.0, 1.0], [0.0, 2.0, 2.0]])
    for solver in ("exact", "bnb", "exhaustive"):
        conf, value = best_configuration(prior, gains, np.ones(2, bool), 0.0, solver)
        assert tuple(conf) == (1, 1)
        assert value == pytest.approx(3.0)


def test_penalty_one_solution_is_a_consistent_configuration():
    rng = np.random.default_rng(9)
    for spec in SPECS:
        for k in (2, 3, 5):
            prior = build(spec, 1.0, k)
            gains, part, lf = random_problem(rng, k, 8, 1.0)
            for p in range(8):
                conf, value = best_configuration(prior, gains[p], part[p], float(lf[p]), "bnb")
                assert np.isfinite(value)
                assert len({s for s, q in zip(conf, part[p]) if q}) <= 1


# ---------------------------------------------------------------------------
# make_prior validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("penalty", [-0.1, 1.5, float("nan"), "x", None, True, float("inf")])
@pytest.mark.parametrize("name", ["edit", "paired"])
def test_make_prior_rejects_penalty_outside_unit_interval(name, penalty):
    with pytest.raises(InvalidParameterError, match="penalty"):
        make_prior(name, penalty, 3)


@pytest.mark.parametrize("penalty", [0, 0.0, 1, 1.0, np.float64(0.25)])
def test_make_prior_accepts_penalty_bounds(penalty):
    assert make_prior("paired", penalty, 3).penalty == float(penalty)


def test_make_prior_rejects_unknown_prior_name():
    with pytest.raises(InvalidParameterError, match="prior must be one of"):
        make_prior("bogus", 0.5, 3)


@pytest.mark.parametrize("name", ["edit", "paired"])
def test_make_prior_rejects_unknown_reversal(name):
    with pytest.raises(InvalidParameterError, match="reversal must be one of"):
        make_prior(name, 0.5, 3, reversal="triple")


@pytest.mark.parametrize("shape", [(2, 2), (3, 4), (9,), (3, 3, 1)])
def test_make_prior_rejects_pair_weights_of_wrong_shape(shape):
    with pytest.raises(InvalidParameterError, match="pair weights must be a 3 x 3 matrix"):
        make_prior("paired", 0.5, 3, weights=np.ones(shape))


def test_make_prior_rejects_asymmetric_pair_weights():
    w = np.array([[0, 1, 2], [1, 0, 1], [1, 1, 0]], dtype=float)
    with pytest.raises(InvalidParameterError, match="symmetric"):
        make_prior("paired", 0.5, 3, weights=w)


def test_make_prior_rejects_negative_or_non_finite_pair_weights():
    w = np.array([[0, -1, 1], [-1, 0, 1], [1, 1, 0]], dtype=float)
    with pytest.raises(InvalidParameterError, match="non-negative"):
        make_prior("paired", 0.5, 3, weights=w)
    w = np.array([[0, np.inf, 1], [np.inf, 0, 1], [1, 1, 0]], dtype=float)
    with pytest.raises(InvalidParameterError, match="finite"):
        make_prior("paired", 0.5, 3, weights=w)


def test_make_prior_rejects_pair_weights_for_edit_prior():
    with pytest.raises(InvalidParameterError, match="paired"):
        make_prior("edit", 0.5, 3, weights=np.ones((3, 3)))


def test_all_zero_pair_weights_at_penalty_one_leave_tasks_independent():
    k = 3
    prior = make_prior("paired", 1.0, k, weights=np.zeros((k, k)))
    gains = np.array([[[0.0, 1.0, -np.inf], [0.0, -1.0, 2.0], [0.0, 0.5, 0.2]]])
    part = np.ones((1, k), dtype=bool)
    lf = np.array([-np.inf])
    # Zero weights: no coupling, so the best is each task's own best gain: 1 + 2 + 0.5.
    for solver in solvers_for(prior):
        assert solve_pairs(prior, gains, part, lf, solver)[0] == pytest.approx(3.5), solver


def _excluding_problem(rng, prior, m, k, *, illegal, present):
    """Random pair problems: gains (some illegal), participation, an excluded configuration, log factors."""
    gains = rng.normal(0, 2, size=(m, k, 3))
    gains[rng.random((m, k, 3)) < illegal] = -np.inf
    part = rng.random((m, k)) < present
    gains[~part] = (0.0, -np.inf, -np.inf)
    exclude = np.where(part, rng.integers(0, 3, size=(m, k)), 0)
    return gains, part, exclude, np.full(m, float(prior.log_factors(2)[0]))


@pytest.mark.slow
def test_paired_solve_excluding_matches_enumeration_of_the_other_configurations():
    # Brute force: every configuration (non-participating tasks at "no edge") except the excluded one.
    rng = np.random.default_rng(11)
    for _ in range(150):
        k = int(rng.integers(1, 7))  # up to 6 tasks: the DP's shrinking count tables at several sizes
        prior = make_prior("paired", float(rng.choice([0.3, 0.9, 1.0])), k,
                           reversal=str(rng.choice(["single", "double"])))
        m = 4
        gains, part, exclude, L = _excluding_problem(rng, prior, m, k, illegal=0.15, present=0.8)
        got = prior.solve_excluding(gains, part, L, exclude)
        for p in range(m):
            best = -np.inf
            for config in itertools.product(range(3), repeat=k):
                c = np.array(config)
                if np.any(c[~part[p]] != 0) or np.array_equal(c, exclude[p]):
                    continue
                g = gains[p, np.arange(k), c].sum()
                if np.isfinite(g):
                    best = max(best, g + prior.log_prior(c[None], part[p][None], L[p:p + 1])[0])
            assert np.isclose(got[p], best, rtol=1e-12, atol=1e-9) or got[p] == best


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_enumerated_count_dps_give_the_dps_values_to_the_bit(k):
    # A few pairs of a few tasks are enumerated instead of the count DPs (issue 30): the same floats, not
    # merely close ones, so the joint search moves the same way. Penalties 0..1, both reversal costs,
    # per-pair log factors (some -inf), exact ties, illegal states, tasks that take no part.
    import mtbn.priors as priors

    rng = np.random.default_rng(100 + k)
    n_checked = 0
    for delta in (0.0, 0.5, 0.9, 0.9999, 1.0):
        for reversal in ("single", "double"):
            prior = make_prior("paired", delta, k, reversal=reversal)
            for m in (1, 3, 16):
                gains, part, cur = _consensus_problem(rng, m, k, scale=float(rng.choice([0.3, 3.0])),
                                                      present=0.8, illegal=0.15)
                L = np.full(m, float(prior.log_factors(2)[0]))
                if rng.random() < 0.5:
                    L = priors.log1m(rng.choice([0.0, 0.5, 0.99, 1.0], size=m))
                assert np.array_equal(prior._solve_enumerated(gains, part, L), prior._solve_full(gains, part, L))
                for exclude in (cur, np.where(part, rng.integers(0, 3, size=(m, k)), 0)):
                    assert np.array_equal(prior._solve_excluding_enumerated(gains, part, L, exclude),
                                          prior._solve_excluding_chunks(gains, part, L, exclude))
                n_checked += 1
    assert n_checked == 30
    # The public methods take the enumeration for few pairs and the DPs for many: the same values either way.
    prior = make_prior("paired", 0.99, k)
    many = max(1, 2 * priors.paired.ENUMERATED_CELLS // 3**k + 1)
    gains, part, cur = _consensus_problem(rng, many, k, scale=1.0)
    L = np.full(many, float(prior.log_factors(2)[0]))
    whole = prior.solve(gains, part, L)
    assert np.array_equal(whole, prior._solve_full(gains, part, L))
    assert np.array_equal(np.concatenate([prior.solve(gains[i:i + 1], part[i:i + 1], L[i:i + 1])
                                          for i in range(many)]), whole)


def test_paired_solve_excluding_is_the_same_in_chunks(monkeypatch):
    import mtbn.priors as priors

    rng = np.random.default_rng(3)
    k, m = 6, 40
    prior = make_prior("paired", 0.99, k)
    gains, part, exclude, L = _excluding_problem(rng, prior, m, k, illegal=0.1, present=0.9)
    whole = prior.solve_excluding(gains, part, L, exclude)
    monkeypatch.setattr(priors.kernels, "EXCLUDING_CHUNK", 1)  # one pair per chunk
    assert np.array_equal(prior.solve_excluding(gains, part, L, exclude), whole)


# --- the prior protocol (issue 33): a new prior is one class and one registration ---

def _toy_edit_class():
    """The Edit prior written from its definition only (eq. 2.7), with no solver of its own."""
    from mtbn.priors import MultitaskPrior

    class ToyEdit(MultitaskPrior):
        name = "toy-edit"

        def log_prior(self, states, part, log_factor):
            states = np.asarray(states)
            # fewest edits to a consensus z: sum over taking-part tasks of D[s_t, z], minimised over z
            edits = np.min([np.where(part, self.D[states, z], 0.0).sum(axis=1) for z in range(3)], axis=0)
            with np.errstate(invalid="ignore"):
                return np.where(edits == 0, 0.0, np.asarray(log_factor) * edits)

        def bound(self, part, log_factor):
            D, L = self.D, float(log_factor)

            class Bound:
                root = (0.0, 0.0, 0.0)

                def extend(self, partial, prefix, s):
                    return tuple(p + D[s, z] for z, p in enumerate(partial))

                def value(self, partial):
                    return 0.0 if min(partial) == 0 else L * min(partial)

            return Bound()

    return ToyEdit


def test_a_registered_toy_prior_runs_the_joint_search_and_matches_the_edit_prior():
    from mtbn.learn import learn_structures
    from mtbn.priors import PRIORS, register_prior

    from mtbn.benchmarks import make_problem
    from mtbn.networks import sample

    rng = np.random.default_rng(4)
    nets = make_problem("sachs", n_tasks=3, random_state=rng)
    tasks = [sample(n, 300, random_state=rng).to_dataframe() for n in nets]
    register_prior("toy-edit", _toy_edit_class())
    try:
        toy = learn_structures(tasks, prior="toy-edit", penalty=0.9, n_restarts=2, n_joint_restarts=2)
        edit = learn_structures(tasks, prior="edit", penalty=0.9, n_restarts=2, n_joint_restarts=2)
    finally:
        del PRIORS["toy-edit"]
    assert [g.parents for g in toy.graphs] == [g.parents for g in edit.graphs]
    assert toy.log_score == pytest.approx(edit.log_score, abs=1e-9)
    assert toy.search.solver == "bnb"  # no exact solver declared: branch and bound on its bound


def test_register_prior_refuses_what_is_not_a_prior():
    from mtbn.priors import register_prior

    with pytest.raises(InvalidParameterError, match="'odd'.*MultitaskPrior"):
        register_prior("odd", dict)


def test_the_independent_prior_is_registered_and_takes_the_penalty_as_zero():
    from mtbn.priors import PRIORS, IndependentPrior

    assert PRIORS["none"] is IndependentPrior
    prior = make_prior("none", 0.7, 3)
    assert prior.penalty == 0.0 and not prior.is_coupled(5) and prior.exponent == 1.0


def test_the_protocols_default_solve_enumerates_like_the_exact_solvers():
    # MultitaskPrior.solve (enumeration through log_prior) against each prior's own exact solve
    from mtbn.priors import MultitaskPrior

    rng = np.random.default_rng(2)
    for prior in (make_prior("edit", 0.9, 3), make_prior("paired", 0.99, 3, reversal="single"),
                  make_prior("none", 0.0, 3)):
        gains = rng.normal(size=(20, 3, 3))
        gains[rng.random((20, 3, 3)) < 0.2] = -np.inf
        gains[:, :, 0] = np.where(np.isfinite(gains[:, :, 0]), gains[:, :, 0], 0.0)
        part = rng.random((20, 3)) < 0.8
        L = prior.log_factors(8)[:20]
        assert np.allclose(MultitaskPrior.solve(prior, gains, part, L), prior.solve(gains, part, L))


def test_a_prior_without_log_prior_or_bound_cannot_be_built():
    from mtbn.priors import MultitaskPrior

    class Half(MultitaskPrior):
        def log_prior(self, states, part, log_factor):
            return np.zeros(len(states))

    with pytest.raises(TypeError, match="bound"):
        Half(0.5, 2, reversal="single")


# --- count windows (issue 30): the Paired count DPs capped at the counts that can win ---

def _consensus_problem(rng, m, k, *, scale, present=0.95, illegal=0.05):
    """Pair problems like the joint search's: gains relative to current states, mostly shared by the tasks."""
    part = rng.random((m, k)) < present
    cur = np.where(rng.random((m, 1)) < 0.5, 0, rng.integers(1, 3, size=(m, 1))) * np.ones((m, k), dtype=int)
    cur = np.where(rng.random((m, k)) < 0.1, rng.integers(0, 3, size=(m, k)), cur)
    cur = np.where(part, cur, 0)
    gains = rng.normal(0, scale, size=(m, k, 3)) + rng.normal(0, 2 * scale, size=(m, 1, 3))
    if rng.random() < 0.3:
        gains = np.round(gains)  # exact ties between states and tasks
    gains -= np.take_along_axis(gains, cur[:, :, None], 2)
    ill = rng.random((m, k, 3)) < illegal
    ill[np.arange(m)[:, None], np.arange(k)[None, :], cur] = False
    gains[ill] = -np.inf
    gains[~part] = (0.0, -np.inf, -np.inf)
    return gains, part, cur


@pytest.mark.parametrize("k", [8, 13, 30])
def test_count_windows_give_the_full_count_dps_answers_to_the_bit(k, monkeypatch):
    # The full DPs are checked against enumeration above (k <= 6); the windows must reproduce them exactly,
    # values and tie-broken configurations, with every penalty from 0 to 1 and per-pair log factors.
    import mtbn.priors as priors
    from mtbn.search import TIE_TOLERANCE

    monkeypatch.setattr(priors.paired, "WINDOW_MIN_TASKS", 2)  # the windows at every size (the default starts at 24)
    rng = np.random.default_rng(k)
    n_windowed = 0
    for delta in (0.0, 0.5, 0.9, 0.99, 0.9999, 1.0):
        for scale in (0.3, 3.0, 20.0):
            prior = make_prior("paired", delta, k, reversal=str(rng.choice(["single", "double"])))
            m = 12
            gains, part, cur = _consensus_problem(rng, m, k, scale=scale)
            L = np.full(m, float(prior.log_factors(2)[0]))
            if scale == 3.0:
                L = priors.log1m(rng.choice([0.0, 0.9, 0.99, 1.0], size=m))
            n_windowed += int(priors.kernels._Windows(prior, gains, part, L).windowed.sum())
            full = prior._solve_full(gains, part, L)
            assert np.array_equal(prior.solve(gains, part, L), full)
            assert np.array_equal(prior.solve_excluding(gains, part, L, cur),
                                  prior._solve_excluding_chunks(gains, part, L, cur))
            upper = prior.upper_bound(gains, part, L)
            finite = np.isfinite(full)  # a bound up to rounding (the sums run in other orders)
            assert np.all(upper[finite] >= full[finite] - 1e-9 * (1 + np.abs(full[finite])))
            assert np.all(upper <= state_max_sum(gains))
            for p in range(0, m, 3):
                for exclude in (None, cur[p]):
                    assert prior.best_configuration(gains[p], part[p], L[p], TIE_TOLERANCE, exclude) == \
                        priors.kernels._paired_best_configuration(prior, gains[p], part[p], L[p], TIE_TOLERANCE, exclude)
    assert n_windowed > 100  # the windows were taken, not only the fallback


def state_max_sum(gains):
    return gains.max(axis=2).sum(axis=1)


@pytest.mark.slow
def test_count_windows_forced_on_few_tasks_match_enumeration(monkeypatch):
    import mtbn.priors as priors
    from mtbn.joint.configuration import _best_by_enumeration
    from mtbn.search import TIE_TOLERANCE

    monkeypatch.setattr(priors.paired, "WINDOW_MIN_TASKS", 2)
    rng = np.random.default_rng(5)
    for _ in range(60):
        k = int(rng.integers(2, 6))
        prior = make_prior("paired", float(rng.choice([0.3, 0.9, 0.99, 1.0])), k,
                           reversal=str(rng.choice(["single", "double"])))
        m = 6
        gains, part, cur = _consensus_problem(rng, m, k, scale=float(rng.choice([0.5, 3.0])))
        L = np.full(m, float(prior.log_factors(2)[0]))
        got, got_ex = prior.solve(gains, part, L), prior.solve_excluding(gains, part, L, cur)
        for p in range(m):
            values = {}
            for config in itertools.product(range(3), repeat=k):
                c = np.array(config)
                g = gains[p, np.arange(k), c].sum()
                if np.any(c[~part[p]] != 0) or not np.isfinite(g):
                    continue
                values[config] = g + prior.log_prior(c[None], part[p][None], L[p:p + 1])[0]
            best = max(values.values())
            other = max([v for c, v in values.items() if c != tuple(cur[p])], default=-np.inf)
            assert np.isclose(got[p], best, rtol=1e-12, atol=1e-9)
            assert np.isclose(got_ex[p], other, rtol=1e-12, atol=1e-9) or got_ex[p] == other
            for exclude in (None, cur[p]):
                fast = prior.best_configuration(gains[p], part[p], L[p], TIE_TOLERANCE, exclude)
                slow = _best_by_enumeration(prior, gains[p], part[p], L[p], TIE_TOLERANCE, exclude)
                assert fast[0] == slow[0]
                assert np.isclose(fast[1], slow[1], rtol=1e-12, atol=1e-9) or fast[1] == slow[1]
