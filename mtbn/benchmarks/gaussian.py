"""Gaussian multitask problems (issue 49): related linear Gaussian networks built the way the paper builds the
discrete ones, from the Gaussian networks pgmpy ships or random linear Gaussian DAGs."""

import numpy as np

from mtbn._validation import check_option, check_random_state

__all__ = ["GAUSSIAN_PROBLEMS", "make_gaussian_problem", "make_gaussian_interventional_tasks"]


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


def make_gaussian_interventional_tasks(network, *, n_interventions=6, kind="mechanism", random_state=None):
    """One observational task and ``n_interventions`` single-variable interventions on a linear Gaussian network.

    The continuous counterpart of :func:`mtbn.benchmarks.make_interventional_tasks`. The targets are drawn
    without replacement among the variables with a parent or a child. With ``s`` the target's standard deviation
    in the observational network and its mean shifted by ``+-U(1, 2) s`` (sign at random):
    ``kind="mechanism"``: the target keeps its parents, each coefficient is redrawn as ``+-U(0.5, 1.5)``, the
    intercept moves the target's mean so, and the residual variance is multiplied by ``U(0.5, 2)``;
    ``kind="perfect"``: the target loses its parents and is drawn from a normal distribution with that mean and
    variance ``s^2 U(0.5, 2)``. Every other mechanism is the network's.

    Parameters
    ----------
    network : str or LinearGaussianNetwork
        The system every condition shares (a name of :data:`GAUSSIAN_PROBLEMS` without ``-unrelated``: a shipped
        network, or ``random-<n>`` drawn with the same seed).
    n_interventions : int, default 6
        How many single-variable interventions (one task each).
    kind : {"mechanism", "perfect"}, default "mechanism"
        What an intervention does to its target (see above).
    random_state : int or numpy.random.Generator, optional
        Seed of the network (``random-<n>``), the targets and the new mechanisms.

    Returns
    -------
    list of (name, targets, LinearGaussianNetwork)
        ``("observational", (), network)`` first, then ``("do-<target>", (target,), network of that condition)``.

    Examples
    --------
    >>> tasks = make_gaussian_interventional_tasks("ecoli70", n_interventions=2, kind="perfect", random_state=0)
    >>> [(name, net.parents[net.names.index(targets[0])] if targets else None) for name, targets, net in tasks]
    [('observational', None), ('do-yedE', ()), ('do-pspA', ())]
    """
    from mtbn.networks.gaussian import LinearGaussianNetwork, implied_moments, load_gaussian_network

    check_option("kind", kind, ("mechanism", "perfect"))
    rng = check_random_state(random_state)
    if isinstance(network, str):
        net = (_random_gaussian_network(int(network.split("-")[1]), rng) if network.startswith("random-")
               else load_gaussian_network(network))
    else:
        net = network
    means, cov = implied_moments(net)
    touched = [v for v in range(net.n_vars) if net.parents[v] or any(v in ps for ps in net.parents)]
    chosen = rng.choice(touched, size=min(int(n_interventions), len(touched)), replace=False)
    out = [("observational", (), net)]
    for v in (int(x) for x in chosen):
        sd = float(np.sqrt(cov[v, v]))
        mean = means[v] + rng.choice([-1.0, 1.0]) * rng.uniform(1.0, 2.0) * sd
        parents, intercepts = list(net.parents), np.array(net.intercepts, dtype=float)
        coefficients, variances = list(net.coefficients), np.array(net.variances, dtype=float)
        if kind == "perfect":
            parents[v], coefficients[v] = (), np.zeros(0)
            intercepts[v], variances[v] = mean, sd ** 2 * rng.uniform(0.5, 2.0)
        else:
            ps = list(parents[v])
            coefficients[v] = rng.choice([-1.0, 1.0], len(ps)) * rng.uniform(0.5, 1.5, len(ps))
            intercepts[v] = mean - (means[ps] @ coefficients[v] if ps else 0.0)
            variances[v] = variances[v] * rng.uniform(0.5, 2.0)
        name = f"do-{net.names[v]}"
        out.append((name, (net.names[v],), LinearGaussianNetwork(net.names, tuple(parents), intercepts,
                                                                  tuple(coefficients), variances, name)))
    return out
