"""Integer-coded discrete data for one task or many related tasks.

This is the only module that turns pandas objects or CSV files into the
arrays the rest of mtbn works on. A :class:`DiscreteData` holds the codes of
one task (``uint8``, column-major so that a variable's column is contiguous),
the variable names and, per variable, the list of state labels. State labels
are kept verbatim as strings: ``"None"``, ``"NA"``, ``"null"`` or ``"3"`` are
ordinary states, never missing values or numbers.

DataFrame columns keep their type for the user (``DiscreteData.kinds``):
integer, float and boolean columns are ordered by value (``2 < 10``,
``False < True``) and come back as those values wherever mtbn hands a model
out (pgmpy state names, so ``evidence={"smoke": 1}`` works); a pandas
``category`` column keeps its declared levels in their order, unused levels
included (they count in the arity, as bnlearn counts factor levels); text
columns are sorted. A column mixing types (the number 1 and the text "1") is
an error. CSV cells are text.

A :class:`TaskSet` holds several tasks whose variable sets may differ but
overlap. A variable shared by several tasks has one state list (the declared
one, or else the union of the labels seen in any task, ordered as above), so
that its arity is the same in every task.

Missing values (an empty CSV cell, an empty string, or a NaN / None object in
a DataFrame) are an error unless ``dropna=True`` asks to drop the incomplete
rows; nothing is dropped silently.
"""

from __future__ import annotations

from typing import Any

import csv
import os
import warnings
from dataclasses import dataclass, field

import numpy as np

from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.messages import error, register

__all__ = [
    "DiscreteData",
    "TaskSet",
    "from_dataframe",
    "read_csv",
    "make_taskset",
    "MAX_STATES",
]

#: Largest number of states a variable may have (codes are stored as uint8).
MAX_STATES = 255

#: A numeric column (numbers in a DataFrame, or CSV cells that all read as
#: numbers) with more distinct values than this must be discretised.
_MAX_FLOAT_STATES = 20


D, P = InvalidDataError, InvalidParameterError
register("continuous-column", D,
         "task {task!r}, column {column!r}: a numeric column with {n_distinct} distinct values (more than {limit}) "
         "looks continuous; discretise it first (e.g. with pandas.cut) so that each value is a state label.",
         cause="A column of numbers with many distinct values: mtbn learns discrete networks only.",
         fix="Bin the column into a few ranges (pandas.cut or qcut) or drop it; small integer codes are fine.")
register("codes-shape", D, "task {task!r}: codes must have one column per variable ({n_names}); got shape {shape}.",
         cause="A DiscreteData was built from a code array whose width differs from the number of names.",
         fix="Pass one column of codes per variable name.")
register("states-per-variable", D, "task {task!r}: one state list per variable is required.",
         cause="A DiscreteData was built with a different number of state lists than variables.",
         fix="Pass one list of state labels per variable.")
register("unknown-variable", D, "task {task!r} has no variable {name!r}.",
         cause="A variable name was looked up in a task that does not have it.",
         fix="Check the spelling against the task's column names.")
register("unknown-state", D, "task {task!r}, column {column!r}: unknown state {state!r} (allowed: {allowed}).",
         cause="A task holds a state label missing from the state list it is recoded onto.",
         fix="Add the state to the declared states, or correct the label in the data.")
register("unknown-task", P, "unknown task {task!r}; tasks are {names}.",
         cause="A task name was looked up that is not one of the tasks.",
         fix="Use one of the task names listed.")
register("not-a-dataframe", D, "task {task!r}: expected a pandas DataFrame; got {kind}.",
         cause="A task was given as something other than a pandas DataFrame.",
         fix="Pass a DataFrame (one column per variable), a CSV path to read_csv, or a TaskSet.")
register("duplicate-column", D, "task {task!r}: duplicate column name {value!r}.",
         cause="Two columns of a task have the same name (after stripping spaces around CSV header names).",
         fix="Rename or drop one of the columns.")
