"""Continuous tasks learned jointly as Gaussian networks at a given penalty (issue 49, first part).

The multitask prior and the joint search are those of the discrete learner, unchanged: only the score differs
(:mod:`mtbn.score.gaussian`, through the score protocol). Each task's structure search starts from its
single-task structure and from the empty graph; the joint search then climbs with the Edit or Paired prior.
What the discrete default adds (the penalty chosen by cross-validation, the negative-transfer guard, parameter
sharing) is not here yet: the penalty is given.
"""

import numpy as np

from mtbn._validation import check_random_state
from mtbn.data.continuous import ContinuousData, continuous_from_dataframe
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.graph import DAG
from mtbn.joint import multitask_hill_climb
from mtbn.messages import error, register
from mtbn.priors import make_prior
from mtbn.score import make_scorer
from mtbn.search import hill_climb

__all__ = ["learn_gaussian_structures"]

register("gaussian-columns-differ", InvalidDataError,
         "task {task!r} has the columns {got}; the first task has {expected} (continuous tasks share their columns).",
         cause="The joint Gaussian learner couples the same variables in every task.",
         fix="Give every task the same columns, in any order.")
register("gaussian-score", InvalidParameterError,
         "score {score!r} is not a score of continuous data; use 'bge' or 'bic-g'.",
         cause="A score for discrete data (BDeu, BIC) was asked of real-valued tasks.",
         fix="Choose score='bge' (the default) or 'bic-g', or discretise the tasks and learn a discrete network.")


def learn_gaussian_structures(tasks, *, penalty, prior="paired", score="bge", max_parents=None, n_restarts=5,
                              n_joint_restarts=5, random_state=0):
    """Learn the Gaussian network structure of every continuous task jointly, at a given penalty.

    Parameters
    ----------
    tasks : dict of str -> pandas.DataFrame or ContinuousData
        The tasks, each with the same real-valued columns (checked: missing values, constant, identifier-like
        and collinear columns are refused with one line naming them).
    penalty : float
        The multitask penalty delta in [0, 1] (0: each task alone; 1: one structure for all).
    prior : str, default "paired"
        The multitask prior (``"paired"``, ``"edit"``, ``"none"`` or a registered one).
    score : {"bge", "bic-g"}, default "bge"
        Each task's structure score.
    max_parents : int, optional
        Most parents of a variable; None sets no limit.
    n_restarts : int, default 5
        Random restarts of each task's single-task search (its start for the joint search).
    n_joint_restarts : int, default 5
        Random restarts of the joint search per start.
    random_state : int or numpy.random.Generator, default 0
        Seed of every random choice.

    Returns
    -------
    dict of str -> DAG
        Each task's structure, in the order of ``tasks``.

    Examples
    --------
    Three sites measuring the chain ``x -> y -> z`` with their own coefficients:

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> def site(b1, b2, n=150):
    ...     x = rng.normal(size=n); y = b1 * x + rng.normal(size=n); z = b2 * y + rng.normal(size=n)
    ...     return pd.DataFrame({"x": x, "y": y, "z": z})
    >>> graphs = learn_gaussian_structures({"a": site(1.0, 0.8), "b": site(0.7, 1.2), "c": site(1.3, 0.6)},
    ...                                    penalty=0.9)
    >>> sorted({frozenset(e) for e in graphs["a"].edges(names=True)}, key=sorted) == [{"x", "y"}, {"y", "z"}]
    True
    """
    from mtbn.score import SCORES, GaussianScore

    if score not in SCORES or not issubclass(SCORES[score], GaussianScore):
        raise error("gaussian-score", score=score)
    names = list(tasks)
    datas = [d if isinstance(d, ContinuousData) else continuous_from_dataframe(d, name=str(n))
             for n, d in zip(names, (tasks[n] for n in names))]
    variables = list(datas[0].names)
    for d in datas[1:]:
        if sorted(d.names) != sorted(variables):
            raise error("gaussian-columns-differ", task=d.name, got=list(d.names), expected=variables)
    datas = [d if list(d.names) == variables else ContinuousData(d.values[:, [d.index(v) for v in variables]],
                                                                 variables, d.name) for d in datas]
    rng = check_random_state(random_state)
    scorers = [make_scorer(d, score) for d in datas]
    k, n = len(datas), len(variables)
    singles = [hill_climb(s, [set() for _ in range(n)], max_parents=max_parents, n_restarts=n_restarts,
                          tabu_length=10, max_tabu_iter=10, rng=rng, names=variables) for s in scorers]
    single_start = [[set(p) for p in r.graph.parents] for r in singles]
    empty_start = [[set() for _ in range(n)] for _ in range(k)]
    res = multitask_hill_climb(scorers, single_start, make_prior(prior, penalty, k), extra_starts=[empty_start],
                               local_index=np.tile(np.arange(n), (k, 1)), max_parents=max_parents, tabu_length=10,
                               max_tabu_iter=10, n_restarts=n_joint_restarts,
                               rng=[np.random.default_rng([int(rng.integers(2**31)), i]) for i in range(2)])
    return {name: DAG([set(p) for p in g.parents], variables) for name, g in zip(names, res.graphs)}
