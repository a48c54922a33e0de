"""Tests of mtbn.score (BDeu and BIC) against independent truths.

Truths used: pgmpy's BDeu (observed states only), the BDeu and BIC formulas
evaluated by hand with Python loops and math.lgamma, reference totals from R
bnlearn / the textbook formula (copied as literals below), and score
equivalence of Markov-equivalent DAGs (a theorem about BDeu).
"""

import csv
import itertools
import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtbn.data import DiscreteData, read_csv
from mtbn.networks import load_network, sample
from mtbn.score import BDeuScore, BICScore, bdeu_local_score, make_scorer

DATA = os.path.join(os.path.dirname(__file__), "data")

# Reference BDeu totals (ess = 1, natural log), copied from
# /work/shared/data/anchors/reference.md ("BDeu values a correct implementation
# reproduces"); observed states = the labels occurring in the CSV.
ALARM_TRUE = -11240.941882778647
ALARM_EMPTY = -20792.769228681354
INSURANCE_TRUE = -14750.766922832032
INSURANCE_EMPTY = -22080.47251017561
# Same source: insurance_1000_s0 with the declared (BIF) state lists, some
# never observed (textbook formula and R bnlearn agree; pgmpy does not).
INSURANCE_DECLARED_TRUE = -14799.512331658096
INSURANCE_DECLARED_EMPTY = -22088.903245848287


def _path(name):
    return os.path.join(DATA, name)


def _true_parents(data, net):
    parents = [set() for _ in data.names]
    with open(_path(f"{net}_true_edges.csv"), newline="") as fh:
        for row in csv.DictReader(fh):
            parents[data.index(row["target"])].add(data.index(row["source"]))
    return parents


def _declared_states(net):
    states = {}
    with open(_path(f"{net}_states.csv"), newline="") as fh:
        for row in csv.DictReader(fh):
            states.setdefault(row["variable"], []).append(row["state"])
    return states


_CACHE = {}


def _alarm():
    if "alarm" not in _CACHE:
        _CACHE["alarm"] = read_csv(_path("alarm_1000_s0.csv"))
    return _CACHE["alarm"]


def _asia(n=2000, seed=1):
    key = ("asia", n, seed)
    if key not in _CACHE:
        _CACHE[key] = sample(load_network("asia"), n, random_state=seed)
    return _CACHE[key]


# ---------------------------------------------------------------------------
# Scores by hand (Python loops, math.lgamma)
# ---------------------------------------------------------------------------


def _hand_counts(rows, child, parents):
    counts = {}
    for row in rows:
        key = (tuple(row[p] for p in parents), row[child])
        counts[key] = counts.get(key, 0) + 1
    return counts


def _bdeu_by_hand(rows, arities, child, parents, ess=1.0):
    counts = _hand_counts(rows, child, parents)
    r = arities[child]
    q = 1
    for p in parents:
        q *= arities[p]
    a_j = ess / q
    a_jk = ess / (q * r)
    total = 0.0
    for config in itertools.product(*[range(arities[p]) for p in parents]):
        n_j = 0
        for k in range(r):
            n_jk = counts.get((config, k), 0)
            n_j += n_jk
            total += math.lgamma(a_jk + n_jk) - math.lgamma(a_jk)
        total += math.lgamma(a_j) - math.lgamma(a_j + n_j)
    return total


def _bic_by_hand(rows, arities, child, parents):
    counts = _hand_counts(rows, child, parents)
    r = arities[child]
    q = 1
    for p in parents:
        q *= arities[p]
    loglik = 0.0
    for config in itertools.product(*[range(arities[p]) for p in parents]):
        n_j = sum(counts.get((config, k), 0) for k in range(r))
        for k in range(r):
            n_jk = counts.get((config, k), 0)
            if n_jk:
                loglik += n_jk * math.log(n_jk / n_j)
    return loglik - 0.5 * math.log(len(rows)) * q * (r - 1)


def _tiny():
    """A hand-written table; B has a declared state 'b2' that never occurs."""
    rows = [
        (0, 0, 1, 0),
        (1, 0, 1, 1),
        (1, 1, 0, 1),
        (0, 1, 0, 0),
        (0, 0, 0, 1),
        (1, 1, 1, 1),
        (1, 0, 1, 0),
        (0, 1, 1, 1),
        (1, 1, 0, 0),
        (0, 0, 1, 1),
        (1, 1, 1, 1),
        (0, 1, 0, 0),
    ]
    states = (("a0", "a1"), ("b0", "b1", "b2"), ("c0", "c1"), ("d0", "d1"))
    data = DiscreteData(np.array(rows, dtype=np.uint8), ("A", "B", "C", "D"), states, "tiny")
    return rows, [len(s) for s in states], data


