"""Gaussian multitask problems (issue 49): related linear Gaussian networks built the way the paper builds the
discrete ones, from the Gaussian networks pgmpy ships or random linear Gaussian DAGs."""

import numpy as np

from mtbn._validation import check_option, check_random_state

__all__ = ["GAUSSIAN_PROBLEMS", "make_gaussian_problem"]


#: Gaussian multitask problems (:func:`make_gaussian_problem`): the linear Gaussian networks pgmpy ships, and
#: random linear Gaussian DAGs of 30 and 100 variables; ``-unrelated``: every task but the first relabelled.
GAUSSIAN_PROBLEMS = ("ecoli70", "magic-niab", "magic-irri", "arth150", "random-30", "random-100",
                     "ecoli70-unrelated", "random-30-unrelated")


def _random_gaussian_network(n_vars, rng, mean_parents=1.5):
    """A random linear Gaussian DAG: each pair ordered by a random order joined with probability
    ``mean_parents * 2 / (n_vars - 1)``, coefficients +-U(0.5, 1.5), intercepts N(0, 1), variances U(0.5, 1.5)."""
    from mtbn.networks.gaussian import LinearGaussianNetwork

    order = rng.permutation(n_vars)
    p_edge = min(1.0, 2 * mean_parents / max(1, n_vars - 1))
    parents = [[] for _ in range(n_vars)]
    for i in range(n_vars):
        for j in range(i + 1, n_vars):
            if rng.random() < p_edge:
                parents[order[j]].append(int(order[i]))
    coefficients = tuple(rng.choice([-1.0, 1.0], len(ps)) * rng.uniform(0.5, 1.5, len(ps)) for ps in parents)
    return LinearGaussianNetwork(tuple(f"X{i}" for i in range(n_vars)), tuple(tuple(sorted(ps)) for ps in parents),
                                 rng.normal(size=n_vars), coefficients, rng.uniform(0.5, 1.5, n_vars), f"random-{n_vars}")


def make_gaussian_problem(problem, n_tasks=5, p_del=0.05, weight_sd=0.2, random_state=None):
    """Related linear Gaussian networks, built the way the paper builds the discrete problems.

    Each task is the base network with every edge deleted independently with probability ``p_del`` and every
    remaining coefficient multiplied by ``1 + N(0, weight_sd^2)``; intercepts and variances are the base's. A
    ``-unrelated`` problem relabels the variables of every task but the first (same names, structures that
    share nothing but their degree sequence).

    Parameters
    ----------
    problem : str
        One of :data:`GAUSSIAN_PROBLEMS`.
    n_tasks : int, default 5
        How many tasks.
    p_del : float, default 0.05
        Each edge's probability of being deleted in a task.
    weight_sd : float, default 0.2
        The relative spread of the coefficients across tasks.
    random_state : int or numpy.random.Generator, optional
        Seed of every random choice.

    Returns
    -------
    list of LinearGaussianNetwork
        One network per task, named ``t0``, ``t1``, ...

    Examples
    --------
    >>> nets = make_gaussian_problem("ecoli70", n_tasks=3, random_state=0)
    >>> [len(n.edges) <= 70 for n in nets], nets[0].names == nets[1].names
    ([True, True, True], True)
    """
    from mtbn.networks.gaussian import LinearGaussianNetwork, load_gaussian_network

    check_option("problem", problem, GAUSSIAN_PROBLEMS)
    rng = check_random_state(random_state)
    base_name = problem.removesuffix("-unrelated")
    base = (_random_gaussian_network(int(base_name.split("-")[1]), rng) if base_name.startswith("random-")
            else load_gaussian_network(base_name))
    nets = []
    for t in range(int(n_tasks)):
        parents, coefficients = [], []
        for ps, beta in zip(base.parents, base.coefficients):
            keep = [i for i in range(len(ps)) if rng.random() >= p_del]
            parents.append(tuple(ps[i] for i in keep))
            coefficients.append(np.asarray(beta)[keep] * (1 + weight_sd * rng.normal(size=len(keep))))
        net = LinearGaussianNetwork(base.names, tuple(parents), base.intercepts.copy(), tuple(coefficients),
                                    base.variances.copy(), f"t{t}")
        if problem.endswith("-unrelated") and t > 0:
            perm = rng.permutation(base.n_vars)  # variable v of the task is base variable perm[v]
            where = np.argsort(perm)
            net = LinearGaussianNetwork(base.names, tuple(tuple(sorted(int(where[p]) for p in parents[perm[v]]))
                                                          for v in range(base.n_vars)),
                                        net.intercepts[perm], tuple(_reordered(parents[perm[v]], coefficients[perm[v]],
                                                                               where) for v in range(base.n_vars)),
                                        net.variances[perm], f"t{t}")
        nets.append(net)
    return nets


def _reordered(parents, coefficients, where):
    """The coefficients of ``parents`` in the order of their new (relabelled, sorted) indices."""
    order = np.argsort([where[p] for p in parents])
    return np.asarray(coefficients)[order]
