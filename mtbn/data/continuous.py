"""Continuous tasks (:class:`ContinuousData`): real-valued columns as they were measured, for Gaussian scores.

The discrete front end (:mod:`mtbn.data.frames`) codes labels; this kind keeps
numbers. It is the data kind of :class:`mtbn.score.GaussianBICScore` and
:class:`mtbn.score.BGeScore` (``LocalScore.data_kind``). What a Gaussian
network cannot use is refused with one line naming the column: a missing or
infinite value, a column that is not numeric, a constant column, a column that
looks like a row identifier (the integers 1 to n, each once: a rank transform
is refused too, so give ranks as fractions), two columns that are exact linear
copies of each other, columns of which one is an exact linear combination of
others (checked when there are more rows than columns). Folds of a checked task
(:meth:`ContinuousData.take`) are not checked again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mtbn.exceptions import InvalidDataError
from mtbn.messages import error, register

__all__ = ["ContinuousData", "ContinuousRows", "PooledTasks", "continuous_from_dataframe", "looks_continuous",
           "regression_from_scatter", "centred_scatter", "MAX_CONTINUOUS_VARIABLES"]

#: Most variables of a continuous task: the scores and fits keep a variables x variables scatter matrix per task
#: (2,000 variables: 32 MB each), checked before any of them is built.
MAX_CONTINUOUS_VARIABLES = 2000

D = InvalidDataError
register("continuous-not-numeric", D, "task {task!r}: column {column!r} is not numeric (e.g. {value!r}).",
         cause="A Gaussian network models real-valued columns; a label column cannot enter it.",
         fix="Drop the column, or discretise every column and learn a discrete network instead.")
register("continuous-not-finite", D,
         "task {task!r}: column {column!r} has a missing or infinite value ({value}) in {where}.",
         cause="The Gaussian scores are computed from means and covariances, which a missing value leaves undefined.",
         fix="Drop or impute the rows with missing values (DataFrame.dropna() in Python; --dropna on the command "
             "line) and replace infinite values (inf, 1e400) first.")
register("continuous-constant", D, "task {task!r}: column {column!r} has one value ({value!r}) in every row.",
         cause="A constant column has no variance: a Gaussian family of it has no likelihood.",
         fix="Drop the column from every task (continuous tasks share their columns; it carries no information "
             "about the others). A variable an intervention holds at one value cannot be learned from that "
             "condition's rows yet: leave the condition out.")
register("continuous-identifier", D,
         "task {task!r}: column {column!r} looks like a row identifier (the integers {low} to {high}, each once).",
         cause="A column numbering the rows is not a measurement; modelled as Gaussian it would invent dependencies.",
         fix="Drop the column, or make it the DataFrame's index.")
register("continuous-collinear", D,
         "task {task!r}: columns {first!r} and {second!r} are exact linear copies of each other (correlation "
         "{correlation:.6f}).",
         cause="Two perfectly collinear columns make every covariance matrix holding both singular.",
         fix="Keep one of the two columns.")
register("continuous-dependent", D,
         "task {task!r}: columns {columns} are linearly dependent (one is an exact linear combination of the "
         "others).",
         cause="With an exact linear combination among the columns every covariance matrix holding them is singular.",
         fix="Drop one of the columns named (e.g. a total that is the sum of its parts).")
register("continuous-too-many-columns", D,
         "task {task!r} has {n} columns; a Gaussian network takes at most {limit}.",
         cause="Every continuous task keeps a variables x variables scatter matrix; this many would not fit.",
         fix="Select the variables of interest first, or learn parts of the network separately.")
register("continuous-no-columns", D, "task {task!r} has no columns.",
         cause="A task needs at least one variable.",
         fix="Give the task its columns.")
register("continuous-too-few-rows", D, "task {task!r} has {n} row(s); a Gaussian network needs at least 3.",
         cause="Means and variances (and their held-out check) need more than two rows.",
         fix="Give the task more rows, or leave it out.")
register("continuous-shape", D, "task {task!r}: values must be 2-D with one column per name; got shape {shape} "
         "for {n} names.",
         cause="ContinuousData was built from an array whose columns do not match its names.",
         fix="Give a rows x variables array and one name per column.")
register("continuous-duplicate-column", D, "task {task!r}: column name {column!r} appears twice.",
         cause="Columns are variables, found by name.",
         fix="Rename one of the columns.")


@dataclass(frozen=True, eq=False)
class ContinuousData:
    """One task's real-valued columns (rows x variables), checked as it is built.

    Parameters
    ----------
    values : array-like of float, shape (n_samples, n_vars)
        The measurements; every value finite.
    names : sequence of str
        The variables, one per column, unique.
    name : str, default "data"
        The task's name, used in messages.
    checked : bool, default True
        Check the values (see the module's docstring). :meth:`take` makes unchecked parts of a checked task
        (cross-validation folds: a few held-out rows need no variance).
    """

    values: Any
    names: Any
    name: str = "data"
    checked: bool = True

    def __post_init__(self):
        values = np.ascontiguousarray(np.asarray(self.values, dtype=np.float64))
        names = tuple(str(n) for n in self.names)
        if values.ndim != 2 or values.shape[1] != len(names):
            raise error("continuous-shape", task=self.name, shape=values.shape, n=len(names))
        seen = set()
        for column in names:
            if column in seen:
                raise error("continuous-duplicate-column", task=self.name, column=column)
            seen.add(column)
        if self.checked:
            _check_columns(values, names, self.name)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "names", names)

    @property
    def n_vars(self):
        """The number of variables (columns)."""
        return len(self.names)

    @property
    def n_samples(self):
        """The number of rows."""
        return self.values.shape[0]

    def index(self, name):
        """The column of variable ``name``.

        Parameters
        ----------
        name : str
            A variable of the task.

        Returns
        -------
        int
        """
        return self.names.index(name)

    def take(self, rows):
        """The task restricted to ``rows`` (same variables and name).

        Parameters
        ----------
        rows : array-like of int or bool
            The rows kept, as numpy indexes them.

        Returns
        -------
        ContinuousData
        """
        return ContinuousData(self.values[np.asarray(rows)], self.names, self.name, checked=False)

    def fingerprint(self):
        """A digest of the rows (16 hex digits), to tell whether two data sets are the same: the same values give
        the same digest in any row or column order, and a changed value, row or column name changes it (as
        :meth:`mtbn.data.DiscreteData.fingerprint`; a run folder records it, and ``--from`` refuses other data).

        Returns
        -------
        str
            The first 16 hexadecimal digits of a SHA-256 digest of the column names and the rows sorted, the
            columns in name order.

        Examples
        --------
        >>> a = ContinuousData(np.array([[0.5, 1.0], [2.0, -1.0], [0.1, 0.2]]), ["x", "y"])
        >>> b = ContinuousData(np.array([[0.2, 0.1], [1.0, 0.5], [-1.0, 2.0]]), ["y", "x"])
        >>> a.fingerprint() == b.fingerprint(), a.fingerprint() == a.take([0, 1, 1]).fingerprint()
        (True, False)
        """
        import hashlib
        import json

        order = sorted(range(self.n_vars), key=lambda j: self.names[j])
        values = self.values[:, order] + 0.0  # no negative zero
        rows = values[np.lexsort(values.T[::-1])] if len(values) else values
        digest = hashlib.sha256(json.dumps([self.names[j] for j in order]).encode("utf-8"))
        digest.update(np.ascontiguousarray(rows, dtype="<f8").tobytes())
        return digest.hexdigest()[:16]

    def subset(self, rows):
        """The task restricted to ``rows`` without copying them (:class:`ContinuousRows`): what
        :meth:`take` gives, to the Gaussian scores and fits, the same to the last bit.

        Parameters
        ----------
        rows : array-like of int
            The rows kept (indices).

        Returns
        -------
        ContinuousRows
        """
        return ContinuousRows(self, rows)

    def centred_scatter(self):
        """:func:`centred_scatter` of the task's rows: their means and the scatter about them.

        Returns
        -------
        mean : ndarray of shape (n_vars,)
        scatter : ndarray of shape (n_vars, n_vars)
        """
        return centred_scatter(self.values)

    def to_dataframe(self):
        """The task as a pandas DataFrame (one float column per variable).

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        return pd.DataFrame(self.values, columns=list(self.names))


def _check_columns(values, names, task):
    """One-line errors for what a Gaussian network cannot use (see the module's docstring)."""
    n = values.shape[0]
    if n < 3:
        raise error("continuous-too-few-rows", task=task, n=n)
    if not values.shape[1]:
        raise error("continuous-no-columns", task=task)
    if values.shape[1] > MAX_CONTINUOUS_VARIABLES:
        raise error("continuous-too-many-columns", task=task, n=values.shape[1], limit=MAX_CONTINUOUS_VARIABLES)
    not_finite(values, names, task)
    for j, column in enumerate(names):
        col = values[:, j]
        if np.all(col == col[0]):
            raise error("continuous-constant", task=task, column=column, value=float(col[0]))
        if n >= 20 and np.all(col == np.round(col)):
            low, high = col.min(), col.max()
            if high - low + 1 == n and len(np.unique(col)) == n:
                raise error("continuous-identifier", task=task, column=column, low=int(low), high=int(high))
    if values.shape[1] < 2:
        return
    _, scatter = centred_scatter(values)
    scale = np.sqrt(np.diag(scatter))
    corr = np.clip(scatter / scale[:, None] / scale[None, :], -1.0, 1.0)
    off = corr - np.eye(len(names))
    close = np.argwhere(np.abs(off) > 1 - 1e-10)
    if len(close):
        i, j = sorted(int(x) for x in close[0])
        raise error("continuous-collinear", task=task, first=names[i], second=names[j], correlation=float(corr[i, j]))
    if n > len(names):  # with no more rows than columns every covariance is singular; BGe's prior copes
        eigenvalues, vectors = np.linalg.eigh(corr)
        if eigenvalues[0] < 1e-10:
            weights = np.abs(vectors[:, 0])
            involved = [names[k] for k in np.flatnonzero(weights > 0.05 * weights.max())]
            raise error("continuous-dependent", task=task, columns=", ".join(map(repr, involved)))



class ContinuousRows(ContinuousData):
    """Some rows of a :class:`ContinuousData`, selected without being copied (a cross-validation fold).

    Built by :meth:`ContinuousData.subset`. The Gaussian scores and fits read it a block of
    :data:`SCATTER_CELLS` cells at a time (:meth:`centred_scatter`) and get the same floats as from the rows'
    copy (:meth:`ContinuousData.take`); ``values`` is such a copy, made when asked for (a log-likelihood of the
    rows: numpy's matrix products may round a row differently in another block).

    Parameters
    ----------
    data : ContinuousData
        The task.
    rows : array-like of int
        The rows kept (indices into ``data``).
    """

    def __init__(self, data, rows):  # not the dataclass's: nothing is copied or checked
        object.__setattr__(self, "source", data)
        object.__setattr__(self, "rows", np.asarray(rows, dtype=np.intp))
        object.__setattr__(self, "names", data.names)
        object.__setattr__(self, "name", data.name)
        object.__setattr__(self, "checked", False)

    @property
    def values(self):  # type: ignore[override]
        """The rows' values (a copy)."""
        return self.source.values[self.rows]

    @property
    def n_samples(self):
        """The number of rows."""
        return len(self.rows)

    def __repr__(self):
        return f"ContinuousRows({self.name!r}, {self.n_samples} of {self.source.n_samples} rows)"

    def centred_scatter(self):
        """:func:`centred_scatter` of the rows' copy, to the last bit, a block of rows at a time.

        The copy's column sums are numpy's sums along its first axis, row after row, so each block's sum here
        continues the last one's (the running sum stacked as the block's first row); the scatter is summed over
        the same blocks of centred rows. One variable or one block: the copy itself (numpy sums a single column
        pairwise), which is no larger than a block or a column. Computed once (the arrays are read-only).

        Returns
        -------
        mean : ndarray of shape (n_vars,)
        scatter : ndarray of shape (n_vars, n_vars)
        """
        known = self.__dict__.get("_scatter")
        if known is None:
            known = self._centred_scatter()
            for part in known:
                part.flags.writeable = False  # kept: a fold's score and every fit on it read the same one
            object.__setattr__(self, "_scatter", known)
        return known

    def _centred_scatter(self):
        n, m = self.n_samples, self.n_vars
        blocks = _row_blocks(n, m)
        if m == 1 or len(blocks) <= 1:
            return centred_scatter(self.values)
        values, rows = self.source.values, self.rows
        total = None
        for part in blocks:
            block = values[rows[part]]
            total = np.add.reduce(block if total is None else np.vstack([total[None], block]), axis=0)
        mean = total / n
        scatter = np.zeros((m, m))
        for part in blocks:
            block = values[rows[part]] - mean
            scatter += block.T @ block
        return mean, scatter


class PooledTasks(ContinuousRows):
    """Several tasks' rows over the same columns, taken as one data set without being copied (a group of
    interventional conditions whose mechanism of a variable is the same).

    The Gaussian scores and fits read only :meth:`centred_scatter`: the pooled means and the scatter about
    them, ``sum_t S_t + sum_t n_t (m_t - m)(m_t - m)^T``, from each task's own (one task: its own, to the
    bit), computed once. ``values`` is the rows stacked, made when asked for.

    Parameters
    ----------
    tasks : sequence of ContinuousData
        The tasks, one or more, with the same columns in the same order.
    name : str, default "pooled"
        The data set's name, used in messages.

    Examples
    --------
    >>> import numpy as np
    >>> a = ContinuousData(np.array([[0.0, 1.0], [2.0, 3.0], [1.0, 5.0]]), ["x", "y"], "a")
    >>> b = ContinuousData(np.array([[4.0, 0.0], [3.0, 2.0], [5.0, -1.0]]), ["x", "y"], "b")
    >>> mean, scatter = PooledTasks([a, b]).centred_scatter()
    >>> bool(np.allclose(scatter, centred_scatter(np.vstack([a.values, b.values]))[1]))
    True
    """

    def __init__(self, tasks, name="pooled"):  # not ContinuousRows': the tasks, not one task's rows
        tasks = tuple(tasks)
        object.__setattr__(self, "parts", tasks)
        object.__setattr__(self, "names", tasks[0].names)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "checked", False)

    @property
    def values(self):  # type: ignore[override]
        """The tasks' rows stacked (a copy)."""
        return np.vstack([t.values for t in self.parts])

    @property
    def n_samples(self):
        """The number of rows of all the tasks."""
        return sum(t.n_samples for t in self.parts)

    def __repr__(self):
        return f"PooledTasks({self.name!r}, {len(self.parts)} tasks, {self.n_samples} rows)"

    def _centred_scatter(self):
        if len(self.parts) == 1:
            return self.parts[0].centred_scatter()
        stats = [(t.n_samples, *t.centred_scatter()) for t in self.parts]
        n = sum(k for k, _, _ in stats)
        mean = sum(k * m for k, m, _ in stats) / n
        return mean, sum(s + k * np.outer(m - mean, m - mean) for k, m, s in stats)