def _families(n_vars, max_size):
    for child in range(n_vars):
        others = [v for v in range(n_vars) if v != child]
        for size in range(max_size + 1):
            for parents in itertools.combinations(others, size):
                yield child, parents


@pytest.mark.parametrize("ess", [1.0, 2.5, 0.3])
def test_bdeu_equals_hand_formula_on_tiny_table(ess):
    rows, arities, data = _tiny()
    scorer = BDeuScore(data, equivalent_sample_size=ess)
    n_checked = 0
    for child, parents in _families(4, 3):
        expected = _bdeu_by_hand(rows, arities, child, parents, ess)
        assert scorer.local_score(child, parents) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert scorer.local_score_uncached(child, parents) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        n_checked += 1
    assert n_checked == 4 * 8


def test_bdeu_known_value_in_closed_form():
    # A = (0, 1, 1), B = (0, 1, 1), binary, ess = 1. With Gamma(x+1) = x Gamma(x):
    # P(D_B | A) = [G(.5)/G(1.5) * G(1.25)/G(.25)] * [G(.5)/G(2.5) * G(2.25)/G(.25)]
    #            = (2 * .25) * (4/3 * .25 * 1.25) = 5/24
    # P(D_B)     = G(1)/G(4) * G(1.5)/G(.5) * G(2.5)/G(.5) = 1/6 * .5 * .75 = 1/16
    data = DiscreteData(np.array([[0, 0], [1, 1], [1, 1]]), ("A", "B"), (("a", "b"), ("x", "y")))
    s = BDeuScore(data)
    assert s.local_score(1, [0]) == pytest.approx(math.log(5 / 24), rel=1e-13)
    assert s.local_score(1, []) == pytest.approx(math.log(1 / 16), rel=1e-13)
    assert s.local_score(1, [0]) - s.local_score(1, []) == pytest.approx(math.log(10 / 3), rel=1e-13)


def test_bdeu_equals_hand_formula_on_large_sparse_tables():
    # 20-state variables: a family with 3 parents has 20**4 = 160000 cells,
    # more than the dense-table threshold, so the sparse counting path runs.
    rng = np.random.default_rng(7)
    n_vars, r, n = 4, 20, 300
    codes = rng.integers(0, r, size=(n, n_vars)).astype(np.uint8)
    codes[:, 1] = (codes[:, 0] + rng.integers(0, 2, size=n)) % r  # some dependence
    states = tuple(tuple(f"s{k}" for k in range(r)) for _ in range(n_vars))
    data = DiscreteData(codes, tuple("WXYZ"), states)
    rows = [tuple(int(x) for x in row) for row in codes]
    arities = [r] * n_vars
    scorer = BDeuScore(data)
    bic = BICScore(data)
    for child, parents in [(0, (1, 2, 3)), (3, (0, 1, 2)), (1, (0, 3)), (2, ())]:
        assert scorer.local_score(child, parents) == pytest.approx(
            _bdeu_by_hand(rows, arities, child, parents), rel=1e-11
        )
        assert bic.local_score(child, parents) == pytest.approx(
            _bic_by_hand(rows, arities, child, parents), rel=1e-11
        )


def test_bic_equals_hand_computation_on_tiny_table():
    rows, arities, data = _tiny()
    scorer = BICScore(data)
    for child, parents in _families(4, 3):
        expected = _bic_by_hand(rows, arities, child, parents)
        assert scorer.local_score(child, parents) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_bic_known_value_by_hand():
    # A = (0,0,1,1), B = (0,1,1,1): ll(B|A) = 2 log(1/2) + 2 log 1; penalty
    # 0.5 * log(4) * q(=2) * (r-1 = 1).
    data = DiscreteData(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]), ("A", "B"), (("0", "1"), ("0", "1")))
    expected = 2 * math.log(0.5) - 0.5 * math.log(4) * 2
    assert BICScore(data).local_score(1, [0]) == pytest.approx(expected, rel=1e-14)
    expected_empty = 1 * math.log(1 / 4) + 3 * math.log(3 / 4) - 0.5 * math.log(4)
    assert make_scorer(data, "bic").local_score(1, []) == pytest.approx(expected_empty, rel=1e-14)
    # A Python float from both scores (as from pgmpy's scorers), not a numpy scalar.
    assert type(BICScore(data).local_score(1, [0])) is float and type(BDeuScore(data).local_score(1, [0])) is float


