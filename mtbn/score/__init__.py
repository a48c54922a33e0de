"""Decomposable structure scores: the protocol, BDeu and BIC of discrete data, and their registry.

A local score is a function of a variable (the *child*) and a set of
*parents*; a score of a DAG is the sum of its local scores, each cached per
task. One concept per module: :mod:`~mtbn.score.base` (the protocol,
:class:`LocalScore`, that the searches, the guard and the held-out scoring
call), :mod:`~mtbn.score.counting` (contingency tables of integer-coded
data, shared by the discrete scores), :mod:`~mtbn.score.bdeu` (the paper's
BDeu), :mod:`~mtbn.score.bic` and :mod:`~mtbn.score.registry` (names,
:func:`register_score`, :func:`make_scorer`). A new score is one module with
a :class:`LocalScore` subclass and one :func:`register_score` call
(docs/contributing.md).
"""

from mtbn.score.base import LocalScore, pairwise_log_bayes_factors
from mtbn.score.bdeu import BDeuScore, bdeu_local_score, excess_log_bayes_factors
from mtbn.score.bic import BICScore
from mtbn.score.counting import CountingScore, count_family, family_code, observed_counts
from mtbn.score.gaussian import BGeScore, GaussianBICScore, GaussianScore
from mtbn.score.registry import SCORES, make_scorer, register_score

__all__ = [
    "LocalScore",
    "CountingScore",
    "BDeuScore",
    "BICScore",
    "GaussianScore",
    "GaussianBICScore",
    "BGeScore",
    "bdeu_local_score",
    "count_family",
    "family_code",
    "observed_counts",
    "make_scorer",
    "register_score",
    "pairwise_log_bayes_factors",
    "excess_log_bayes_factors",
    "SCORES",
]