def continuous_from_dataframe(df, name="data"):
    """A :class:`ContinuousData` from a DataFrame of numeric columns.

    Parameters
    ----------
    df : pandas.DataFrame
        One column per variable; every column numeric (int, float or bool).
    name : str, default "data"
        The task's name, used in messages.

    Returns
    -------
    ContinuousData

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=50)
    >>> d = continuous_from_dataframe(pd.DataFrame({"x": x, "y": 2 * x + rng.normal(size=50)}), name="site")
    >>> d.n_samples, d.names
    (50, ('x', 'y'))
    >>> continuous_from_dataframe(pd.DataFrame({"x": x, "z": np.ones(50)}), name="site")
    Traceback (most recent call last):
    ...
    mtbn.exceptions.InvalidDataError: task 'site': column 'z' has one value (1.0) in every row.
    """
    import pandas as pd

    names = [str(c) for c in df.columns]
    if len(df.columns) and all(dtype == np.float64 for dtype in df.dtypes):
        # One block of floats (mtbn.data.csvfile.read_csv_numbers's frames): its array, not a copy of each column.
        return _checked_frame(df.to_numpy(), names, name, df)
    columns = []
    for column in df.columns:
        series = df[column]
        if not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)):
            converted = pd.to_numeric(series, errors="coerce")  # numbers held as objects are numbers
            bad = converted.isna() & series.notna()
            if bad.any():
                raise error("continuous-not-numeric", task=name, column=str(column), value=series[bad].iloc[0])
            series = converted
        columns.append(series.to_numpy(dtype=np.float64, na_value=np.nan))
    values = np.column_stack(columns) if columns else np.empty((len(df), 0))
    return _checked_frame(values, names, name, df)