# ---------------------------------------------------------------------------
# pgmpy comparison (observed states)
# ---------------------------------------------------------------------------


def test_bdeu_equals_pgmpy_on_random_alarm_families():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.estimators import BDeu

    df = pd.read_csv(_path("alarm_1000_s0.csv"), dtype=str, keep_default_na=False)
    data = _alarm()
    assert tuple(df.columns) == data.names
    pg = BDeu(df, equivalent_sample_size=1)
    scorer = BDeuScore(data, equivalent_sample_size=1.0)
    rng = np.random.default_rng(2024)
    names = data.names
    n_unobserved = 0
    for i in range(200):
        k = i % 4  # 0, 1, 2, 3 parents in turn
        child, *parents = rng.choice(len(names), size=k + 1, replace=False).tolist()
        pa_names = [names[p] for p in parents]
        # Independent check of unobserved parent configurations (pandas).
        if parents:
            n_configs = int(np.prod([df[c].nunique() for c in pa_names]))
            if len(df[pa_names].drop_duplicates()) < n_configs:
                n_unobserved += 1
        expected = pg.local_score(names[child], pa_names)
        got = scorer.local_score(child, parents)
        assert got == pytest.approx(expected, rel=1e-9), (names[child], pa_names)
    assert n_unobserved >= 20


# ---------------------------------------------------------------------------
# Reference totals
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "net, true_value, empty_value",
    [("alarm", ALARM_TRUE, ALARM_EMPTY), ("insurance", INSURANCE_TRUE, INSURANCE_EMPTY)],
)
def test_reference_totals_observed_states(net, true_value, empty_value):
    data = read_csv(_path(f"{net}_1000_s0.csv"))
    scorer = BDeuScore(data, equivalent_sample_size=1.0)
    assert scorer.score(_true_parents(data, net)) == pytest.approx(true_value, rel=1e-10)
    assert scorer.score([set() for _ in data.names]) == pytest.approx(empty_value, rel=1e-10)


def test_reference_totals_insurance_declared_states():
    declared = _declared_states("insurance")
    data = read_csv(_path("insurance_1000_s0.csv"), states=declared)
    observed = read_csv(_path("insurance_1000_s0.csv"))
    # The premise: some declared states never occur in this sample.
    assert data.states != observed.states
    assert sum(data.arities) > sum(observed.arities)
    v = data.index("ThisCarCost")
    assert "Million" in data.states[v] and "Million" not in observed.states[v]
    scorer = BDeuScore(data, equivalent_sample_size=1.0)
    assert scorer.score(_true_parents(data, "insurance")) == pytest.approx(INSURANCE_DECLARED_TRUE, rel=1e-10)
    assert scorer.score([set() for _ in data.names]) == pytest.approx(INSURANCE_DECLARED_EMPTY, rel=1e-10)


def test_bdeu_local_score_function_accepts_names():
    data = _alarm()
    scorer = BDeuScore(data)
    expected = scorer.local_score(data.index("CO"), [data.index("HR"), data.index("STROKEVOLUME")])
    assert bdeu_local_score(data, "CO", ["STROKEVOLUME", "HR"]) == pytest.approx(expected, rel=1e-14)


# ---------------------------------------------------------------------------
# Score equivalence
# ---------------------------------------------------------------------------


def _score_edges(scorer, data, edges):
    parents = [set() for _ in data.names]
    for u, v in edges:
        parents[data.index(v)].add(data.index(u))
    return scorer.score(parents)


def test_markov_equivalent_three_node_graphs_score_equal():
    data = _asia()
    scorer = BDeuScore(data)
    chain = _score_edges(scorer, data, [("smoke", "lung"), ("lung", "either")])
    back = _score_edges(scorer, data, [("either", "lung"), ("lung", "smoke")])
    fork = _score_edges(scorer, data, [("lung", "smoke"), ("lung", "either")])
    collider = _score_edges(scorer, data, [("smoke", "lung"), ("either", "lung")])
    assert back == pytest.approx(chain, rel=1e-12)
    assert fork == pytest.approx(chain, rel=1e-12)
    # Control: the v-structure is not equivalent and scores differently.
    assert abs(collider - chain) > 1e-3