register("duplicate-state", D, "task {task!r}, column {column!r}: duplicate declared state {value!r}.",
         cause="A declared state list names a state twice.",
         fix="List each state once.")
register("duplicate-task", D, "duplicate task name {value!r}.",
         cause="Two tasks have the same name.",
         fix="Give every task its own name (for CSV files, the file names without .csv must differ).")
register("no-columns", D, "task {task!r} is empty: it has no columns.",
         cause="A task without variables.",
         fix="Check that the file or DataFrame holds the data (and the header line for CSV files).")
register("no-rows", D, "task {task!r} is empty: it has no rows.",
         cause="A task with a header but no data rows.",
         fix="Check the file; remove tasks without data.")
register("missing-values", D,
         "task {task!r}: {count} missing values in column(s) {columns}, {where}; impute them or drop the "
         "incomplete rows (--dropna on the command line; `dropna=True` in read_csv or make_taskset).",
         cause="Empty cells, NaN or None in the data (labels such as 'NA' or 'None' in a CSV file are states, "
               "not missing values).",
         fix="Fill the cells in (impute) or drop the incomplete rows with --dropna / dropna=True.")
register("empty-after-dropna", D, "task {task!r} is empty after dropping incomplete rows.",
         cause="With dropna, every row of the task had a missing value.",
         fix="Impute the missing values, or drop the columns that are mostly empty.")
register("undeclared-state", D, "task {task!r}, column {column!r}: unknown state {state!r} (declared states: {declared}).",
         cause="The data holds a label that the declared state list (states=) does not name.",
         fix="Add the label to the declared states or correct the data.")
register("too-many-states", D,
         "task {task!r}, column {column!r} has {n_states} states; at most {limit} are supported (is it an "
         "identifier or a continuous variable? drop or discretise it).",
         cause="A column with more distinct labels than mtbn's limit of 255 states per variable.",
         fix="Drop identifier columns; bin continuous ones into a few ranges.")
register("too-many-states-across-tasks", D, "column {column!r} has {n_states} states across tasks; at most {limit}.",
         cause="The tasks together use more than 255 distinct labels for one variable.",
         fix="Harmonise the labels across tasks, or bin the variable.")
register("cannot-read-file", D, "cannot read {path!r}: {reason}.",
         cause="The CSV file does not exist or cannot be opened.",
         fix="Check the path and the file's permissions.")
register("not-utf8", D, "task {task!r}: {path!r} is not UTF-8 text; save it as UTF-8 CSV.",
         cause="The file is in another encoding (e.g. Latin-1 or UTF-16), so its labels cannot be read safely.",
         fix="Save the file as UTF-8 CSV (most spreadsheet programs offer 'CSV UTF-8').")
register("no-header", D, "task {task!r} is empty: {path!r} has no header line.",
         cause="An empty file.",
         fix="Check that the right file was given; the first line must name the variables.")
register("wrong-separator", D,
         "task {task!r}: {path!r} has one column whose header contains {label}; it looks separated by {label} "
         "rather than commas: save it as comma-separated CSV.",
         cause="A semicolon- or tab-separated file read as comma-separated CSV gives one column.",
         fix="Save the file with commas between fields.")
register("ragged-rows", D, "task {task!r}: rows of {path!r} have more fields than the header ({n_columns} columns).",
         cause="Some data row has more fields than the header names (an unquoted comma in a label, or a "
               "missing header name).",
         fix="Quote labels that contain commas, or add the missing header names.")
register("csv-parse", D, "task {task!r}: cannot parse {path!r}: {reason}",
         cause="The CSV parser failed (e.g. an unterminated quote or a malformed row).",
         fix="Open the file in a text editor at the line named and repair it.")
register("no-data", D, "task {task!r} is empty: {path!r} has no data.",
         cause="The file has no rows and no header that pandas can read.",
         fix="Check that the right file was given.")