def _checked_frame(values, names, name, df):
    """``ContinuousData(values, names, name)`` of the DataFrame ``df``'s cells, a missing or infinite cell named
    by its index label (what ``df.loc`` finds it by); the cells are scanned again only to name one."""
    try:
        return ContinuousData(values, names, name)
    except InvalidDataError as exc:
        if getattr(exc, "code", None) != "continuous-not-finite":
            raise

    def where(i):
        label = df.index[i]
        return f"the row with index {(label.item() if isinstance(label, np.generic) else label)!r}"

    not_finite(np.asarray(values, dtype=np.float64), names, name, where)
    raise AssertionError("not_finite found no cell that ContinuousData refused")  # pragma: no cover


def looks_continuous(frame, min_distinct=20):
    """Whether a DataFrame holds continuous measurements: None when some cell is a label (neither a number nor
    missing: the discrete reader's case), else whether some column has values that are not whole and more than
    ``min_distinct`` distinct values. Missing cells (empty, NaN, None) are left out: a continuous task with a
    missing value is one, whose learner names the missing value.

    Parameters
    ----------
    frame : pandas.DataFrame
        The cells, as numbers or as text (a CSV file's).
    min_distinct : int, default 20
        Distinct values a continuous column has more than.

    Returns
    -------
    bool or None

    Examples
    --------
    >>> import pandas as pd
    >>> looks_continuous(pd.DataFrame({"x": [str(i / 7) for i in range(30)] + [""]}))
    True
    >>> looks_continuous(pd.DataFrame({"x": range(30)})), looks_continuous(pd.DataFrame({"x": ["a", "b"]}))
    (False, None)
    """
    if not len(frame.columns) or not len(frame):
        return None
    values = numbers_of(frame)
    if values is None:
        return None
    return bool(any(np.any(col != np.round(col)) and len(np.unique(col)) > min_distinct
                    for col in (c[~np.isnan(c)] for c in values.T)))