def test_markov_equivalent_full_asia_graphs_score_equal():
    net = load_network("asia")
    data = _asia()
    scorer = BDeuScore(data)
    true_edges = net.edges
    # Reversing asia->tub and smoke->lung (both covered: the child's only
    # parent is the root it comes from) keeps the skeleton and v-structures.
    equivalent = [e for e in true_edges if e not in {("asia", "tub"), ("smoke", "lung")}]
    equivalent += [("tub", "asia"), ("lung", "smoke")]
    assert _score_edges(scorer, data, equivalent) == pytest.approx(_score_edges(scorer, data, true_edges), rel=1e-12)
    # Control: reversing either->xray keeps the skeleton but adds the
    # v-structures tub -> either <- xray and lung -> either <- xray.
    different = [e for e in true_edges if e != ("either", "xray")] + [("xray", "either")]
    assert abs(_score_edges(scorer, data, different) - _score_edges(scorer, data, true_edges)) > 1e-3


def _covered_edges(parents):
    return [(u, v) for v, pa in enumerate(parents) for u in sorted(pa) if pa == parents[u] | {u}]


def _v_structures(parents):
    out = set()
    for v, pa in enumerate(parents):
        for a, b in itertools.combinations(sorted(pa), 2):
            if a not in parents[b] and b not in parents[a]:
                out.add((a, b, v))
    return out


def _skeleton(parents):
    return {frozenset((u, v)) for v, pa in enumerate(parents) for u in pa}


_RANDOM_DATA = {}


def _random_data():
    if not _RANDOM_DATA:
        rng = np.random.default_rng(11)
        n_vars, n = 7, 400
        arities = rng.integers(2, 5, size=n_vars)
        codes = np.column_stack([rng.integers(0, a, size=n) for a in arities]).astype(np.uint8)
        # Make some columns depend on others so scores are not all alike.
        codes[:, 3] = (codes[:, 0] + codes[:, 1] * (rng.random(n) < 0.7)) % arities[3]
        codes[:, 5] = (codes[:, 3] + (rng.random(n) < 0.2)) % arities[5]
        states = tuple(tuple(str(k) for k in range(a)) for a in arities)
        data = DiscreteData(codes, tuple(f"V{i}" for i in range(n_vars)), states)
        _RANDOM_DATA["data"] = data
        _RANDOM_DATA["bdeu"] = BDeuScore(data, equivalent_sample_size=1.0)
        _RANDOM_DATA["bdeu_ess"] = BDeuScore(data, equivalent_sample_size=7.5)
        _RANDOM_DATA["asia"] = BDeuScore(_asia())
    return _RANDOM_DATA


@st.composite
def _dag_and_reversals(draw, n):
    order = draw(st.permutations(range(n)))
    parents = [set() for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if draw(st.booleans()):
                parents[order[j]].add(order[i])
    picks = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=8))
    return parents, picks


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_dag_and_reversals(7), which=st.sampled_from(["bdeu", "bdeu_ess", "asia"]))
def test_covered_edge_reversals_preserve_bdeu(case, which):
    parents, picks = case
    scorer = _random_data()[which]
    n = scorer.n_vars
    if n != len(parents):
        parents = parents + [set() for _ in range(n - len(parents))]
    original = [set(p) for p in parents]
    base = scorer.score(parents)
    current = [set(p) for p in parents]
    for pick in picks:
        covered = _covered_edges(current)
        if not covered:
            break
        u, v = covered[pick % len(covered)]
        current[v].discard(u)
        current[u].add(v)
        # Premise check (Chickering 1995): the class is unchanged.
        assert _skeleton(current) == _skeleton(original)
        assert _v_structures(current) == _v_structures(original)
        assert scorer.score(current) == pytest.approx(base, rel=1e-10, abs=1e-9)


# ---------------------------------------------------------------------------
# Parent order and the cache
# ---------------------------------------------------------------------------


def test_parent_order_does_not_matter():
    data = _alarm()
    scorer = BDeuScore(data)
    bic = BICScore(data)
    child = data.index("CO")
    pa = [data.index("HR"), data.index("STROKEVOLUME"), data.index("LVFAILURE")]
    values = {scorer.local_score_uncached(child, list(p)) for p in itertools.permutations(pa)}
    assert len(values) == 1
    assert scorer.local_score(child, pa[::-1]) == values.pop()
    bic_values = {bic.local_score_uncached(child, list(p)) for p in itertools.permutations(pa)}
    assert len(bic_values) == 1
    # Also against the hand formula with the parents in another order.
    rows, arities, tiny = _tiny()
    s = BDeuScore(tiny)
    for perm in itertools.permutations([0, 1, 2]):
        assert s.local_score(3, perm) == pytest.approx(_bdeu_by_hand(rows, arities, 3, (0, 1, 2)), rel=1e-12)


