"""How task selection and task clustering learn a group of tasks, and how they report the choice.

A group of one task is learned by single-task search
(:func:`mtbn.learn.learn_structure`), a larger group jointly
(:func:`mtbn.learn.learn_structures`, its penalty chosen or given); both with
the caller's seed, so every candidate of a selection or clustering is learned
the same way.
"""

from dataclasses import dataclass
from typing import Any

from mtbn.learn import learn_structure, learn_structures


@dataclass(frozen=True)
class GroupLearner:
    """Learns a group of tasks (``dict`` name -> DiscreteData) with fixed settings.

    ``penalty`` and ``validation`` are passed to :func:`mtbn.learn.learn_structures`
    for groups of two or more tasks; ``seed`` is every search's ``random_state``.
    """

    penalty: Any
    validation: Any
    equivalent_sample_size: float
    n_restarts: int
    n_jobs: Any
    seed: int

    def __call__(self, group):
        """``(dict name -> DAG, multitask penalty)``; the penalty is NaN for a group of one task."""
        if len(group) == 1:
            (name, data), = group.items()
            res = learn_structure(data, equivalent_sample_size=self.equivalent_sample_size,
                                  n_restarts=self.n_restarts, random_state=self.seed)
            return {name: res.graph}, float("nan")
        res = learn_structures(group, penalty=self.penalty, validation=self.validation,
                               equivalent_sample_size=self.equivalent_sample_size, n_restarts=self.n_restarts,
                               n_jobs=self.n_jobs, random_state=self.seed)
        return dict(zip(res.task_names, res.graphs)), res.penalty


def curve_records(curve, key):
    """A validation curve ``[(candidate, mean, se_vs_best), ...]`` as JSON-ready dicts, the candidate under ``key``."""
    return [{key: int(c[0]), "validation_log_likelihood": float(c[1]),
             "se_vs_best": float(c[2]) if len(c) > 2 else None} for c in curve]