register("task-column-needed", P,
         "a single DataFrame needs task_column= naming the column that says which task each row belongs to.",
         cause="One DataFrame was given for several tasks without saying which column holds the task.",
         fix="Pass task_column='<column>', or a dict of name -> DataFrame.")
register("task-column-missing", P, "task_column {column!r} is not a column of the DataFrame.",
         cause="task_column names a column the DataFrame does not have.",
         fix="Check the spelling of the column that holds the task names.")
register("tasks-type", P,
         "tasks must be a dict of name -> DataFrame, a list of DataFrames, a TaskSet, or one DataFrame with "
         "task_column=; got {kind}.",
         cause="The tasks were given in a container mtbn does not read.",
         fix="Pass a dict of name -> DataFrame (the names become task names), a list, or a TaskSet.")
register("no-tasks", P, "tasks is empty: at least one task is required.",
         cause="An empty dict or list of tasks.",
         fix="Pass at least one task.")
register("empty-task", D, "task {task!r} is empty.",
         cause="A task without rows.",
         fix="Remove the task or give it data.")


def _check_numeric_column(values, task, column):
    """Refuse a numeric column that looks continuous (the same rule for the API and CSV files)."""
    n_distinct = len(np.unique(values))
    if n_distinct > _MAX_FLOAT_STATES:
        raise error("continuous-column", task=task, column=column, n_distinct=n_distinct,
                    limit=_MAX_FLOAT_STATES)


@dataclass(frozen=True, eq=False)
class DiscreteData:
    """Integer-coded discrete data of one task.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_vars), dtype uint8
        ``codes[s, v]`` is the index of sample ``s``'s state in ``states[v]``.
    names : tuple of str
        Variable names, one per column.
    states : tuple of tuple of str
        The state labels of each variable; the arity of variable ``v`` is
        ``len(states[v])`` (declared states never observed still count).
    name : str
        The task name.
    kinds : tuple, optional
        Per variable, the Python type its labels came from: ``"int"``,
        ``"float"``, ``"bool"`` or None (strings). Labels are always
        strings inside mtbn; the kind turns them back into the user's values
        at the boundaries (pgmpy models get ``1`` or ``True`` as state names).
    """

    codes: np.ndarray
    names: tuple
    states: tuple
    name: str = "data"
    kinds: "tuple | None" = None
    _index: dict = field(init=False, repr=False, compare=False)

    def __sizeof__(self):
        # The codes dominate; a Dask engine scatters data this size once (mtbn.engine).
        return object.__sizeof__(self) + self.codes.nbytes

    def __post_init__(self):
        codes = np.asfortranarray(self.codes, dtype=np.uint8)
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "names", tuple(str(n) for n in self.names))
        object.__setattr__(self, "states", tuple(tuple(str(s) for s in st) for st in self.states))
        if codes.ndim != 2 or codes.shape[1] != len(self.names):
            raise error("codes-shape", task=self.name, n_names=len(self.names), shape=codes.shape)
        if len(self.states) != len(self.names):
            raise error("states-per-variable", task=self.name)
        object.__setattr__(self, "_index", {n: i for i, n in enumerate(self.names)})

    @property
    def n_samples(self):
        """Number of rows."""
        return self.codes.shape[0]

    @property
    def n_vars(self):
        """Number of variables."""
        return self.codes.shape[1]

    @property
    def arities(self):
        """Number of states of each variable, as an int64 array."""
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def index(self, name):
        """Column index of variable ``name``."""
        try:
            return self._index[name]
        except KeyError:
            raise error("unknown-variable", task=self.name, name=name) from None

    def take(self, rows):
        """A new DiscreteData with only ``rows`` (indices or a boolean mask)."""
        return DiscreteData(self.codes[rows], self.names, self.states, self.name, self.kinds)

    def with_states(self, states):
        """Recode onto larger state lists (``states[v]`` must contain the old ones)."""
        codes = np.empty_like(self.codes)
        for v, (old, new) in enumerate(zip(self.states, states)):
            pos = {s: k for k, s in enumerate(new)}
            try:
                lut = np.array([pos[s] for s in old], dtype=np.uint8)
            except KeyError as exc:
                raise error("unknown-state", task=self.name, column=self.names[v], state=exc.args[0],
                            allowed=", ".join(map(repr, new))) from None
            codes[:, v] = lut[self.codes[:, v]] if len(old) else 0
        return DiscreteData(codes, self.names, tuple(tuple(s) for s in states), self.name, self.kinds)

    def to_dataframe(self):
        """The data as a pandas DataFrame of state labels (strings)."""
        import pandas as pd

        cols = {}
        for v, name in enumerate(self.names):
            labels = np.array(self.states[v], dtype=object)
            cols[name] = labels[self.codes[:, v]] if len(labels) else []
        return pd.DataFrame(cols, columns=list(self.names))