def test_cache_hit_and_miss_counters():
    _, _, data = _tiny()
    s = BDeuScore(data)
    assert s.cache_info() == {"hits": 0, "misses": 0, "size": 0}
    a = s.local_score(0, [1, 2])
    assert s.cache_info() == {"hits": 0, "misses": 1, "size": 1}
    assert s.local_score(0, [1, 2]) == a
    assert s.cache_info() == {"hits": 1, "misses": 1, "size": 1}
    assert s.local_score(0, (2, 1)) == a  # same family, other order: a hit
    assert s.cache_info() == {"hits": 2, "misses": 1, "size": 1}
    s.local_score(0, [1])
    s.local_score(1, [0, 2])
    assert s.cache_info() == {"hits": 2, "misses": 3, "size": 3}
    # Uncached computation neither reads nor writes the cache.
    assert s.local_score_uncached(0, [1, 2]) == a
    s.local_score_uncached(3, [0])
    assert s.cache_info() == {"hits": 2, "misses": 3, "size": 3}
    # score() goes through the cache: 4 families, 1 of them already cached.
    s.score([{1, 2}, set(), set(), {0}])
    assert s.cache_info() == {"hits": 3, "misses": 6, "size": 6}
    s.clear_cache()
    assert s.cache_info() == {"hits": 0, "misses": 0, "size": 0}
    assert s.local_score(0, [2, 1]) == a
    assert s.cache_info() == {"hits": 0, "misses": 1, "size": 1}


def test_a_family_too_large_for_int64_codes_is_counted_exactly():
    # Nine parents of 200 states and a 3-state child: q * r = 1.5e21 cells,
    # beyond int64 mixed-radix codes. The score must equal BDeu computed
    # by hand from a brute-force count of the observed configurations.
    import collections

    rng = np.random.default_rng(5)
    n, arities = 400, [200] * 9 + [3]
    codes = np.column_stack([rng.integers(0, a, n) for a in arities]).astype(np.uint8)
    codes[:, 1] = codes[:, 0] % 7
    codes[:, 9] = (codes[:, 0] + codes[:, 2]) % 3  # the child depends on its parents
    names = [f"p{i}" for i in range(9)] + ["c"]
    data = DiscreteData(codes, names, [[str(s) for s in range(a)] for a in arities], "wide")
    counts = collections.defaultdict(lambda: [0, 0, 0])
    for row in codes.tolist():
        counts[tuple(row[:9])][row[9]] += 1
    q, r, ess = 200 ** 9, 3, 1.0
    expected = sum(
        math.lgamma(ess / q) - math.lgamma(ess / q + sum(c))
        + sum(math.lgamma(ess / (q * r) + x) - math.lgamma(ess / (q * r)) for x in c)
        for c in counts.values()
    )
    got = BDeuScore(data, ess).local_score(9, list(range(9)))
    assert got == pytest.approx(expected, rel=1e-9)
    # BDeu cannot see child states swapped within a configuration: compare the table itself.
    from mtbn.score import count_family

    table, q_out = count_family([codes[:, v].astype(np.int64) for v in range(10)], arities, 9, list(range(9)))
    assert q_out == q
    assert sorted(map(tuple, table.tolist())) == sorted(map(tuple, counts.values()))


def test_cache_items_merge_into_another_scorer_of_the_same_data():
    from mtbn.networks import load_network, sample
    from mtbn.score import BDeuScore

    data = sample(load_network("asia"), 300, random_state=0)
    worker, main = BDeuScore(data), BDeuScore(data)
    values = {(v, (u,)): worker.local_score(v, (u,)) for v in range(3) for u in range(3, 6)}
    main.merge_cache(worker.cache_items())
    assert main.cache_info()["size"] == len(values)
    for (v, pa), value in values.items():
        assert main.local_score(v, pa) == value == BDeuScore(data).local_score(v, pa)
    assert main.cache_info()["misses"] == 0  # every score came from the merged cache