def numbers_of(frame):
    """The cells of a DataFrame as a float array (NaN where missing: empty, NaN or None), or None when a cell is a
    label (neither a number, :func:`pandas.to_numeric`, nor missing). A frame of floats is returned as it is."""
    import pandas as pd

    if all(dtype == np.float64 for dtype in frame.dtypes):  # numbers already: no copy
        return frame.to_numpy()
    values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    return None if label_cells(frame, values).any() else values


def label_cells(frame, values=None):
    """The cells of a DataFrame that are labels (neither a number nor missing), as a boolean array; ``values``:
    its cells as :func:`pandas.to_numeric` reads them (NaN where they are not numbers), if known."""
    import pandas as pd

    if values is None:
        values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    labels = np.isnan(values)
    if labels.any():
        # pandas' nullable columns compare to <NA> where missing: those cells are missing, not empty text
        labels &= ~(frame.isna().to_numpy() | (frame == "").to_numpy(dtype=bool, na_value=False))
    return labels


#: Cells of the blocks of rows :func:`centred_scatter` centres at a time (8 bytes each): a task of up to this many
#: cells is centred in one block.
SCATTER_CELLS = 2**18


def centred_scatter(values):
    """The column means of ``values`` and the scatter matrix about them, ``(x - mean).T @ (x - mean)``.

    The rows are centred a block of :data:`SCATTER_CELLS` cells at a time and their products summed, so that a
    task of many rows is never copied whole (a task of one block: ``c.T @ c`` of its centred copy ``c``).

    Parameters
    ----------
    values : ndarray of float, shape (n_samples, n_vars)
        The rows.

    Returns
    -------
    mean : ndarray of shape (n_vars,)
    scatter : ndarray of shape (n_vars, n_vars)

    Examples
    --------
    >>> x = np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 7.0]])
    >>> mean, scatter = centred_scatter(x)
    >>> mean.tolist(), scatter.tolist()
    ([3.0, 5.0], [[8.0, 10.0], [10.0, 14.0]])
    """
    mean = values.mean(axis=0)
    scatter = np.zeros((values.shape[1], values.shape[1]))
    for rows in _row_blocks(*values.shape):
        block = values[rows] - mean
        scatter += block.T @ block
    return mean, scatter