@dataclass(frozen=True, eq=False)
class TaskSet:
    """Several related tasks over overlapping variable sets.

    Attributes
    ----------
    tasks : tuple of DiscreteData
        One data set per task; a shared variable has the same state list in
        every task.
    variables : tuple of str
        The union of the tasks' variables, in order of first appearance.
    states : tuple of tuple of str
        The state list of each variable of ``variables``.
    local_index : ndarray of shape (n_tasks, n_variables), int64
        ``local_index[t, v]`` is the column of global variable ``v`` in task
        ``t``, or -1 where the task lacks the variable.
    """

    tasks: tuple
    variables: tuple
    states: tuple
    local_index: np.ndarray

    def __sizeof__(self):
        return object.__sizeof__(self) + sum(t.__sizeof__() for t in self.tasks)

    @property
    def names(self):
        """Task names."""
        return tuple(t.name for t in self.tasks)

    @property
    def n_tasks(self):
        return len(self.tasks)

    @property
    def n_variables(self):
        return len(self.variables)

    @property
    def arities(self):
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def __len__(self):
        return len(self.tasks)

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                key = self.names.index(key)
            except ValueError:
                raise error("unknown-task", task=key, names=", ".join(map(repr, self.names))) from None
        return self.tasks[key]

    def subset(self, names_or_indices):
        """A TaskSet with only the given tasks (same global state lists)."""
        picked = [self[k] for k in names_or_indices]
        return make_taskset(picked)

    def global_codes(self, t):
        """Codes of task ``t`` with one column per global variable.

        Columns of variables the task lacks are all zero; use
        ``local_index[t] >= 0`` to tell which are real.
        """
        task = self.tasks[t]
        out = np.zeros((task.n_samples, self.n_variables), dtype=np.uint8, order="F")
        for v in range(self.n_variables):
            j = self.local_index[t, v]
            if j >= 0:
                out[:, v] = task.codes[:, j]
        return out


# ---------------------------------------------------------------------------
# Building DiscreteData from pandas / CSV
# ---------------------------------------------------------------------------


def _is_missing_array(values):
    """Boolean mask of missing cells in an object/float array."""
    import pandas as pd

    mask = np.asarray(pd.isna(values), dtype=bool)
    if values.dtype == object:
        mask |= np.array([isinstance(x, str) and x == "" for x in values], dtype=bool)
    return mask


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


def _column_labels(series, task, column):
    """The labels of one column as an object array of str (verbatim)."""
    values = series.to_numpy()
    kind = values.dtype.kind
    if kind in "iuf":
        _check_numeric_column(values[~np.isnan(values)] if kind == "f" else values, task, column)
    elif kind == "O" and len(values):
        cells = [x for x in values.tolist() if isinstance(x, str) and x != ""]
        numbers = _as_numbers(cells)
        if numbers is not None:
            _check_numeric_column(numbers, task, column)
    if kind in "biuf":
        return np.array([str(x) for x in values.tolist()], dtype=object)
    if kind == "O":
        return np.array([x if isinstance(x, str) else str(x) for x in values.tolist()], dtype=object)
    return values.astype(str).astype(object)


