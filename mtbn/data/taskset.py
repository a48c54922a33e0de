"""Aligning several tasks (:class:`TaskSet`, :func:`make_taskset`).

The tasks' variable sets may differ but overlap. A variable shared by
several tasks gets one state list (declared, or the sorted union of the
labels seen in any task), so that its arity is the same in every task, and
``TaskSet.local_index`` maps each global variable to each task's column.
pandas is imported inside the functions only (a DataFrame input, a
category's levels).
"""

from __future__ import annotations

from typing import Any

import dataclasses
from dataclasses import dataclass

import numpy as np

from mtbn.data.discrete import MAX_STATES, DiscreteData, _check_unique, _ordered_states
from mtbn.data.frames import from_dataframe
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.messages import error, register

__all__ = ["TaskSet", "make_taskset", "as_named_items"]

D, P = InvalidDataError, InvalidParameterError
register("unknown-task", P, "unknown task {task!r}; tasks are {names}.",
         cause="A task name was looked up that is not one of the tasks.",
         fix="Use one of the task names listed.")
register("duplicate-task", D, "duplicate task name {value!r}.",
         cause="Two tasks have the same name.",
         fix="Give every task its own name (for CSV files, the file names without .csv must differ).")
register("too-many-states-across-tasks", D, "column {column!r} has {n_states} states across tasks; at most {limit}.",
         cause="The tasks together use more than 255 distinct labels for one variable.",
         fix="Harmonise the labels across tasks, or bin the variable.")
register("column-kinds-differ", D,
         "column {column!r} holds {kind_a} in task {task_a!r} (e.g. {label_a!r}) but {kind_b} in task {task_b!r} "
         "(e.g. {label_b!r}); give it one type in every task.",
         cause="One variable is coded differently across tasks (e.g. 0/1 in one, no/yes in another), so its states "
               "would be the union of both codings and could not be turned back into one type of value.",
         fix="Recode the column so that every task uses the same labels and type (e.g. map 0/1 to no/yes), or cast "
             "it to text in every task (df[col].astype(str)).")
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
    discretization : Discretization or None
        The cut points of the columns ``make_taskset(discretize=...)``
        discretised (:mod:`mtbn.data.discretization`).

    Examples
    --------
    Two sites that share ``rain`` only; ``rain`` gets one state list for
    both, and ``local_index`` says where each variable sits in each task
    (-1: missing):

    >>> import pandas as pd
    >>> ts = make_taskset({"north": pd.DataFrame({"rain": ["yes", "no"], "wind": ["low", "high"]}),
    ...                    "south": pd.DataFrame({"rain": ["no", "drizzle"], "sun": ["yes", "yes"]})})
    >>> ts.names, ts.variables
    (('north', 'south'), ('rain', 'wind', 'sun'))
    >>> ts.local_index.tolist()
    [[0, 1, -1], [0, -1, 1]]
    >>> ts.states[0], ts["south"].states[0]
    (('drizzle', 'no', 'yes'), ('drizzle', 'no', 'yes'))

    ``global_codes`` lays a task out over every variable (zeros where it
    has none):

    >>> ts.global_codes(1).tolist()
    [[1, 0, 0], [0, 0, 0]]
    """

    tasks: tuple
    variables: tuple
    states: tuple
    local_index: np.ndarray
    discretization: Any = None

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

    def pooled(self, name="pooled"):
        """All tasks' rows stacked into one DiscreteData over the global variables and states.

        Meaningful when every task has every variable (``local_index >= 0``
        throughout): a variable a task lacks would read as its first state.

        >>> import pandas as pd
        >>> ts = make_taskset({"a": pd.DataFrame({"x": ["u", "v"]}), "b": pd.DataFrame({"x": ["v"]})})
        >>> p = ts.pooled()
        >>> p.n_samples, p.states, p.codes[:, 0].tolist()
        (3, (('u', 'v'),), [0, 1, 1])
        """
        codes = np.concatenate([self.global_codes(t) for t in range(self.n_tasks)])
        return DiscreteData(codes, self.variables, self.states, name)


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



def make_taskset(tasks: Any, *, states: Any = None, dropna: bool = False, task_column: str | None = None,
                 discretize: Any = None) -> TaskSet:
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
    discretize : str, tuple or Discretization, optional
        Discretise continuous DataFrame columns first: ``"quantile"``,
        ``"interval:5"``, ``("quantile", 4)`` (cut points computed on all
        tasks pooled, :func:`mtbn.data.discretize`), or the
        :class:`~mtbn.data.discretization.Discretization` of an earlier run (its
        cut points applied to these tasks). The cut points are kept in the
        result's ``discretization``.

    Returns
    -------
    TaskSet

    Notes
    -----
    The steps: name the tasks (:func:`as_named_items`), code each one
    (:func:`_code_tasks`), list the variables in order of first appearance
    (:func:`_global_variables`), give each one state list
    (:func:`_global_states`), and recode every task onto them
    (:func:`_align`).

    Examples
    --------
    One table with a column that says which site each row comes from gives
    one task per site, over the remaining columns:

    >>> import pandas as pd
    >>> df = pd.DataFrame({"site": ["x", "x", "y", "y", "y"], "rain": ["yes", "no", "no", "no", "yes"],
    ...                    "wet": ["yes", "no", "no", "yes", "yes"]})
    >>> ts = make_taskset(df, task_column="site")
    >>> ts.names, ts.variables, [t.n_samples for t in ts.tasks]
    (('x', 'y'), ('rain', 'wet'), [2, 3])

    A list of frames gets the names ``task0``, ``task1``, ...; a label seen
    in one task only still joins the shared state list:

    >>> ts = make_taskset([pd.DataFrame({"grade": [1, 2]}), pd.DataFrame({"grade": [2, 3]})])
    >>> ts.names, ts.states
    (('task0', 'task1'), (('1', '2', '3'),))
    """
    items = as_named_items(tasks, task_column)
    if not items:
        raise error("no-tasks")
    items, discretization = _discretized(items, discretize)
    coded, given_order = _code_tasks(items, states, dropna)
    for d in coded:
        if d.n_samples == 0 or d.n_vars == 0:
            raise error("empty-task", task=d.name)
    variables, column = _global_variables(coded)
    coded = _one_kind(coded, variables)
    union = _global_states(coded, variables, dict(states or {}), given_order)
    ts = _align(coded, variables, column, union)
    return ts if discretization is None else dataclasses.replace(ts, discretization=discretization)