@pytest.mark.parametrize("scorer_cls", [BDeuScore, BICScore])
def test_extension_scores_equal_each_family_scored_alone(scorer_cls):
    # The batched rescoring of a child (the search's hot loop) must give the
    # same float, bit for bit, as scoring each family on its own: u lands
    # before, between and after the parents, tables dense and sorted
    # (3 parents of 6 states: 6**4 cells > 4 n), and with 9 parents of 200
    # states (q r > 2**62) the family falls back to the renumbering path.
    rng = np.random.default_rng(11)
    n = 150
    arities = [2, 3, 6, 6, 6, 4] + [200] * 9
    codes = np.column_stack([rng.integers(0, a, n) for a in arities]).astype(np.uint8)
    codes[:, 1] = codes[:, 0] + (codes[:, 2] % 2)
    data = DiscreteData(codes, [f"v{i}" for i in range(len(arities))], [[str(s) for s in range(a)] for a in arities])
    scorer = scorer_cls(data)
    fresh = scorer_cls(data)
    cases = [(1, set(), [0, 2, 5]), (1, {0, 5}, [2, 3, 4]), (5, {2, 3}, [0, 1, 4]), (0, {3, 4}, [1, 2, 5]),
             (14, set(range(6, 13)), [0, 1, 13])]
    for child, parents, candidates in cases:
        got = scorer.extension_scores(child, parents, candidates)
        expected = [fresh.local_score_uncached(child, parents | {u}) for u in candidates]
        assert got.tolist() == expected
        # a second call is served from the cache, with the same values
        misses, hits = scorer.misses, scorer.hits
        assert scorer.extension_scores(child, parents, candidates).tolist() == expected
        assert (scorer.misses, scorer.hits) == (misses, hits + len(candidates))
    # A call mixing candidates already looked up, a family scored through
    # local_score only and new ones: each counted once, the values unchanged.
    child, parents = 1, {0, 5}
    scorer.local_score(child, parents | {6})
    more = [4, 6, 2, 7, 3]
    misses, hits = scorer.misses, scorer.hits
    got = scorer.extension_scores(child, parents, more)
    assert got.tolist() == [fresh.local_score_uncached(child, parents | {u}) for u in more]
    assert (scorer.misses, scorer.hits) == (misses + 1, hits + 4)
    scorer.clear_cache()
    assert scorer.extension_scores(child, parents, more).tolist() == got.tolist()
    assert scorer.misses == len(more)


@pytest.mark.parametrize("batch_elements", [1, 400, 1 << 17])
def test_batched_extension_scores_equal_each_family_scored_alone(monkeypatch, batch_elements):
    # BDeu scores the candidates of one arity together, in one bincount per
    # chunk of candidates; every score must be the float of scoring its
    # family alone, whatever the chunk size (1 row: one candidate per chunk;
    # 400 elements: 3 candidates of 120 rows; the default: all at once).
    import mtbn.score.counting as score_module

    monkeypatch.setattr(score_module, "_BATCH_ELEMENTS", batch_elements)
    rng = np.random.default_rng(5)
    n = 120
    arities = [2, 3, 2, 2, 3, 2, 4, 2, 3, 2, 2, 3]
    codes = np.column_stack([rng.integers(0, a, n) for a in arities])
    codes[:, 3] = codes[:, 2] ^ (rng.random(n) < 0.1)
    data = DiscreteData(codes, [f"v{i}" for i in range(len(arities))], [[str(s) for s in range(a)] for a in arities])
    for ess in (1.0, 7.5):
        scorer, fresh = BDeuScore(data, ess), BDeuScore(data, ess)
        for child, parents in [(3, set()), (3, {2}), (0, {4, 9}), (6, {1, 5, 10})]:
            candidates = [u for u in range(len(arities)) if u != child and u not in parents]
            got = scorer.extension_scores(child, parents, candidates)
            expected = [fresh.local_score_uncached(child, parents | {u}) for u in candidates]
            assert got.tolist() == expected
            assert scorer.misses == scorer.cache_info()["size"]


@pytest.mark.parametrize("scorer_cls", [BDeuScore, BICScore])
def test_pickled_scorer_scores_alike_and_keeps_one_copy_of_the_data(scorer_cls):
    # Scorers travel to worker processes (joblib, Dask): the copy must score
    # alike, carry its cache, and keep its per-variable columns as views of
    # one matrix (not a second copy of the data).
    import pickle

    rng = np.random.default_rng(5)
    codes = rng.integers(0, 3, size=(200, 6)).astype(np.uint8)
    data = DiscreteData(codes, [f"v{i}" for i in range(6)], [["a", "b", "c"]] * 6)
    scorer = scorer_cls(data)
    want = scorer.extension_scores(0, {1}, [2, 3, 4])
    copy = pickle.loads(pickle.dumps(scorer))
    assert all(np.shares_memory(col, copy._matrix) for col in copy._columns)
    assert copy.extension_scores(0, {1}, [2, 3, 4]).tolist() == want.tolist()
    assert copy.cache_info()["misses"] == scorer.cache_info()["misses"]  # served from the carried cache
    assert copy.local_score(5, {0, 2}) == scorer_cls(data).local_score(5, {0, 2})