register("mixed-types", D, "task {task!r}, column {column!r} mixes {a} and {b} values (e.g. {x!r} and {y!r}).",
         cause="One column holds values of different Python types, e.g. the number 1 and the text '1', which "
               "would otherwise merge into one state or look like two.",
         fix="Convert the column to one type first (e.g. df[column].astype(str) or pd.to_numeric).")

_KIND_OF = {bool: "bool", int: "int", float: "float", str: None}


def _value_kind(value):
    if isinstance(value, (bool, np.bool_)):
        return bool
    if isinstance(value, (int, np.integer)):
        return int
    if isinstance(value, (float, np.floating)):
        return float
    return str


def _column_kind(series, task, column):
    """``(kind, declared order or None)`` of a column: the type its labels turn back into."""
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
    for text in labels.tolist():
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
    return np.array(out, dtype=object), ("int" if whole else "float")


def _ordered_states(labels, kind):
    """Observed labels in the order of their values: numbers numerically, False before True, text sorted."""
    if kind in ("int", "float"):
        return sorted(labels, key=float)
    if kind == "bool":
        return sorted(labels, key=lambda s: s == "True")
    return sorted(labels)


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
        not named here get their observed labels in sorted order.
    dropna : bool, default False
        Drop rows with a missing value instead of raising.

    Returns
    -------
    DiscreteData

    Raises
    ------
    InvalidDataError
        Missing values (unless ``dropna``), an empty task, duplicate column
        names, a continuous-looking float column, more than 255 states, or an
        undeclared state.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise error("not-a-dataframe", task=name, kind=type(df).__name__)
    names = [str(c) for c in df.columns]
    _check_unique(names, "duplicate-column", task=name)
    if df.shape[1] == 0:
        raise error("no-columns", task=name)
    if df.shape[0] == 0:
        raise error("no-rows", task=name)
    labels = [_column_labels(df.iloc[:, j], name, names[j]) for j in range(df.shape[1])]
    kinds = [_column_kind(df.iloc[:, j], name, names[j]) for j in range(df.shape[1])]
    for j, (kind, order) in enumerate(kinds):
        if kind in ("int", "float") and order is None:
            labels[j], kind = _number_labels(labels[j])
            kinds[j] = (kind, None)
    missing = [_is_missing_array(df.iloc[:, j].to_numpy()) for j in range(df.shape[1])]
    any_missing = np.logical_or.reduce(missing)
    if any_missing.any():
        if not dropna:
            cols = [
                f"{names[j]!r} ({int(m.sum())})" for j, m in enumerate(missing) if m.any()
            ]
            rows = np.flatnonzero(any_missing)
            where = (f"file lines {_describe_rows((rows + 2).tolist())} of {_source!r}" if _source is not None
                     else f"rows with index {_describe_rows(df.index[rows].tolist())}")
            raise error("missing-values", task=name, count=int(sum(m.sum() for m in missing)),
                        columns=", ".join(cols), where=where)
        keep = ~any_missing
        labels = [lab[keep] for lab in labels]
        if not keep.any():
            raise error("empty-after-dropna", task=name)
    declared = dict(states or {})
    codes = np.empty((len(labels[0]), len(names)), dtype=np.uint8, order="F")
    state_lists = []
    for j, col in enumerate(names):
        uniq, inverse = np.unique(labels[j].astype(str), return_inverse=True)
        if col in declared:
            st = tuple(str(s) for s in declared[col])
            _check_unique(st, "duplicate-state", task=name, column=col)
            pos = {s: k for k, s in enumerate(st)}
            unknown = [u for u in uniq.tolist() if u not in pos]
            if unknown:
                raise error("undeclared-state", task=name, column=col, state=unknown[0],
                            declared=", ".join(map(repr, st)))
            lut = np.array([pos[u] for u in uniq.tolist()], dtype=np.int64)
        else:
            kind, order = kinds[j]
            if order is not None:  # a pandas category: its declared levels, unused ones included
                st = tuple(order)
            else:
                st = tuple(_ordered_states(uniq.tolist(), kind))
            pos = {s: k for k, s in enumerate(st)}
            lut = np.array([pos[u] for u in uniq.tolist()], dtype=np.int64)
        if len(st) > MAX_STATES:
            raise error("too-many-states", task=name, column=col, n_states=len(st), limit=MAX_STATES)
        codes[:, j] = lut[inverse.reshape(-1)]
        state_lists.append(st)
    kind_list = tuple(k for k, _ in kinds)
    return DiscreteData(codes, tuple(names), tuple(state_lists), str(name),
                        kind_list if any(k is not None for k in kind_list) else None)