def _discretized(items, spec):
    """The items with their DataFrames discretised by ``spec`` (coded tasks as they are), and the cut points."""
    from mtbn.data.discretization import apply_discretization

    if spec is None:
        return items, None
    frames = {name: obj for name, obj in items if not isinstance(obj, DiscreteData)}
    done, result = apply_discretization(frames, spec)
    return [(name, done.get(name, obj)) for name, obj in items], result


def _code_tasks(items, states, dropna):
    """Each task as DiscreteData named by its item, and the state orders the inputs fix.

    The state order of a DiscreteData input, or a pandas category's declared
    levels (unused ones too), counts as declared: the first task that has
    the variable fixes it.
    """
    coded = []
    given_order = {}
    for name, obj in items:
        if isinstance(obj, DiscreteData):
            coded.append(obj if obj.name == name else DiscreteData(obj.codes, obj.names, obj.states, name,
                                                                   obj.kinds))
            for v, st in zip(obj.names, obj.states):
                given_order.setdefault(v, st)
        else:
            coded.append(from_dataframe(obj, name=name, states=states, dropna=dropna))
            import pandas as pd

            for col in obj.columns:
                if isinstance(obj[col].dtype, pd.CategoricalDtype):
                    given_order.setdefault(str(col), tuple(str(c) for c in obj[col].cat.categories))
    return coded, given_order


def _global_variables(coded):
    """The tasks' variables in order of first appearance, and each one's global index."""
    variables = []
    column = {}
    for d in coded:
        for v in d.names:
            if v not in column:
                column[v] = len(variables)
                variables.append(v)
    return variables, column


_KIND_TEXT = {None: "text", "int": "integers", "float": "numbers", "bool": "booleans"}


def _one_kind(coded, variables):
    """The tasks with one kind per variable: integers and other numbers together are numbers (float) in every
    task; any other disagreement (text and numbers, booleans and numbers) is refused, naming two tasks."""
    by_var = {}
    for d in coded:
        for j, v in enumerate(d.names):
            by_var.setdefault(v, []).append((d.kinds[j] if d.kinds else None, d, j))
    kind_of = {}
    for v in variables:
        kinds = {k for k, _, _ in by_var[v]}
        if len(kinds) == 1:
            continue
        if kinds == {"int", "float"}:
            kind_of[v] = "float"
            continue
        (ka, da, ja), (kb, db, jb) = by_var[v][0], next(x for x in by_var[v] if x[0] != by_var[v][0][0])
        raise error("column-kinds-differ", column=v, kind_a=_KIND_TEXT[ka], task_a=da.name,
                    label_a=_first_label(da, ja), kind_b=_KIND_TEXT[kb], task_b=db.name, label_b=_first_label(db, jb))
    if not kind_of:
        return coded
    out = []
    for d in coded:
        kinds = tuple(kind_of.get(v, k) for v, k in zip(d.names, d.kinds)) if d.kinds else None
        out.append(d if kinds == d.kinds else DiscreteData(d.codes, d.names, d.states, d.name, kinds))
    return out


def _first_label(data, j):
    """The label of the first row of column ``j`` (or its first state)."""
    states = data.states[j]
    return states[int(data.codes[0, j])] if data.n_samples else (states[0] if states else "")


def _global_states(coded, variables, declared, given_order):
    """One state list per variable: declared (checked against every task), else ordered union of the labels.

    A given order (:func:`_code_tasks`) comes first, then the other labels in
    value order of the variable's kind: the kind every task agrees on, or
    text when they disagree.
    """
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
    return union


def _align(coded, variables, column, union):
    """The TaskSet of the tasks recoded onto the global state lists ``union``."""
    aligned = []
    local_index = np.full((len(coded), len(variables)), -1, dtype=np.int64)
    for t, d in enumerate(coded):
        target = tuple(union[column[v]] for v in d.names)
        aligned.append(d if target == d.states else d.with_states(target))
        for j, v in enumerate(d.names):
            local_index[t, column[v]] = j
    return TaskSet(tuple(aligned), tuple(variables), tuple(union), local_index)