def test_a_workers_extension_rows_come_back_with_its_scores():
    """cache_items after cache_mark carries the rows extension_scores made (a pickled round trip, as from a
    worker); merged, the same look-ups read them: the same values, no score computed, no cache look-up."""
    import pickle

    from mtbn.networks import load_network, sample
    from mtbn.score import BDeuScore

    data = sample(load_network("alarm"), 300, random_state=0)
    main = BDeuScore(data)
    main.extension_scores(0, (), [1, 2, 3])  # a row the parent already has, partly filled
    worker = pickle.loads(pickle.dumps(main))
    mark = worker.cache_mark()
    expected = {(0, ()): worker.extension_scores(0, (), list(range(1, 20))),
                (5, (2,)): worker.extension_scores(5, (2,), [0, 1, 3, 4, 7])}
    back = pickle.loads(pickle.dumps(worker.cache_items(mark)))
    assert set(back.rows) == {(5, (2,))}  # only the rows made after the mark; the scores of the others
    assert len(back) == 16 + 5
    main.merge_cache(back)
    del main._cache[(5, (2, 7))]  # a merged row is read before the dict: this score is not looked up again
    before = main.cache_info()
    for (child, parents), values in expected.items():
        cands = list(range(1, 20)) if child == 0 else [0, 1, 3, 4, 7]
        assert np.array_equal(main.extension_scores(child, parents, cands), values)
    after = main.cache_info()
    assert after["misses"] == before["misses"] and after["size"] == before["size"]
    # the scores are BDeu's own, computed afresh
    assert expected[5, (2,)][2] == BDeuScore(data).local_score_uncached(5, (2, 3))


def test_cache_items_from_a_start_are_the_scores_cached_after_it():
    from mtbn.networks import load_network, sample
    from mtbn.score import BDeuScore

    data = sample(load_network("asia"), 200, random_state=0)
    scorer = BDeuScore(data)
    scorer.local_score(0, ())
    scorer.local_score(1, (0,))
    mark = scorer.cache_info()["size"]
    scorer.local_score(2, (0, 1))
    scorer.local_score(0, ())  # a hit adds nothing
    later = scorer.cache_items(mark)
    assert list(later) == [(2, (0, 1))] and later[(2, (0, 1))] == scorer.local_score_uncached(2, (0, 1))
    assert scorer.cache_items() == scorer.cache_items(0) and len(scorer.cache_items()) == 3
    fresh = BDeuScore(data)
    fresh.merge_cache(later)
    assert fresh.cache_items() == later


def test_bdeu_terms_from_tables_and_from_the_counts_are_the_same_floats_and_the_tables_stay_in_budget(monkeypatch):
    """BDeu reads lnG(alpha + N) - lnG(alpha) off a table of every N up to the rows, one per alpha, only while
    the tables fit in TABLE_BYTES; the others are computed on the counts. Both give the same float for every
    family (single and batched paths), and a search keeps its tables within the budget, whatever the rows."""
    import mtbn.score.bdeu as bdeu
    from mtbn.search import hill_climb

    data = sample(load_network("alarm"), 3000, random_state=np.random.default_rng(1))
    rng = np.random.default_rng(2)
    families = [(int(c), set(rng.choice([v for v in range(37) if v != c], int(rng.integers(0, 4)), replace=False)))
                for c in rng.integers(0, 37, 200)]
    scores = {}
    for budget in (2**40, 0, 5 * 8 * 3001):  # every table, none, five of them
        monkeypatch.setattr(bdeu, "TABLE_BYTES", budget)
        monkeypatch.setattr(bdeu, "_TABLES", {})
        monkeypatch.setattr(bdeu, "_TABLES_BYTES", [0])
        scorer = BDeuScore(data)
        single = [scorer.local_score(c, p) for c, p in families]
        batched = [np.asarray(scorer.extension_scores(c, set(), [u for u in range(37) if u != c])).tolist()
                   for c in range(37)]
        graph = hill_climb(BDeuScore(data), [set() for _ in range(37)]).graph
        scores[budget] = (single, batched, sorted(graph.edges()))
        assert bdeu._TABLES_BYTES[0] == sum(t.nbytes for t in bdeu._TABLES.values()) <= budget
    assert scores[2**40] == scores[0] == scores[5 * 8 * 3001]