def read_csv(path: Any, *, name: str | None = None, states: Any = None, dropna: bool = False) -> DiscreteData:
    """Read one task from a CSV file (header = variable names).

    Cells are read as verbatim strings: ``NA``, ``None`` or ``null`` are state
    labels, and only an empty cell is a missing value. The task name is the
    file stem unless ``name`` is given.
    """
    import pandas as pd

    path = os.fspath(path)
    if name is None:
        name = os.path.splitext(os.path.basename(path))[0]
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh), None)
    except OSError as exc:
        raise error("cannot-read-file", path=path, reason=exc.strerror or exc) from None
    except UnicodeDecodeError:
        raise error("not-utf8", task=name, path=path) from None
    if not header:
        raise error("no-header", task=name, path=path)
    if len(header) == 1:
        for sep, label in ((";", "semicolons"), ("\t", "tabs")):
            if sep in header[0]:
                raise error("wrong-separator", task=name, path=path, label=label)
    _check_unique([h.strip() for h in header], "duplicate-column", task=name)
    try:
        with warnings.catch_warnings():
            # index_col=False stops pandas from silently turning an extra first
            # field into the index; the warning it gives instead becomes an error.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(
                path, dtype=str, keep_default_na=False, na_values=[], skipinitialspace=False,
                index_col=False, encoding="utf-8-sig",
            )
    except pd.errors.ParserWarning:
        raise error("ragged-rows", task=name, path=path, n_columns=len(header)) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise error("csv-parse", task=name, path=path, reason=str(exc).strip()) from None
    except pd.errors.EmptyDataError:
        raise error("no-data", task=name, path=path) from None
    df.columns = [h.strip() for h in header]
    return from_dataframe(df, name=name, states=states, dropna=dropna, _source=path)


def _check_unique(items, code, **fields):
    seen = set()
    for x in items:
        if x in seen:
            raise error(code, value=x, **fields)
        seen.add(x)


# ---------------------------------------------------------------------------
# Aligning several tasks
# ---------------------------------------------------------------------------


def as_named_items(tasks, task_column=None):
    """Normalise the accepted task containers into a list of (name, obj)."""
    import pandas as pd

    if isinstance(tasks, TaskSet):
        return list(zip(tasks.names, tasks.tasks))
    if isinstance(tasks, pd.DataFrame):
        if task_column is None:
            raise error("task-column-needed")
        if task_column not in tasks.columns:
            raise error("task-column-missing", column=task_column)
        groups = []
        for value, part in tasks.groupby(task_column, sort=True, dropna=False):
            groups.append((str(value), part.drop(columns=[task_column]).reset_index(drop=True)))
        return groups
    if isinstance(tasks, dict):
        items = [(str(k), v) for k, v in tasks.items()]
        _check_unique([k for k, _ in items], "duplicate-task")
        return items
    if isinstance(tasks, (list, tuple)):
        items = []
        for i, obj in enumerate(tasks):
            if isinstance(obj, DiscreteData):
                items.append((obj.name, obj))
            elif isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str):
                items.append(obj)
            else:
                items.append((f"task{i}", obj))
        _check_unique([k for k, _ in items], "duplicate-task")
        return items
    raise error("tasks-type", kind=type(tasks).__name__)


