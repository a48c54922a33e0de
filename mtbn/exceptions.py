"""The exception hierarchy of mtbn.

Every error mtbn raises on purpose is an :class:`MtbnError`; each concrete
class also subclasses the matching builtin so that ``except ValueError``
keeps working for callers who do not know about mtbn.
"""

__all__ = [
    "MtbnError",
    "InvalidDataError",
    "InvalidParameterError",
    "CycleError",
    "NotFittedError",
    "DataWarning",
    "TransferWarning",
]


class MtbnError(Exception):
    """Base class of every error raised by mtbn."""


# Input errors -------------------------------------------------------------


class InvalidDataError(MtbnError, ValueError):
    """The data (a task, a column, a state) cannot be used as given."""


class InvalidParameterError(MtbnError, ValueError):
    """An argument is outside the values the function accepts."""


class CycleError(MtbnError, ValueError):
    """A graph that must be a DAG has a directed cycle."""


# State errors -------------------------------------------------------------


class NotFittedError(MtbnError, AttributeError):
    """An estimator was used before ``fit`` was called."""


# Warnings -------------------------------------------------------------------


class DataWarning(UserWarning):
    """Data mtbn can learn from, but probably not as the user meant (tasks that share no variable, columns
    whose names differ only in case, folds too small to choose the penalty)."""


class TransferWarning(UserWarning):
    """Multitask learning did not beat independent learning on held-out rows.

    Issued by :func:`mtbn.learn.learn_structures` when the penalty was chosen
    automatically and the negative-transfer guard returned the independent
    (single-task) structures; ``force_transfer=True`` keeps the multitask
    result instead.
    """