def not_finite(values, names, task, where=None):
    """Raise the error naming the first missing or infinite cell of ``values`` (rows in order, then columns),
    if any; ``where(i)`` names the ``i``-th row (default: its position, counted from 0). Read a block of rows
    at a time (no mask of the whole array).

    Parameters
    ----------
    values : ndarray of float, shape (n_rows, n_columns)
        The cells.
    names : sequence of str
        The columns' names.
    task : str
        The task's name.
    where : callable, optional
        ``where(i)``: the text naming row ``i`` (e.g. a file line, or an index label).
    """
    for rows in _row_blocks(*values.shape):
        block = values[rows]
        bad = ~np.isfinite(block)
        if bad.any():
            row, column = (int(a[0]) for a in np.nonzero(bad))
            row += rows.start
            named = where(row) if where is not None else f"row {row} (counted from 0)"
            raise error("continuous-not-finite", task=task, column=names[column], value=values[row, column],
                        where=named)


def _row_blocks(n, m):
    """Slices of consecutive rows of an ``n`` x ``m`` array of about :data:`SCATTER_CELLS` cells each, in order."""
    step = max(1, SCATTER_CELLS // max(m, 1))
    return [slice(start, start + step) for start in range(0, n, step)]


def regression_from_scatter(scatter, child, parents):
    """The least-squares regression of ``child`` on ``parents`` from a scatter (or covariance) matrix.

    Parameters
    ----------
    scatter : ndarray of float, shape (n_vars, n_vars)
        ``sum_i (x_i - mean)(x_i - mean)^T`` of the rows (or that divided by a count).
    child : int
        The variable regressed.
    parents : sequence of int
        Its regressors.

    Returns
    -------
    beta : ndarray of float
        One coefficient per parent (an exactly singular parents' block: the least-squares solution).
    residual : float
        ``S_yy - S_yP beta``, the residual sum of squares on the scale of ``scatter``.
    """
    p = list(parents)
    if not p:
        return np.zeros(0), float(scatter[child, child])
    block, cross = scatter[np.ix_(p, p)], scatter[p, child]
    try:
        beta = np.linalg.solve(block, cross)
    except np.linalg.LinAlgError:
        beta = np.linalg.lstsq(block, cross, rcond=None)[0]
    return beta, float(scatter[child, child] - cross @ beta)
