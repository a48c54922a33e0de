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
    """Base class of every error raised by mtbn.

    Examples
    --------
    One ``except MtbnError`` clause catches any of mtbn's own errors, whatever
    its concrete class; the ``code`` attribute names the message (see
    ``docs/errors.md`` for its cause and fix):

    >>> from mtbn.networks import load_network
    >>> try:
    ...     load_network("no-such-network")
    ... except MtbnError as e:
    ...     print(type(e).__name__, e.code)
    InvalidParameterError network-unknown
    >>> all(issubclass(c, MtbnError) for c in (InvalidDataError, InvalidParameterError, CycleError, NotFittedError))
    True
    """


# Input errors -------------------------------------------------------------


class InvalidDataError(MtbnError, ValueError):
    """The data (a task, a column, a state) cannot be used as given.

    Examples
    --------
    A task with a missing value is refused, naming the task, the column and
    the row, unless the incomplete rows are dropped on purpose:

    >>> import pandas as pd
    >>> from mtbn.data import from_dataframe
    >>> df = pd.DataFrame({"smoker": ["yes", None, "no"], "cough": ["no", "no", "yes"]})
    >>> from_dataframe(df, name="clinic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    mtbn.exceptions.InvalidDataError: task 'clinic': 1 missing value(s) in column(s) 'smoker' (1), rows with index 1; ...
    >>> from_dataframe(df, name="clinic", dropna=True).n_samples
    2
    >>> issubclass(InvalidDataError, ValueError)
    True
    """


class InvalidParameterError(MtbnError, ValueError):
    """An argument is outside the values the function accepts.

    Examples
    --------
    >>> from mtbn.networks import load_network, sample
    >>> sample(load_network("asia"), -5)
    Traceback (most recent call last):
        ...
    mtbn.exceptions.InvalidParameterError: n_samples must be an integer >= 0; got -5.

    It is a ``ValueError`` too, so code that does not know mtbn still catches it:

    >>> try:
    ...     sample(load_network("asia"), -5)
    ... except ValueError as e:
    ...     print(type(e).__name__)
    InvalidParameterError
    """


class CycleError(MtbnError, ValueError):
    """A graph that must be a DAG has a directed cycle.

    Examples
    --------
    The message names one cycle, so that the user knows which edge to drop:

    >>> from mtbn.graph import DAG
    >>> DAG.from_edges(["rain", "wet", "slippery"], [("rain", "wet"), ("wet", "slippery"), ("slippery", "rain")])
    Traceback (most recent call last):
        ...
    mtbn.exceptions.CycleError: the graph is not a DAG: it has the directed cycle rain -> wet -> slippery -> rain.
    >>> issubclass(CycleError, ValueError)
    True
    """


# State errors -------------------------------------------------------------


class NotFittedError(MtbnError, ValueError, AttributeError):
    """An estimator was used before ``fit`` was called.

    Like scikit-learn's ``NotFittedError`` it is a ``ValueError`` and an
    ``AttributeError``; when scikit-learn is imported, the error raised is
    also an instance of ``sklearn.exceptions.NotFittedError`` (see
    :func:`not_fitted`), so ``except sklearn.exceptions.NotFittedError``
    catches it. mtbn does not import scikit-learn itself.

    Examples
    --------
    Reading a fitted attribute of an estimator that was never fitted:

    >>> from mtbn.estimators import MultitaskStructureLearner
    >>> learner = MultitaskStructureLearner()
    >>> learner.graphs_
    Traceback (most recent call last):
        ...
    mtbn.exceptions.NotFittedError: This MultitaskStructureLearner instance is not fitted yet. Call 'fit' first.

    Being an ``AttributeError`` as well, it makes ``hasattr`` answer False:

    >>> hasattr(learner, "graphs_")
    False
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
    whose names differ only in case, folds too small to choose the penalty).

    Examples
    --------
    Two tasks whose headers differ only in capitals have no variable in
    common, so nothing can transfer between them; learning goes ahead, with
    two warnings:

    >>> import warnings
    >>> import pandas as pd
    >>> from mtbn.learn import learn_structures
    >>> a = pd.DataFrame({"age": ["young", "old", "old", "young"], "smokes": ["no", "yes", "yes", "no"]})
    >>> b = pd.DataFrame({"Age": ["old", "young", "old", "young"], "Smokes": ["yes", "no", "yes", "no"]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = learn_structures({"a": a, "b": b}, penalty=0.9, n_restarts=0, n_joint_restarts=0,
    ...                            random_state=0)
    >>> for w in caught:
    ...     print(w.category.__name__, "-", str(w.message).split(",")[0])
    DataWarning - tasks 'a' and 'b' share no variable
    DataWarning - 2 column(s) of task 'b' match columns of task 'a' except for case or white space (e.g. 'Age' and 'age')
    """


class TransferWarning(UserWarning):
    """Multitask learning did not beat independent learning on held-out rows.

    Issued by :func:`mtbn.learn.learn_structures` when the penalty was chosen
    automatically and the negative-transfer guard returned the independent
    (single-task) structures; ``force_transfer=True`` keeps the multitask
    result instead.

    Examples
    --------
    Two small samples of one network, the penalty chosen between 0 and 0.9
    by 2-fold cross-validation: the rule picks 0 (independent learning), so
    the single-task structures come back with a warning, and the result's
    ``transfer`` says why:

    >>> import warnings
    >>> from mtbn.learn import learn_structures
    >>> from mtbn.networks import load_network, sample
    >>> net = load_network("asia")
    >>> tasks = {"a": sample(net, 100, random_state=3), "b": sample(net, 100, random_state=4)}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = learn_structures(tasks, penalty="auto", penalty_grid=[0.9], cv=2, n_restarts=0,
    ...                            n_joint_restarts=0, random_state=0)
    >>> [w.category.__name__ for w in caught]
    ['TransferWarning']
    >>> print(str(caught[0].message).split(";")[0])
    no transfer: rule 'one-se' on 2-fold cross-validation chose penalty 0 (independent learning)
    >>> res.penalty, res.transfer["status"]
    (0.0, 'none')

    ``warnings.simplefilter("error", TransferWarning)`` turns the warning
    into an exception, for scripts that must not fall back silently.
    """
