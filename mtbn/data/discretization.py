"""Discretising continuous columns with cut points shared by all tasks (:func:`discretize`).

mtbn learns discrete networks, so a continuous measurement has to be cut
into ranges. For multitask learning the cut points must mean the same in
every task: "high" in one task and "high" in another must be the same range
of values, or the structures stop being comparable. So the cut points are
computed once, on the values of all tasks pooled (per task only on request,
with a :class:`~mtbn.exceptions.DataWarning`).

Methods (R bnlearn's ``discretize`` names): ``"quantile"`` (equal frequency:
the pooled values' quantiles at 1/K, ..., (K-1)/K, numpy's default linear
interpolation) and ``"interval"`` (equal width: K ranges of the same width
between the pooled minimum and maximum). A value ``x`` falls in the range
``(c[i-1], c[i]]``; repeated cut points (ties) count once and a cut point at
the largest value is dropped, so no range is empty on the pooled data and a
constant column has one range. State labels name the range, e.g.
``"(-inf, 1.5]"``, ``"(1.5, 3.25]"``, ``"(3.25, inf)"``; every task gets
every label, in increasing order (a pandas category), so that a variable
has the same states in every task. With ``per_task=True`` the labels are the
ranks ``"bin 1 of 3"``, ..., since the ranges differ between tasks.

Which columns: by default the columns mtbn would otherwise refuse as
continuous (every cell a number, some not whole, more than 20 distinct
values over all tasks); ``columns=`` names them instead (integer columns
included). Missing cells stay missing. The result, a
:class:`Discretization`, applies the same cut points to new data
(:meth:`Discretization.transform`) and is written as ``discretization.json``
by the command line (:meth:`Discretization.to_dict`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtbn.data.discrete import MAX_STATES
from mtbn.data.frames import _is_missing_array
from mtbn.data.taskset import as_named_items
from mtbn.exceptions import DataWarning, InvalidDataError, InvalidParameterError
from mtbn.messages import error, register, warn

__all__ = ["Discretization", "discretize", "apply_discretization", "parse_discretize", "DISCRETIZE_METHODS"]

#: The discretisation methods.
DISCRETIZE_METHODS = ("quantile", "interval")

#: A numeric column with more distinct values than this, not all whole, is discretised by default
#: (the same limit above which :func:`mtbn.data.from_dataframe` refuses it as continuous).
_MAX_STATES = 20

P = InvalidParameterError
register("discretize-spec", P,
         "discretize must be METHOD or METHOD:K with METHOD one of {methods} and K from 2 to {limit} bins; "
         "got {value!r}.",
         cause="The discretisation was not given as a method name with an optional number of bins, or asked for "
               "more bins than a variable may have states (255).",
         fix="Use e.g. 'quantile' (3 bins), 'quantile:4' or 'interval:5'.")
register("discretize-column-unknown", P, "discretize: column {column!r} is in no task.",
         cause="A column asked to be discretised is not a column of any task.",
         fix="Check the column name (CSV header names are stripped of surrounding spaces).")
register("discretize-column-not-numeric", InvalidDataError,
         "task {task!r}, column {column!r}: cannot discretise it, the cell {value!r} is not a number.",
         cause="A column asked to be discretised holds a value that does not read as a finite number.",
         fix="Correct the cell, or leave the column out of the columns to discretise.")
register("discretize-options", P,
         "discretize as a dict takes the keys 'method' (required), 'columns' and 'per_task'; got {keys}.",
         cause="The discretisation was given as a dict with a key it does not have, or without its method.",
         fix="Use e.g. {{'method': 'quantile:3', 'columns': ['x'], 'per_task': False}}, or the method alone.")
register("discretize-record", P, "discretization record: {problem}.",
         cause="A discretization.json (or its dict) is incomplete or was edited by hand.",
         fix="Use the discretization.json an mtbn run wrote, unchanged.")


def _numbers(series, task, column, *, strict):
    """The cells of a column as floats (NaN where missing, no negative zero) and the missing mask; ``(None,
    mask)`` (an error with ``strict``) if a cell that is not missing is not a finite number."""
    import pandas as pd

    values = series.to_numpy()
    missing = _is_missing_array(values)
    if values.dtype.kind in "bf":
        numbers = values.astype(float)  # a copy
    else:
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float, copy=True)
    numbers += 0.0  # no negative zero (a cut point at 0 is written "0")
    bad = ~missing & ~np.isfinite(numbers)
    if np.any(bad):
        if strict:
            raise error("discretize-column-not-numeric", task=task, column=column,
                        value=str(values[np.flatnonzero(bad)[0]]))
        return None, missing
    numbers[missing] = np.nan
    return numbers, missing


def _cut_points(values, method, n_bins):
    """Sorted distinct cut points of ``values`` (non-empty, finite), none at or above the largest value."""
    lo, hi = float(values.min()), float(values.max())
    if method == "quantile":
        cuts = np.quantile(values, np.arange(1, n_bins) / n_bins)
    else:
        cuts = lo + (hi - lo) * np.arange(1, n_bins) / n_bins
    cuts = np.unique(cuts)
    return tuple(float(c) for c in cuts[cuts < hi])


def _format(cuts):
    """Shortest labels that tell the cut points apart (6 significant digits, more where two would merge)."""
    for digits in (6, 10, 17):
        text = [f"{c:.{digits}g}" for c in cuts]
        if len(set(text)) == len(text):
            return text
    return [repr(c) for c in cuts]


def interval_labels(cuts):
    """The state labels of the ranges cut by ``cuts``.

    Examples
    --------
    >>> interval_labels((1.5, 3.25))
    ['(-inf, 1.5]', '(1.5, 3.25]', '(3.25, inf)']
    >>> interval_labels(())
    ['(-inf, inf)']
    """
    text = ["-inf", *_format(cuts), "inf"]
    return [f"({a}, {b}]" if b != "inf" else f"({a}, {b})" for a, b in zip(text, text[1:])]


def _rank_labels(n):
    return [f"bin {i + 1} of {n}" for i in range(n)]


@dataclass(frozen=True)
class Discretization:
    """Cut points of the discretised columns, shared by all tasks (or per task with ``per_task``).

    Parameters
    ----------
    method : {"quantile", "interval"}
        How the cut points were computed: equal frequency (pooled quantiles) or equal width.
    n_bins : int
        Bins asked for (a column with ties or few values may get fewer).
    cuts : dict
        ``column -> tuple of cut points``; with ``per_task``,
        ``task -> column -> tuple``.
    per_task : bool, default False
        Whether each task has its own cut points (``cuts`` keyed by task first); its states are then
        labelled by rank (``"bin 1 of 3"``, ...) rather than by range.
    """

    method: str
    n_bins: int
    cuts: dict = field(default_factory=dict)
    per_task: bool = False

    @property
    def columns(self):
        """The discretised columns."""
        if not self.per_task:
            return list(self.cuts)
        return list(dict.fromkeys(c for per in self.cuts.values() for c in per))

    def labels(self, column):
        """The state labels of ``column``, in increasing order.

        Parameters
        ----------
        column : str
            A discretised column (one of :attr:`columns`).

        Returns
        -------
        list of str
            The range labels, e.g. ``["(-inf, 1.5]", "(1.5, inf)"]``; with ``per_task`` the ranks
            ``"bin 1 of K"``, ..., K the most ranges any task has for the column.
        """
        if not self.per_task:
            return interval_labels(self.cuts[column])
        return _rank_labels(max(len(per[column]) + 1 for per in self.cuts.values() if column in per))

    def transform(self, frame, task=None):
        """``frame`` (a DataFrame) with the discretised columns as categories of range labels.

        ``task`` names the task: needed with ``per_task`` (its own cut points), and in error messages.
        Columns the frame lacks are skipped; other columns are returned unchanged.

        Parameters
        ----------
        frame : pandas.DataFrame
            The task's data; each discretised column it has must hold numbers (or missing cells).
        task : str, optional
            The task's name; None is read as ``"data"`` in messages (and finds no cut points with
            ``per_task``).

        Returns
        -------
        pandas.DataFrame
            A copy of ``frame`` whose discretised columns are pandas categories of :meth:`labels` (every label a
            category, missing cells missing).

        Raises
        ------
        InvalidDataError
            A cell of a discretised column is not a finite number.
        InvalidParameterError
            With ``per_task``, the record has no cut points of one of the frame's columns for ``task``.

        Examples
        --------
        >>> import pandas as pd
        >>> d = Discretization("quantile", 2, {"x": (2.5,)})
        >>> d.transform(pd.DataFrame({"x": [1.0, 2.5, 4.0], "y": ["a", "b", "a"]}))["x"].tolist()
        ['(-inf, 2.5]', '(-inf, 2.5]', '(2.5, inf)']
        """
        import pandas as pd

        out = frame.copy()
        name = "data" if task is None else task
        for column in self.columns:
            if column not in out.columns:
                continue
            if self.per_task:
                if task not in self.cuts or column not in self.cuts[task]:
                    raise error("discretize-record", problem=f"no cut points of column {column!r} for task {name!r}")
                cuts = self.cuts[task][column]
            else:
                cuts = self.cuts[column]
            values, missing = _numbers(out[column], name, column, strict=True)
            codes = np.searchsorted(np.asarray(cuts, dtype=float), values, side="left")
            codes[missing] = -1
            out[column] = pd.Categorical.from_codes(codes, categories=self.labels(column))
        return out

    def to_dict(self):
        """JSON-ready record (``discretization.json``): method, bins, and per column its cut points and labels.

        Returns
        -------
        dict
            ``{"method", "n_bins", "per_task", "columns"}``, where ``columns`` maps each column (with ``per_task``,
            each task, then each column) to ``{"cut_points": [float, ...], "labels": [str, ...]}``;
            :meth:`from_dict` reads it back.
        """
        def entry(cuts, labels):
            return {"cut_points": [float(c) for c in cuts], "labels": labels}

        if self.per_task:
            columns = {task: {c: entry(cuts, _rank_labels(len(cuts) + 1)) for c, cuts in per.items()}
                       for task, per in self.cuts.items()}
        else:
            columns = {c: entry(cuts, interval_labels(cuts)) for c, cuts in self.cuts.items()}
        return {"method": self.method, "n_bins": int(self.n_bins), "per_task": bool(self.per_task),
                "columns": columns}

    @classmethod
    def from_dict(cls, record):
        """The discretisation :meth:`to_dict` recorded (cut points exactly).

        Examples
        --------
        >>> d = Discretization("interval", 3, {"x": (1.0, 2.0)})
        >>> Discretization.from_dict(d.to_dict()) == d
        True
        """
        def bad(problem):
            return error("discretize-record", problem=problem)

        if not isinstance(record, dict):
            raise bad(f"a JSON object is needed, not {type(record).__name__}")
        for key in ("method", "n_bins", "columns"):
            if key not in record:
                raise bad(f"no {key!r}")
        method, n_bins, per_task = record["method"], record["n_bins"], record.get("per_task", False)
        if method not in DISCRETIZE_METHODS:
            raise bad(f"unknown method {method!r}")
        if isinstance(n_bins, bool) or not isinstance(n_bins, int) or not 2 <= n_bins <= MAX_STATES:
            raise bad(f"n_bins must be an integer from 2 to {MAX_STATES}; got {n_bins!r}")
        if not isinstance(per_task, bool):
            raise bad(f"per_task must be true or false; got {per_task!r}")
        columns = record["columns"]
        if not isinstance(columns, dict):
            raise bad("'columns' must map column names to their cut points")
        if per_task:
            cuts = {}
            for task, per in columns.items():
                if not isinstance(per, dict):
                    raise bad(f"task {task!r}: a mapping of column names to cut points is needed")
                cuts[task] = {c: _recorded_cuts(e, f"task {task!r}, column {c!r}", bad) for c, e in per.items()}
        else:
            cuts = {c: _recorded_cuts(e, f"column {c!r}", bad) for c, e in columns.items()}
        return cls(method, n_bins, cuts, per_task)


def _recorded_cuts(entry, where, bad):
    """The cut points of one column of a discretization record: finite numbers, strictly increasing, at most
    ``MAX_STATES - 1`` of them."""
    points = entry.get("cut_points") if isinstance(entry, dict) else None
    if not isinstance(points, list):
        raise bad(f"{where}: no list of cut_points")
    for x in points:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise bad(f"{where}: cut point {x!r} is not a finite number")
    cuts = tuple(float(x) for x in points)
    for a, b in zip(cuts, cuts[1:]):
        if b <= a:
            raise bad(f"{where}: cut points must be strictly increasing; {b!r} follows {a!r}")
    if len(cuts) >= MAX_STATES:
        raise bad(f"{where}: {len(cuts)} cut points make more than {MAX_STATES} states")
    return cuts


def parse_discretize(spec):
    """``"quantile"``, ``"quantile:4"`` or ``("interval", 5)`` as ``(method, n_bins)`` (3 bins by default).

    Parameters
    ----------
    spec : str or tuple
        ``"METHOD"`` or ``"METHOD:K"``, or a ``(METHOD, K)`` pair, with METHOD one of
        :data:`DISCRETIZE_METHODS` and K a whole number of bins from 2 to 255.

    Returns
    -------
    method : str
        ``"quantile"`` or ``"interval"``.
    n_bins : int
        K, or 3 when ``spec`` names the method only.

    Raises
    ------
    InvalidParameterError
        ``spec`` is none of these forms, names an unknown method, or K is not a whole number from 2 to 255.

    Examples
    --------
    >>> parse_discretize("interval:5")
    ('interval', 5)
    >>> parse_discretize("quantile")
    ('quantile', 3)
    """
    def bad():
        return error("discretize-spec", methods=", ".join(DISCRETIZE_METHODS), limit=MAX_STATES, value=spec)

    if isinstance(spec, tuple) and len(spec) == 2:
        method, k = spec
    elif isinstance(spec, str):
        method, _, k = spec.partition(":")
        k = k or 3
    else:
        raise bad()
    if isinstance(k, bool) or (isinstance(k, float) and not k.is_integer()):
        raise bad()
    try:
        k = int(k)
    except (TypeError, ValueError):
        raise bad() from None
    if method not in DISCRETIZE_METHODS or not 2 <= k <= MAX_STATES:
        raise bad()
    return method, k


def _continuous_columns(frames):
    """Columns every task holds as numbers, some not whole, with more than 20 distinct values pooled."""
    seen, pooled = {}, {}
    for name, frame in frames:
        for column in frame.columns:
            values, missing = _numbers(frame[column], name, column, strict=False)
            if values is None:
                seen[column] = False
            elif seen.get(column, True):
                seen[column] = True
                pooled.setdefault(column, []).append(values[~missing])
    out = []
    for column, numeric in seen.items():
        if numeric:
            v = np.concatenate(pooled[column])
            if len(np.unique(v)) > _MAX_STATES and np.any(v != np.round(v)):
                out.append(column)
    return out


def discretize(tasks: Any, method: Any = "quantile", n_bins: int | None = None, *, columns: Any = None,
               per_task: bool = False) -> tuple:
    """Discretise the continuous columns of several tasks with cut points computed on all tasks pooled.

    Parameters
    ----------
    tasks : dict of name -> DataFrame, or list of DataFrames (named ``task0``, ...)
        The tasks' data: a dict by task name, or a list (tasks named ``task0``, ``task1``, ... in order); the
        cut points are computed on the values of all of them.
    method : {"quantile", "interval"} or "METHOD:K", default "quantile"
        Equal-frequency (pooled quantiles) or equal-width ranges; ``"METHOD:K"`` also sets the number of bins
        (see :func:`parse_discretize`).
    n_bins : int, optional
        Bins per column (default 3, or the K of ``"METHOD:K"``).
    columns : list of str, optional
        The columns to discretise (default: every column that looks
        continuous, see :mod:`mtbn.data.discretization`).
    per_task : bool, default False
        Cut points computed in each task on its own (warns: the states then
        mean different ranges in different tasks).

    Returns
    -------
    frames : dict of name -> DataFrame
        The tasks with the discretised columns as categories.
    discretization : Discretization
        The cut points, for new data and for the record.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5]})
    >>> b = pd.DataFrame({"x": [4.5, 5.5, 6.5, 7.5]})
    >>> frames, d = discretize({"a": a, "b": b}, "quantile:2", columns=["x"])
    >>> d.cuts
    {'x': (4.0,)}
    >>> frames["a"]["x"].tolist(), frames["b"]["x"].tolist()[:1]
    (['(-inf, 4]', '(-inf, 4]', '(-inf, 4]', '(-inf, 4]'], ['(4, inf)'])
    """
    spec_method, spec_bins = parse_discretize(method)
    if n_bins is not None:
        spec_method, spec_bins = parse_discretize((spec_method, n_bins))
    items = [(name, frame) for name, frame in as_named_items(tasks)]
    if columns is None:
        columns = _continuous_columns(items)
    else:
        columns = list(dict.fromkeys(str(c) for c in columns))
        for column in columns:
            if not any(column in frame.columns for _, frame in items):
                raise error("discretize-column-unknown", column=column)

    def values_of(group):
        return {c: np.concatenate([v[~m] for v, m in (_numbers(f[c], n, c, strict=True) for n, f in group
                                                        if c in f.columns)]) for c in columns}

    cuts: dict[str, Any] = {}
    if per_task:
        warn("discretize: cut points computed per task, so a state means a different range of values in "
             "each task and the tasks' structures are less comparable; pooled cut points (the default) "
             "avoid this", DataWarning)
        for name, frame in items:
            per = values_of([(name, frame)])
            cuts[name] = {c: _cut_points(v, spec_method, spec_bins) if len(v) else () for c, v in per.items()
                          if c in frame.columns}
    else:
        pooled = values_of(items)
        cuts.update((c, _cut_points(v, spec_method, spec_bins) if len(v) else ()) for c, v in pooled.items())
    result = Discretization(spec_method, spec_bins, cuts, per_task)
    return {name: result.transform(frame, name) for name, frame in items}, result


def apply_discretization(frames, spec, *, columns=None, per_task=False):
    """``frames`` (name -> DataFrame) discretised by ``spec``: the cut points of a :class:`Discretization` (of
    an earlier run), or a method to compute them with (:func:`discretize`). Returns ``(frames, Discretization)``.

    Parameters
    ----------
    frames : dict of str to pandas.DataFrame
        The tasks' data by task name.
    spec : Discretization, str, tuple or dict
        A :class:`Discretization` whose cut points are applied as they are (``columns`` and ``per_task`` are
        then ignored), a method as :func:`parse_discretize` reads it (``"quantile"``, ``"interval:5"``,
        ``("quantile", 4)``), or a dict ``{"method": ..., "columns": ..., "per_task": ...}`` (the method and,
        optionally, the two arguments below).
    columns : list of str, optional
        With a method: the columns to discretise; None takes those that look continuous.
    per_task : bool, default False
        With a method: compute the cut points in each task on its own (with a warning).

    Returns
    -------
    frames : dict of str to pandas.DataFrame
        The tasks with their discretised columns as categories of range labels.
    discretization : Discretization
        ``spec`` itself, or the cut points computed.
    """
    if isinstance(spec, dict):
        if "method" not in spec or set(spec) - {"method", "columns", "per_task"}:
            raise error("discretize-options", keys=sorted(map(str, spec)))
        spec, columns, per_task = spec["method"], spec.get("columns"), spec.get("per_task", False)
    if isinstance(spec, Discretization):
        return {name: spec.transform(frame, name) for name, frame in frames.items()}, spec
    return discretize(frames, spec, columns=columns, per_task=per_task)
