"""Coding a pandas DataFrame into one task's codes and state lists (:func:`from_dataframe`).

pandas is imported inside the functions only, so that ``import mtbn`` does
not load it. Labels are kept verbatim as strings; each column's kind (int,
float, bool or text) decides the order of its states, and a category keeps
its declared levels. A column of text (every CSV column) or of numbers is
coded from its distinct values (pandas' hashing, in C): the Python work grows
with the states, not the rows. Every problem with the data (missing values,
mixed types, too many states, a continuous-looking column) is reported naming
the task and the column; nothing is dropped or converted silently.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mtbn.data.discrete import MAX_STATES, DiscreteData, _check_unique, _ordered_states
from mtbn.exceptions import DataWarning, InvalidDataError
from mtbn.messages import error, register, warn
from mtbn.messages import text as message_text

__all__ = ["from_dataframe", "from_text_columns", "TextColumns"]

#: A numeric column (numbers in a DataFrame, or CSV cells that all read as
#: numbers) with more distinct values than this must be discretised.
_MAX_FLOAT_STATES = 20

D = InvalidDataError
register("continuous-column", D,
         "task {task!r}, column {column!r}: a numeric column with {n_distinct} distinct values (more than {limit}) "
         "looks continuous; discretise it first with cut points shared by all tasks (the command line's "
         "--discretize quantile; in Python, the discretize argument of make_taskset).",
         cause="A column of numbers with many distinct values: mtbn learns discrete networks only.",
         fix="Discretise it with cut points shared by all tasks (--discretize METHOD[:K], discretize=), bin it "
         "yourself, or drop it; small integer codes are fine.")
register("not-a-dataframe", D, "task {task!r}: expected a pandas DataFrame; got {kind}.",
         cause="A task was given as something other than a pandas DataFrame.",
         fix="Pass a DataFrame (one column per variable), a CSV path to read_csv, or a TaskSet.")
register("duplicate-column", D, "task {task!r}: duplicate column name {value!r}.",
         cause="Two columns of a task have the same name (after stripping spaces around CSV header names).",
         fix="Rename or drop one of the columns.")
register("duplicate-state", D, "task {task!r}, column {column!r}: duplicate declared state {value!r}.",
         cause="A declared state list names a state twice.",
         fix="List each state once.")
register("no-columns", D, "task {task!r} is empty: it has no columns.",
         cause="A task without variables.",
         fix="Check that the file or DataFrame holds the data (and the header line for CSV files).")
register("no-rows", D, "task {task!r} is empty: it has no rows.",
         cause="A task with a header but no data rows.",
         fix="Check the file; remove tasks without data.")
register("missing-values", D,
         "task {task!r}: {count} missing value(s) in column(s) {columns}, {where}; impute them or drop the "
         "incomplete rows first (--dropna on the command line; DataFrame.dropna() in Python).",
         cause="Empty cells, NaN or None in the data (labels such as 'NA' or 'None' in a CSV file are states, "
               "not missing values).",
         fix="Fill the cells in (impute), or drop the incomplete rows: --dropna on the command line, "
             "DataFrame.dropna() (or dropna=True of read_csv and make_taskset) in Python.")
register("empty-after-dropna", D, "task {task!r} is empty after dropping incomplete rows.",
         cause="With dropna, every row of the task had a missing value.",
         fix="Impute the missing values, or drop the columns that are mostly empty.")
register("rows-dropped", DataWarning, "task {task!r}: dropped {dropped} of {total} rows with a missing value "
         "(dropna).",
         cause="dropna=True (--dropna) removed the task's incomplete rows; this says how many.",
         fix="Nothing to fix if that is what you meant; otherwise impute the missing values instead.")
register("undeclared-state", D, "task {task!r}, column {column!r}: unknown state {state!r} (declared states: {declared}).",
         cause="The data holds a label that the declared state list (states=) does not name.",
         fix="Add the label to the declared states or correct the data.")
register("too-many-states", D,
         "task {task!r}, column {column!r} has {n_states} states; at most {limit} are supported (is it an "
         "identifier or a continuous variable? drop or discretise it).",
         cause="A column with more distinct labels than mtbn's limit of 255 states per variable.",
         fix="Drop identifier columns; bin continuous ones into a few ranges.")
register("mixed-types", D, "task {task!r}, column {column!r} mixes {a} and {b} values (e.g. {x!r} and {y!r}).",
         cause="One column holds values of different Python types, e.g. the number 1 and the text '1', which "
               "would otherwise merge into one state or look like two.",
         fix="Convert the column to one type first (e.g. df[column].astype(str) or pd.to_numeric).")



def _check_numeric_column(values, task, column):
    """Refuse a numeric column that looks continuous (the same rule for the API and CSV files)."""
    n_distinct = len(np.unique(values))
    if n_distinct > _MAX_FLOAT_STATES:
        raise error("continuous-column", task=task, column=column, n_distinct=n_distinct,
                    limit=_MAX_FLOAT_STATES)



def _is_missing_array(values):
    """Boolean mask of missing cells in an object/float array."""
    import pandas as pd

    if _all_text(values):
        return np.asarray(values == "", dtype=bool)  # no None or NaN in it
    mask = np.asarray(pd.isna(values), dtype=bool)
    if values.dtype == object:
        mask |= np.array([isinstance(x, str) and x == "" for x in values], dtype=bool)
    return mask


def _all_text(values):
    """Whether ``values`` is an object array of str only (a missing cell ``""``), as the columns of a CSV file are.

    Such a column is read by its distinct labels, in C loops (pandas' type inference and hashing); the labels,
    kinds and checks are those of the cell-by-cell path, which the other object columns take (their distinct
    values cannot be found by hashing: ``1``, ``1.0`` and ``True`` hash alike and are different labels).
    """
    import pandas as pd

    return values.dtype == object and pd.api.types.infer_dtype(values, skipna=False) in ("string", "empty")


def _distinct(values):
    """``(distinct values, code of each cell)`` of a numeric array or an object array of str (pandas' hashing).

    NaN, the only missing value such arrays can hold, is a distinct value (the search for it, needed for floats
    only, would double the time of the others).
    """
    import pandas as pd

    codes, uniques = pd.factorize(values, use_na_sentinel=values.dtype.kind != "f")
    return np.asarray(uniques).tolist(), codes


class _Labels(NamedTuple):
    """A column's labels, each cell's ``texts[codes[i]]``: the distinct texts (object array of str; a text may
    repeat, and one may no longer be used once rows are dropped) and a code per cell."""

    texts: np.ndarray
    codes: np.ndarray

    @classmethod
    def of(cls, values):
        """The labels of an array that :func:`_distinct` takes: each distinct value's ``str``."""
        uniques, codes = _distinct(values)
        return cls(np.array([str(x) for x in uniques], dtype=object), codes)


def _describe_rows(rows, limit=5):
    shown = ", ".join(str(r) for r in rows[:limit])
    return shown + (", ..." if len(rows) > limit else "")


def _as_numbers(cells):
    """The cells as floats if every one reads as a finite number, else None."""
    try:
        out = np.array([float(c) for c in cells], dtype=float)
    except ValueError:
        return None
    return out if len(out) and np.all(np.isfinite(out)) else None


def _column_labels(series, task, column, text=None):
    """The labels of one column (:class:`_Labels`), verbatim (``text``: :func:`_all_text` of its values, if known)."""
    values = series.to_numpy()
    kind = values.dtype.kind
    text = _all_text(values) if text is None else text
    labels = _Labels.of(values) if kind in "biuf" or text else None
    if kind in "iuf":
        _check_numeric_column(values[~np.isnan(values)] if kind == "f" else values, task, column)
    elif text and len(values):
        _check_text_numbers(labels, task, column)
    elif kind == "O" and len(values):
        numbers = _as_numbers([x for x in values.tolist() if isinstance(x, str) and x != ""])
        if numbers is not None:
            _check_numeric_column(numbers, task, column)
    if labels is not None:
        return labels
    if kind == "O":
        return _Labels.of(np.array([x if isinstance(x, str) else str(x) for x in values.tolist()], dtype=object))
    return _Labels.of(values.astype(str).astype(object))


def _check_text_numbers(labels, task, column):
    """Refuse a text column whose non-empty labels all read as numbers, too many distinct ones (its distinct
    labels decide: the same answer as every cell's)."""
    numbers = _as_numbers([x for x in labels.texts.tolist() if x != ""])
    if numbers is not None:
        _check_numeric_column(numbers, task, column)


class TextColumns:
    """Columns of text coded chunk by chunk (the rows of a CSV file as they are parsed).

    :meth:`add` codes each column of a chunk by its distinct labels and maps
    them onto the labels seen so far, so that only a code per cell (the
    smallest unsigned type that holds the labels so far) and each column's
    distinct labels are kept; :func:`from_text_columns` then checks and codes
    them as :func:`from_dataframe` would the whole frame.
    """

    def __init__(self):
        self.n_rows = 0
        self._seen: list = []  # per column: label -> code, in order of first appearance
        self._codes: list = []  # per column: the chunks' codes

    def add(self, chunk):
        """Code one chunk of rows.

        Parameters
        ----------
        chunk : pandas.DataFrame
            The next rows, the same columns as every chunk; every cell a str (an empty cell ``""``).
        """
        if not self._seen:
            self._seen = [{} for _ in range(chunk.shape[1])]
            self._codes = [[] for _ in range(chunk.shape[1])]
        for j, seen in enumerate(self._seen):
            uniques, codes = _distinct(chunk.iloc[:, j].to_numpy())
            lut = np.array([seen.setdefault(u, len(seen)) for u in uniques], dtype=np.int64)
            self._codes[j].append(lut.astype(np.min_scalar_type(len(seen) - 1))[codes])
        self.n_rows += chunk.shape[0]

    def labels(self):
        """Every column's labels so far.

        Returns
        -------
        list of _Labels
            Per column, its distinct labels (in order of first appearance) and each row's code; an empty list
            before the first chunk.
        """
        return [_Labels(np.array(list(seen), dtype=object), np.concatenate(parts))
                for seen, parts in zip(self._seen, self._codes)]


_KIND_OF = {bool: "bool", int: "int", float: "float", str: None}


def _value_kind(value):
    if isinstance(value, (bool, np.bool_)):
        return bool
    if isinstance(value, (int, np.integer)):
        return int
    if isinstance(value, (float, np.floating)):
        return float
    return str


def _column_kind(series, task, column, text=None):
    """``(kind, declared order or None)`` of a column: the type its labels turn back into (``text``:
    :func:`_all_text` of its values, if known)."""
    import pandas as pd

    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = list(series.cat.categories)
        kinds = {_value_kind(c) for c in cats}
        kind = _KIND_OF[kinds.pop()] if len(kinds) == 1 else None
        return kind, [str(c) for c in cats]
    k = series.dtype.kind
    if k == "b":
        return "bool", None
    if k in "iu":
        return "int", None
    if k == "f":
        return "float", None
    if _all_text(series.to_numpy()) if text is None else text:
        return _KIND_OF[str], None  # text (or every cell empty: no kind either)
    values = [x for x in series.tolist() if not _is_missing_scalar(x)]
    types = {}
    for x in values:
        types.setdefault(_value_kind(x), x)
    if int in types and float in types:
        types.pop(int)  # 1 and 1.5: numbers, read as floats
    if len(types) > 1:
        (ta, xa), (tb, xb) = sorted(types.items(), key=lambda kv: kv[0].__name__)[:2]
        raise error("mixed-types", task=task, column=column, a=ta.__name__, b=tb.__name__, x=xa, y=xb)
    return (_KIND_OF[next(iter(types))] if types else None), None


def _is_missing_scalar(x):
    import pandas as pd

    if isinstance(x, str):
        return x == ""
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def _number_labels(labels):
    """Labels of a numeric column, whole numbers written as integers ("1", not "1.0"), and the kind.

    pandas stores an integer column with a missing value as floats; writing
    whole numbers as integers keeps 1 and 1.0 one state across tasks.
    """
    out, whole = [], True
    for text in labels.texts.tolist():
        try:
            f = float(text)
        except (TypeError, ValueError):
            out.append(text)  # a missing cell: dropped or refused later
            continue
        if not np.isfinite(f):
            out.append(text)  # NaN is a missing cell (dropped or refused later); inf stays as it is
            whole = whole and np.isnan(f)
        elif f == int(f):
            out.append(str(int(f)))
        else:
            whole = False
            out.append(text)
    return labels._replace(texts=np.array(out, dtype=object)), ("int" if whole else "float")




def from_dataframe(df, *, name: str = "data", states: Any = None, dropna: bool = False, _source=None) -> DiscreteData:
    """Integer-code one pandas DataFrame.

    Parameters
    ----------
    df : pandas.DataFrame
        One column per variable, one row per sample; cells are state labels.
    name : str
        The task name used in messages and results.
    states : dict of str to sequence of str, optional
        Declared state lists. A declared state never observed still counts in
        the arity; an observed label that is not declared is an error. Columns
        not named here get their observed labels in value order (numbers
        numerically, False before True, text alphabetically).
    dropna : bool, default False
        Drop rows with a missing value instead of raising.
    _source : str, optional
        Internal (:func:`mtbn.data.read_csv` passes it): the path of the CSV file the frame was read from, so
        that the missing-values message names the file's lines rather than the frame's index values.

    Returns
    -------
    DiscreteData
        The coded task, named ``name``, with one variable per column in the frame's order.

    Raises
    ------
    InvalidDataError
        Missing values (unless ``dropna``), an empty task, duplicate column
        names, a continuous-looking float column, more than 255 states, or an
        undeclared state.

    Notes
    -----
    The steps: check the frame (:func:`_check_frame`), read each column's
    labels and kind (:func:`_labels_and_kinds`), refuse or drop incomplete
    rows (:func:`_drop_missing`), then code each column onto its state list
    (:func:`_code_column`).

    Examples
    --------
    Numbers keep their numeric order (``10`` after ``2``) and text its
    alphabetical order; ``kinds`` remembers which column held integers:

    >>> import pandas as pd
    >>> df = pd.DataFrame({"size": [10, 2, 1, 2], "colour": ["red", "blue", "red", "green"]})
    >>> d = from_dataframe(df, name="shop")
    >>> d.name, d.states, d.kinds
    ('shop', (('1', '2', '10'), ('blue', 'green', 'red')), ('int', None))
    >>> d.codes.tolist()
    [[2, 2], [1, 0], [0, 2], [1, 1]]

    Declared states fix the order and may include states never observed,
    which still count in the arity:

    >>> from_dataframe(df, name="shop", states={"colour": ["red", "green", "blue", "white"]}).arities.tolist()
    [3, 4]
    """
    names = _check_frame(df, name)
    text = [_all_text(df.iloc[:, j].to_numpy()) for j in range(df.shape[1])]  # once per column
    labels, kinds = _labels_and_kinds(df, name, names, text)
    missing = [np.asarray(labels[j].texts == "", dtype=bool)[labels[j].codes] if text[j]
               else _is_missing_array(df.iloc[:, j].to_numpy()) for j in range(df.shape[1])]
    return _coded(labels, kinds, missing, names, name, states, dropna, df.index, _source)


def from_text_columns(columns: TextColumns, names, *, name: str = "data", states: Any = None, dropna: bool = False,
                      source=None) -> DiscreteData:
    """:func:`from_dataframe` of a DataFrame of strings given as its :class:`TextColumns` (coded chunk by chunk).

    The same checks in the same order, the same messages (``source``: the CSV file, whose lines the missing
    values message names) and the same coded task as :func:`from_dataframe` on the whole frame with columns
    ``names``.

    Parameters
    ----------
    columns : TextColumns
        The task's cells, every one a str (a missing cell ``""``).
    names : list of str
        The column names.
    name, states, dropna
        As for :func:`from_dataframe`.
    source : str, optional
        The path of the CSV file the cells were read from.

    Returns
    -------
    DiscreteData
        The coded task.
    """
    _check_shape(names, columns.n_rows, name)
    labels = columns.labels()
    for lab, col in zip(labels, names):
        _check_text_numbers(lab, name, col)
    missing = [lab.codes == _code_of(lab, "") for lab in labels]
    return _coded(labels, [(None, None)] * len(names), missing, names, name, states, dropna, None, source)


def _code_of(labels, text):
    """The code of ``text`` among ``labels``' distinct texts, or -1."""
    where = np.flatnonzero(labels.texts == text)
    return int(where[0]) if len(where) else -1


def _coded(labels, kinds, missing, names, name, states, dropna, index, source):
    """The coded task from each column's labels, kind and missing cells (the end of :func:`from_dataframe`)."""
    labels = _drop_missing(labels, missing, names, name, dropna, index, source)
    declared = dict(states or {})
    codes = np.empty((len(labels[0].codes), len(names)), dtype=np.uint8, order="F")
    state_lists = []
    for j, col in enumerate(names):
        codes[:, j], st = _code_column(labels[j], kinds[j], declared, name, col)
        state_lists.append(st)
    kind_list = tuple(k for k, _ in kinds)
    return DiscreteData(codes, tuple(names), tuple(state_lists), str(name),
                        kind_list if any(k is not None for k in kind_list) else None)


def _check_frame(df, name):
    """The column names of ``df`` as strings, once it is known to be a non-empty DataFrame with unique names."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise error("not-a-dataframe", task=name, kind=type(df).__name__)
    names = [str(c) for c in df.columns]
    _check_shape(names, df.shape[0], name)
    return names


def _check_shape(names, n_rows, name):
    """Refuse a task with duplicate column names, no columns or no rows (in that order)."""
    _check_unique(names, "duplicate-column", task=name)
    if not names:
        raise error("no-columns", task=name)
    if n_rows == 0:
        raise error("no-rows", task=name)


def _labels_and_kinds(df, name, names, text):
    """Per column, its labels (:class:`_Labels`) and ``(kind, declared order or None)`` (``text``: per column,
    :func:`_all_text` of its values).

    Numeric columns get whole numbers written as integers (:func:`_number_labels`).
    """
    labels = [_column_labels(df.iloc[:, j], name, names[j], text[j]) for j in range(df.shape[1])]
    kinds = [_column_kind(df.iloc[:, j], name, names[j], text[j]) for j in range(df.shape[1])]
    for j, (kind, order) in enumerate(kinds):
        if kind in ("int", "float") and order is None:
            labels[j], kind = _number_labels(labels[j])
            kinds[j] = (kind, None)
    return labels, kinds


def _drop_missing(labels, missing, names, name, dropna, index, source):
    """``labels`` without the incomplete rows (``missing``: a mask per column) if ``dropna``; else an error naming
    them if there are any.

    ``source`` (a CSV path, or None) makes the message name file lines rather than the values of ``index``.
    """
    keep = complete_rows(missing, names, name, dropna, index, source)
    return labels if keep is None else [lab._replace(codes=lab.codes[keep]) for lab in labels]


def complete_rows(missing, names, name, dropna, index, source=None):
    """The rows to keep (a boolean mask) of a task whose cells ``missing`` (a mask per column) are missing, or
    None when none is: with ``dropna`` the complete rows, with a :class:`~mtbn.exceptions.DataWarning` saying how
    many were dropped (an error if none is left); else an error naming the missing cells' columns and rows
    (``source``, a CSV path: its file lines; else the values of ``index``).
    """
    any_missing = np.logical_or.reduce(missing)
    if not any_missing.any():
        return None
    if not dropna:
        cols = [f"{names[j]!r} ({int(m.sum())})" for j, m in enumerate(missing) if m.any()]
        rows = np.flatnonzero(any_missing)
        where = (f"file lines {_describe_rows((rows + 2).tolist())} of {source!r}" if source is not None
                 else f"rows with index {_describe_rows(index[rows].tolist())}")
        raise error("missing-values", task=name, count=int(sum(m.sum() for m in missing)),
                    columns=", ".join(cols), where=where)
    keep = ~any_missing
    if not keep.any():
        raise error("empty-after-dropna", task=name)
    warn(message_text("rows-dropped", task=name, dropped=int(any_missing.sum()), total=len(keep)), DataWarning)
    return keep


def _code_column(labels, kind_order, declared, name, col):
    """``(codes, states)`` of column ``col``: its labels coded onto ``declared[col]`` or its own states.

    Without declared states, a category keeps its levels (unused ones
    included) and other columns get their observed labels in value order.
    """
    used = np.zeros(len(labels.texts), dtype=bool)
    used[labels.codes] = True  # (dropped rows may leave a text unused)
    uniq, position = np.unique(labels.texts[used].astype(str), return_inverse=True)
    inverse = np.zeros(len(used), dtype=np.int64)
    inverse[used] = position.reshape(-1)
    inverse = inverse[labels.codes]  # np.unique of every cell's text, computed on the distinct texts
    if col in declared:
        st = tuple(str(s) for s in declared[col])
        _check_unique(st, "duplicate-state", task=name, column=col)
        pos = {s: k for k, s in enumerate(st)}
        unknown = [u for u in uniq.tolist() if u not in pos]
        if unknown:
            raise error("undeclared-state", task=name, column=col, state=unknown[0],
                        declared=", ".join(map(repr, st)))
    else:
        kind, order = kind_order
        st = tuple(order) if order is not None else tuple(_ordered_states(uniq.tolist(), kind))
        pos = {s: k for k, s in enumerate(st)}
    if len(st) > MAX_STATES:
        raise error("too-many-states", task=name, column=col, n_states=len(st), limit=MAX_STATES)
    lut = np.array([pos[u] for u in uniq.tolist()], dtype=np.int64)
    return lut[inverse.reshape(-1)], st
