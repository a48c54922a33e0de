"""The registry of priors by name, :func:`register_prior` and :func:`make_prior` (arguments checked)."""

import numpy as np

from mtbn._validation import check_option, check_penalty, is_penalty
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import REVERSAL_COSTS
from mtbn.messages import error, register
from mtbn.priors.base import MultitaskPrior
from mtbn.priors.edit import EditPrior
from mtbn.priors.independent import IndependentPrior
from mtbn.priors.paired import PairedPrior

#: Registry of priors: name -> class (:func:`register_prior` adds one).
PRIORS = {"paired": PairedPrior, "edit": EditPrior, "none": IndependentPrior}


def register_prior(name, cls):
    """Make ``cls`` (a :class:`MultitaskPrior`) available by ``name`` to :func:`make_prior` and every learner.

    The command line's ``--prior`` choices are read from :data:`PRIORS` when
    its parser is built.

    Parameters
    ----------
    name : str
        The name :func:`make_prior`, ``prior=`` and ``--prior`` take; an existing entry of that name is replaced.
    cls : type
        A subclass of :class:`MultitaskPrior`.

    Returns
    -------
    type
        ``cls``, so that the function can decorate a class.

    Raises
    ------
    InvalidParameterError
        ``cls`` is not a subclass of :class:`MultitaskPrior`.

    Examples
    --------
    >>> class Harsh(EditPrior):
    ...     name = "harsh"  # the Edit prior with every edit counted twice
    ...     def log_prior(self, states, part, log_factor):
    ...         return 2 * super().log_prior(states, part, log_factor)
    ...     exact = False  # its own solve would need the doubled edits too: branch and bound instead
    ...     def bound(self, part, log_factor):
    ...         return super().bound(part, 2 * log_factor)
    >>> _ = register_prior("harsh", Harsh)
    >>> make_prior("harsh", 0.9, 3).name
    'harsh'
    >>> del PRIORS["harsh"]
    """
    if not (isinstance(cls, type) and issubclass(cls, MultitaskPrior)):
        raise error("prior-class", name=name)
    PRIORS[name] = cls
    return cls

register("prior-class", InvalidParameterError, "prior {name!r}: a prior must be a subclass of MultitaskPrior.",
         cause="register_prior was given something that is not a MultitaskPrior class.",
         fix="Subclass mtbn.priors.MultitaskPrior (or EditPrior / PairedPrior) and register the class.")
register("prior-edge-penalty-shape", InvalidParameterError, "edge_penalty must be a square matrix over the variables.",
         cause="The per-edge penalty matrix is not two-dimensional with as many rows as columns.",
         fix="Pass an n x n matrix (n variables) whose entry [i, j] is the penalty of the pair i, j; NaN keeps the "
             "global penalty.")
register("prior-edge-penalty-range", InvalidParameterError, "edge_penalty values must be in [0, 1].",
         cause="An entry of the per-edge penalty matrix is negative or above 1.",
         fix="Give every entry a value between 0 and 1, or NaN to use the global penalty for that pair.")
register("prior-weights-edit", InvalidParameterError, "prior={name!r} takes no pair weights (prior='paired' does).",
         cause="Task-pair weights were given together with a prior that has no task pairs to weight (e.g. Edit).",
         fix="Use prior='paired' with the weights, or drop the weights.")
register("prior-weights-shape", InvalidParameterError,
         "pair weights must be a {k} x {k} matrix (one row and column per task); got shape {shape}.",
         cause="The task-pair weight matrix does not have one row and one column per task.",
         fix="Pass a k x k matrix for k tasks, with rows and columns in task order.")
register("prior-weights-values", InvalidParameterError, "pair weights must be finite and non-negative.",
         cause="The task-pair weight matrix has a negative, infinite or NaN entry.",
         fix="Use weights >= 0 (0 leaves a pair of tasks uncoupled); replace NaN and infinite entries.")
register("prior-weights-symmetric", InvalidParameterError, "pair weights must be a symmetric matrix.",
         cause="The weight of task pair (s, t) differs from that of (t, s).",
         fix="Pass a symmetric matrix, e.g. (w + w.T) / 2.")


def make_prior(prior, penalty, n_tasks, *, reversal=None, weights=None, edge_penalty=None):
    """Validate the options and build the prior named ``prior``.

    Parameters
    ----------
    prior : str
        A name in :data:`PRIORS`: ``"paired"``, ``"edit"``, ``"none"`` or one added by :func:`register_prior`.
    penalty : float
        The coupling penalty ``delta``, in [0, 1].
    n_tasks : int
        The number of tasks ``k``.
    reversal : {"single", "double"}, optional
        Whether a reversed edge counts as one difference or two. None (the default) takes the prior's
        ``default_reversal`` ("double" for the Paired prior, "single" for the others).
    weights : array_like of shape (n_tasks, n_tasks), optional
        Symmetric, finite, non-negative task-pair weights; only for a prior that takes them
        (``takes_weights``, e.g. ``"paired"``). None (the default) gives the prior's own default (all ones).
    edge_penalty : array_like of shape (n_vars, n_vars), optional
        A penalty per pair of variables, each in [0, 1] or NaN; NaN entries take ``penalty``. None (the
        default) uses ``penalty`` for every pair.

    Returns
    -------
    MultitaskPrior
        An instance of ``PRIORS[prior]`` built with the validated options.

    Raises
    ------
    InvalidParameterError
        Unknown prior or reversal, a penalty outside [0, 1], or a pair-weight
        matrix of the wrong shape, asymmetric, negative or not finite.
    """
    check_option("prior", prior, PRIORS)
    cls = PRIORS[prior]
    penalty = check_penalty(penalty)
    if reversal is None:
        reversal = cls.default_reversal
    check_option("reversal", reversal, REVERSAL_COSTS)
    if edge_penalty is not None:
        edge_penalty = np.asarray(edge_penalty, dtype=float)
        if edge_penalty.ndim != 2 or edge_penalty.shape[0] != edge_penalty.shape[1]:
            raise error("prior-edge-penalty-shape")
        bad = edge_penalty[~np.isnan(edge_penalty)]
        if not np.all(is_penalty(bad)):
            raise error("prior-edge-penalty-range")
        edge_penalty = np.where(np.isnan(edge_penalty), penalty, edge_penalty)
    if not cls.takes_weights:
        if weights is not None:
            raise error("prior-weights-edit", name=prior)
        return cls(penalty, n_tasks, reversal=reversal, edge_penalty=edge_penalty)
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        if w.shape != (n_tasks, n_tasks):
            raise error("prior-weights-shape", k=n_tasks, shape=w.shape)
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise error("prior-weights-values")
        if not np.allclose(w, w.T, rtol=0, atol=1e-12):
            raise error("prior-weights-symmetric")
        weights = w
    return cls(penalty, n_tasks, reversal=reversal, weights=weights, edge_penalty=edge_penalty)