def make_taskset(tasks: Any, *, states: Any = None, dropna: bool = False, task_column: str | None = None) -> TaskSet:
    """Integer-code several related tasks with one state list per variable.

    Parameters
    ----------
    tasks : dict, list, TaskSet or DataFrame
        ``{name: DataFrame or DiscreteData}``, a list of DataFrames (named
        ``task0``, ``task1``, ...) or DiscreteData, or one DataFrame with
        ``task_column`` (one task per value of that column, the multi-net
        case).
    states : dict of str to sequence of str, optional
        Declared state lists. Other variables keep the state order of the
        first DiscreteData input that has them, followed by any further labels
        in sorted order (DataFrame inputs: the sorted union of the labels
        observed in any task).
    dropna : bool, default False
        Drop incomplete rows instead of raising.
    task_column : str, optional
        See ``tasks``.

    Returns
    -------
    TaskSet
    """
    items = as_named_items(tasks, task_column)
    if not items:
        raise error("no-tasks")
    coded = []
    given_order: dict = {}  # state order of DiscreteData inputs (treated as declared)
    for name, obj in items:
        if isinstance(obj, DiscreteData):
            coded.append(obj if obj.name == name else DiscreteData(obj.codes, obj.names, obj.states, name,
                                                                   obj.kinds))
            for v, st in zip(obj.names, obj.states):
                given_order.setdefault(v, st)
        else:
            coded.append(from_dataframe(obj, name=name, states=states, dropna=dropna))
            import pandas as pd

            for col in obj.columns:  # a category's declared levels, in their order (unused ones too)
                if isinstance(obj[col].dtype, pd.CategoricalDtype):
                    given_order.setdefault(str(col), tuple(str(c) for c in obj[col].cat.categories))
    for d in coded:
        if d.n_samples == 0 or d.n_vars == 0:
            raise error("empty-task", task=d.name)
    # Global variables in order of first appearance; union of states.
    variables: list = []
    seen = {}
    for d in coded:
        for v in d.names:
            if v not in seen:
                seen[v] = len(variables)
                variables.append(v)
    declared = dict(states or {})
    # A variable's kind across tasks: the common one, or None (text) when tasks disagree.
    union_kinds = {}
    for v in variables:
        ks = {(d.kinds[d._index[v]] if d.kinds else None) for d in coded if v in d._index}
        union_kinds[v] = ks.pop() if len(ks) == 1 else None
    union = []
    for v in variables:
        if v in declared:
            st = tuple(str(s) for s in declared[v])
            for d in coded:
                if v in d._index:
                    extra = [s for s in d.states[d._index[v]] if s not in st]
                    if extra:
                        raise error("undeclared-state", task=d.name, column=v, state=extra[0],
                                    declared=", ".join(map(repr, st)))
        else:
            labels = set()
            for d in coded:
                if v in d._index:
                    labels.update(d.states[d._index[v]])
            first = given_order.get(v, ())
            st = tuple(first) + tuple(_ordered_states(labels - set(first), union_kinds.get(v)))
            if len(st) > MAX_STATES:
                raise error("too-many-states-across-tasks", column=v, n_states=len(st), limit=MAX_STATES)
        union.append(st)
    aligned = []
    local_index = np.full((len(coded), len(variables)), -1, dtype=np.int64)
    for t, d in enumerate(coded):
        target = tuple(union[seen[v]] for v in d.names)
        aligned.append(d if target == d.states else d.with_states(target))
        for j, v in enumerate(d.names):
            local_index[t, seen[v]] = j
    return TaskSet(tuple(aligned), tuple(variables), tuple(union), local_index)
