"""The registry of scores by name, :func:`register_score` and :func:`make_scorer`."""

from mtbn._validation import check_option
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.score.base import LocalScore
from mtbn.score.bdeu import BDeuScore
from mtbn.score.bic import BICScore
from mtbn.score.gaussian import BGeScore, GaussianBICScore

__all__ = ["SCORES", "register_score", "make_scorer"]

register("score-class", InvalidParameterError, "score {name!r}: a score must be a subclass of LocalScore with a name.",
         cause="register_score was given something that is not a LocalScore class, or a name that is not a "
               "non-empty string.",
         fix="Subclass mtbn.score.LocalScore (or BDeuScore / BICScore), implement compute, and register the class "
             "under a non-empty name.")

#: Registry of scores: name -> class (:func:`register_score` adds one).
SCORES = {"bdeu": BDeuScore, "bic": BICScore, "bge": BGeScore, "bic-g": GaussianBICScore}


def register_score(name, cls):
    """Make ``cls`` (a :class:`~mtbn.score.LocalScore`) available by ``name`` to every learner and ``--score``.

    The command line's ``--score`` choices are read from :data:`SCORES` when
    its parser is built; another package can register its scores through
    the ``mtbn.scores`` entry-point group, which the command loads first.

    Parameters
    ----------
    name : str
        The name ``score=`` and ``--score`` take.
    cls : type
        A subclass of :class:`~mtbn.score.LocalScore`.

    Returns
    -------
    type
        ``cls``, so that the function can decorate a class.

    Examples
    --------
    BDeu with twice the equivalent sample size it is given:

    >>> from mtbn.score import BDeuScore
    >>> class Smooth(BDeuScore):
    ...     name = "smooth"
    ...     def __init__(self, data, equivalent_sample_size=1.0):
    ...         super().__init__(data, 2 * equivalent_sample_size)
    >>> _ = register_score("smooth", Smooth)
    >>> sorted(SCORES)
    ['bdeu', 'bge', 'bic', 'bic-g', 'smooth']
    >>> del SCORES["smooth"]
    """
    if not (isinstance(name, str) and name and isinstance(cls, type) and issubclass(cls, LocalScore)):
        raise error("score-class", name=name)
    SCORES[name] = cls
    return cls


def make_scorer(data, score="bdeu", equivalent_sample_size=1.0):
    """Build the scorer named ``score`` (one of :data:`SCORES`) for ``data``.

    Parameters
    ----------
    data : DiscreteData
        One task's rows, of the kind the score accepts (:attr:`LocalScore.data_kind`).
    score : str, default "bdeu"
        A name in :data:`SCORES`.
    equivalent_sample_size : float, default 1.0
        Passed to scores that take it (:attr:`LocalScore.params`).

    Returns
    -------
    LocalScore
        A new ``SCORES[score]`` instance for ``data`` (with its own, empty cache).
    """
    check_option("score", score, SCORES)
    cls = SCORES[score]
    settings = {"equivalent_sample_size": equivalent_sample_size}
    return cls(data, **{p: settings[p] for p in cls.params if p in settings})