def test_bdeu_scorers_of_a_process_share_one_table_per_alpha_whatever_their_rows(monkeypatch):
    """The tables of lnG(alpha + N) are kept once per process (a multitask search's tasks and folds share their
    alphas; each scorer kept its own, 128 MB of them for 3 tasks x 50,000 rows and their folds): a scorer of fewer
    rows reads the first entries of a longer table, a scorer of more rows makes it longer. Every score must be
    the one each scorer gets alone, with no table made before it."""
    import mtbn.score.bdeu as bdeu

    data = sample(load_network("alarm"), 3000, random_state=np.random.default_rng(3))
    parts = [data, data.take(np.arange(1000)), data.take(np.arange(500, 2700))]
    rng = np.random.default_rng(4)
    families = [(int(c), set(rng.choice([v for v in range(37) if v != c], int(rng.integers(0, 3)), replace=False)))
                for c in rng.integers(0, 37, 120)]

    def scores(d):
        scorer = BDeuScore(d, equivalent_sample_size=2.0)
        return [scorer.local_score(c, p) for c, p in families] + list(
            scorer.extension_scores(5, {3}, [u for u in range(37) if u not in (3, 5)]))

    alone = []
    for d in parts:
        monkeypatch.setattr(bdeu, "_TABLES", {})
        monkeypatch.setattr(bdeu, "_TABLES_BYTES", [0])
        alone.append(scores(d))
    for order in ([1, 2, 0], [0, 1, 2], [2, 0, 1]):
        monkeypatch.setattr(bdeu, "_TABLES", {})
        monkeypatch.setattr(bdeu, "_TABLES_BYTES", [0])
        assert [scores(parts[i]) for i in order] == [alone[i] for i in order]
        assert all(len(t) == 3001 for t in bdeu._TABLES.values())  # one table each, as long as the most rows


def _bdeu_observed_by_hand(rows, arities, child, parents, ess=1.0):
    """BDeu by hand over the observed cells only (an unobserved cell or configuration adds exactly 0): the formula
    for declared tables far too large to enumerate."""
    counts = _hand_counts(rows, child, parents)
    q = math.prod(arities[p] for p in parents)
    a_j, a_jk = ess / q, ess / (q * arities[child])
    totals = {}
    score = 0.0
    for (config, _), n_jk in counts.items():
        score += math.lgamma(a_jk + n_jk) - math.lgamma(a_jk)
        totals[config] = totals.get(config, 0) + n_jk
    return score + sum(math.lgamma(a_j) - math.lgamma(a_j + n_j) for n_j in totals.values())


def test_families_of_variables_with_256_states_score_as_by_hand():
    """The scorer keeps one byte per code and codes a family in 8-byte integers: families of 256-state variables,
    whose cell codes reach 2^32 and beyond (and are renumbered past 2^62), score as the formula by hand, through
    local_score and through extension_scores (the search's batched path)."""
    rng = np.random.default_rng(7)
    arities = [256, 256, 255, 256, 3, 256, 256, 256, 256]
    rows = np.column_stack([rng.integers(0, a, 600) for a in arities])
    rows[:, 1] = (rows[:, 0] + rng.integers(0, 3, 600)) % 256  # a dependent pair, so that cells repeat
    data = DiscreteData(rows.astype(np.uint8), tuple(f"v{i}" for i in range(len(arities))),
                        tuple(tuple(f"s{j}" for j in range(a)) for a in arities))
    scorer = BDeuScore(data)
    assert scorer._matrix.dtype == np.uint8
    listed = [tuple(r) for r in rows.tolist()]
    for child, parents in [(1, [0]), (2, [0, 1]), (4, [0, 1, 3]), (0, [1, 2, 3, 5, 6, 7, 8])]:
        assert scorer.local_score(child, set(parents)) == pytest.approx(
            _bdeu_observed_by_hand(listed, arities, child, parents), rel=1e-12)
    fresh = BDeuScore(data)
    candidates = [3, 5, 6]
    batched = np.asarray(fresh.extension_scores(4, {0, 1}, candidates))
    by_hand = [_bdeu_observed_by_hand(listed, arities, 4, sorted([0, 1, u])) for u in candidates]
    assert batched == pytest.approx(by_hand, rel=1e-12)
