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


class NotFittedError(MtbnError, ValueError, AttributeError):
    """An estimator was used before ``fit`` was called.

    Like scikit-learn's ``NotFittedError`` it is a ``ValueError`` and an
    ``AttributeError``; when scikit-learn is imported, the error raised is
    also an instance of ``sklearn.exceptions.NotFittedError`` (see
    :func:`not_fitted`), so ``except sklearn.exceptions.NotFittedError``
    catches it. mtbn does not import scikit-learn itself.
    """


_SKLEARN_FLAVOURS: dict = {}


def not_fitted(message):
    """A :class:`NotFittedError` with ``message``; also scikit-learn's ``NotFittedError`` once scikit-learn is imported.

    >>> isinstance(not_fitted("not fitted"), (NotFittedError, ValueError, AttributeError))
    True
    """
    import sys

    if "sklearn" not in sys.modules:
        return NotFittedError(message)
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    cls = _SKLEARN_FLAVOURS.get(SklearnNotFittedError)
    if cls is None:
        cls = type("NotFittedError", (NotFittedError, SklearnNotFittedError),
                   {"__module__": __name__, "__reduce__": lambda self: (not_fitted, self.args)})
        _SKLEARN_FLAVOURS[SklearnNotFittedError] = cls
    return cls(message)


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
